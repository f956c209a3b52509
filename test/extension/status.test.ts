import { describe, expect, it, vi } from 'vitest';

// status.ts creates a LanguageStatusItem; describeStatus (the wording) is pure, so stub vscode.
vi.mock('vscode', () => ({}));
const { describeStatus } = await import('../../src/extension/status.js');

describe('describeStatus', () => {
    it('says it is starting before the server answers', () => {
        expect(describeStatus(undefined, [])).toEqual({ text: 'Tenancy', detail: 'starting…', severity: 'info' });
    });
    it('shows the adapter, calibration and last run', () => {
        const view = describeStatus({ calibrated: true, adapter: 'mesa llvmpipe (software)', lastRun: { workload: 'w', finishedAt: '2026-11-29T12:00:00.000Z', status: 'complete', resultsPath: '/r.json' } }, []);
        expect(view.text).toBe('$(pulse) mesa llvmpipe (software) · calibrated');
        expect(view.detail).toMatch(/^last run: w at .* \(complete\)$/);
        expect(view.severity).toBe('info');
    });
    it('warns when the last run\'s host was busy, and says when its figures are not valid', () => {
        const view = describeStatus({ calibrated: true, adapter: 'mesa llvmpipe (software)', lastRun: {
            workload: 'w', finishedAt: '2026-11-29T12:00:00.000Z', status: 'complete', resultsPath: '/r.json', valid: false,
            hostWarning: 'the host was busy (load 9.5 on 2 cores): figures may not repeat',
        } }, []);
        expect(view.detail).toMatch(/^last run: w at .* \(complete, not valid\) · ⚠ the host was busy \(load 9\.5 on 2 cores\): figures may not repeat$/);
        expect(view.severity).toBe('warning');
    });
    it('falls back to the probed adapter, warns while uncalibrated or without adapter, and shows running workloads', () => {
        expect(describeStatus({ calibrated: false, adapter: undefined, lastRun: undefined }, ['w'], { adapter: 'nvidia RTX (ada)' }))
            .toEqual({ text: '$(sync~spin) nvidia RTX (ada) · uncalibrated', detail: 'running w · no run yet', severity: 'warning' });
        expect(describeStatus({ calibrated: true, adapter: undefined, lastRun: undefined }, [], { error: 'no WebGPU adapter' }))
            .toMatchObject({ text: '$(pulse) no WebGPU adapter · calibrated', severity: 'warning' });
    });
});
