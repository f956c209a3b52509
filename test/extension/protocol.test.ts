import { describe, expect, it } from 'vitest';
import { CommandIds, describePayload, isDocumentRef, isTenantRef, isWorkloadRef } from '../../src/protocol/commands.js';
import { isMeasuredChangedParams, isResultsChangedParams } from '../../src/protocol/messages.js';
import { isSweepReportParams, isSweepReportResult } from '../../src/protocol/sweep-report.js';

describe('command ids', () => {
    it('are namespaced tenancy.<area>.<verb>', () => {
        expect(CommandIds.runWorkload).toBe('tenancy.workload.run');
        for (const id of Object.values(CommandIds)) expect(id).toMatch(/^tenancy\.[a-z]+\.[a-zA-Z]+$/);
    });
});

describe('payload guards', () => {
    it('accept well-formed payloads', () => {
        expect(isDocumentRef({ uri: 'file:///a.tenancy' })).toBe(true);
        expect(isWorkloadRef({ uri: 'file:///a.tenancy', workload: 'w' })).toBe(true);
        expect(isTenantRef({ uri: 'file:///a.tenancy', workload: 'w', tenant: 't' })).toBe(true);
    });
    it('reject missing, empty or mistyped fields', () => {
        for (const bad of [undefined, null, 'x', [], {}, { uri: '' }, { uri: 3 }]) expect(isDocumentRef(bad)).toBe(false);
        expect(isWorkloadRef({ uri: 'file:///a' })).toBe(false);
        expect(isWorkloadRef({ uri: 'file:///a', workload: '' })).toBe(false);
        expect(isTenantRef({ uri: 'file:///a', workload: 'w' })).toBe(false);
        expect(isTenantRef({ uri: 'file:///a', workload: 'w', tenant: 1 })).toBe(false);
    });
    it('accept a sweep report request and answer, and reject malformed ones', () => {
        expect(isSweepReportParams({ path: '/sweeps/mix' })).toBe(true);
        for (const bad of [undefined, {}, { path: '' }, { path: 3 }]) expect(isSweepReportParams(bad)).toBe(false);
        const sweep = { sweep: 's', file: 'f', cells: { total: 1, merged: 1 }, notMerged: [], comparisons: [], repeats: [], resultsPath: '/m.json', axes: [{ workload: 'w', device: 'd', loads: [1], tenants: [], qos: [] }] };
        expect(isSweepReportResult({ sweep })).toBe(true);
        expect(isSweepReportResult({ error: 'not merged yet' })).toBe(true);
        expect(isSweepReportResult({ sweep: { ...sweep, axes: [{ workload: 'w' }] } })).toBe(false);
        expect(isSweepReportResult({ sweep: { ...sweep, repeats: undefined } })).toBe(false);
    });
    it('describe what was found, shortened', () => {
        expect(describePayload(undefined)).toBe('nothing');
        expect(describePayload({ uri: 1 })).toBe('{"uri":1}');
        expect(describePayload({ s: 'x'.repeat(500) }).length).toBeLessThanOrEqual(201);
    });
});

describe('message guards', () => {
    it('check measured-changed notifications', () => {
        expect(isMeasuredChangedParams({ uris: ['a'] })).toBe(true);
        expect(isMeasuredChangedParams({ uris: [1] })).toBe(false);
        expect(isMeasuredChangedParams({})).toBe(false);
    });
    it('check results change notifications', () => {
        expect(isResultsChangedParams({ changes: [{ uri: 'file:///r.json', kind: 'created' }] })).toBe(true);
        expect(isResultsChangedParams({ changes: [{ uri: 'file:///r.json', kind: 'renamed' }] })).toBe(false);
    });
});

describe('adapterDisplayName', () => {
    it('keeps vendor, model and architecture, without driver versions', async () => {
        const { adapterDisplayName } = await import('../../src/protocol/adapter.js');
        expect(adapterDisplayName({ vendor: 'mesa', architecture: 'software', device: 'llvmpipe-llvm-15-0-6-256-bits-', description: 'llvmpipe: Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6) 0.0.1' }))
            .toBe('mesa llvmpipe (software)');
        expect(adapterDisplayName({ vendor: 'nvidia', architecture: 'ada', device: '', description: 'NVIDIA GeForce RTX 4090' })).toBe('NVIDIA GeForce RTX 4090 (ada)');
        expect(adapterDisplayName({ vendor: 'apple', device: 'm2', description: '' })).toBe('apple m2');
        expect(adapterDisplayName({})).toBeUndefined();
        expect(adapterDisplayName(null)).toBeUndefined();
    });
});
