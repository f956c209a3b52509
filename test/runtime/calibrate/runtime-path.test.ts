/**
 * The runtime-path factor (profile.runtimePath, calibrate/runtime-path.ts): its estimator, the
 * probe tenant, the profile schema (version 2; version-1 profiles still load, marked for
 * recalibration) and the predictions that apply it.
 */
import { describe, expect, it } from 'vitest';
import { runtimePathFactorFromRounds } from '../../../src/runtime/calibrate/estimators.js';
import { runtimePathProbeTenant } from '../../../src/runtime/calibrate/synthetic.js';
import { validateWorkloadIr } from '../../../src/runtime/ir/validate.js';
import { planTenant } from '../../../src/runtime/plan/tenant-plan.js';
import { kernelsFor, DEFAULT_CAPS } from '../../../src/runtime/kernels/index.js';
import { familyOf } from '../../../src/runtime/plan/launch.js';
import { launchTiming, opTiming, runtimePathFactor } from '../../../src/runtime/predict/latency.js';
import { PROFILE_SCHEMA_VERSION, defaultProfile, parseProfile, profileMigrationNotice, type DeviceProfile } from '../../../src/runtime/predict/profile.js';
import { predictWorkload } from '../../../src/runtime/predict/workload.js';
import { planGraph } from '../../../src/runtime/plan/plan.js';
import { mlpTenant, workload } from '../predict/fixtures.js';

const closed = { kind: 'closed' as const, clients: 1, thinkMs: 0 };

function withFactor(factor: number): DeviceProfile {
    return { ...defaultProfile(), runtimePath: { factor, rounds: [factor], ops: 10, hostLoad: 1 } };
}

describe('runtimePathFactorFromRounds', () => {
    it('is the median over rounds of each round\'s geometric mean ratio, every op counting alike', () => {
        const predicted = [1, 10, 0.1];
        // Round 0: every op 1.5× → 1.5; round 1: ratios 2, 2, 0.5 → geometric mean ∛2 ≈ 1.26; round 2: a burst, 3×.
        const r = runtimePathFactorFromRounds([[1.5, 15, 0.15], [2, 20, 0.05], [3, 30, 0.3]], predicted);
        expect(r.rounds[0]).toBeCloseTo(1.5, 10);
        expect(r.rounds[1]).toBeCloseTo(Math.cbrt(2), 10);
        expect(r.rounds[2]).toBeCloseTo(3, 10);
        expect(r.factor).toBeCloseTo(1.5, 10);
    });

    it('leaves out ops without a measured or predicted time, and refuses a round with none', () => {
        expect(runtimePathFactorFromRounds([[2, NaN, 0]], [1, 1, 1]).factor).toBeCloseTo(2, 10);
        expect(runtimePathFactorFromRounds([[2, 4]], [1, 0]).factor).toBeCloseTo(2, 10);
        expect(() => runtimePathFactorFromRounds([[NaN]], [1])).toThrow(/round 0/);
        expect(() => runtimePathFactorFromRounds([], [1])).toThrow(/no rounds/);
    });
});

describe('runtime-path probe tenant', () => {
    it('is valid IR and plans into launches of many kernel families, with fused epilogues', () => {
        const tenant = runtimePathProbeTenant();
        const v = validateWorkloadIr(workload([tenant]));
        expect(v.ok, v.ok ? '' : JSON.stringify(v.issues)).toBe(true);
        const plan = planTenant(tenant, { kernels: { kernelsFor }, caps: DEFAULT_CAPS, fusion: true, limits: { maxStorageBufferBindingSize: 1 << 27, maxBufferSize: 1 << 28 } });
        const families = new Set(plan.ops.flatMap(op => op.launches.map(l => familyOf(l.name).split('.')[0])));
        // Convolutions run as im2col copies and GEMMs (or Winograd) by default; relu, gelu and the residual adds fuse.
        for (const f of ['gemm', 'copy', 'depthwise_conv2d', 'reduction', 'pool']) expect(families, [...families].join(', ')).toContain(f);
        // relu after each convolution is fused into it: fewer timed ops than IR ops.
        expect(plan.ops.filter(op => op.launches.length > 0).length).toBeLessThan(tenant.graph.ops.length - 4);
    });
});

describe('profile schema and the runtime-path factor', () => {
    it('round-trips a profile carrying the factor', () => {
        const p = withFactor(1.4);
        expect(p.schemaVersion).toBe(PROFILE_SCHEMA_VERSION);
        expect(parseProfile(JSON.parse(JSON.stringify(p)))).toEqual(p);
        expect(profileMigrationNotice(parseProfile(JSON.parse(JSON.stringify(p))))).toBeUndefined();
    });

    it('loads a version-1 profile, marked as migrated, with a message asking to recalibrate', () => {
        const v1 = { ...defaultProfile(), schemaVersion: 1 } as Record<string, unknown>;
        const p = parseProfile(JSON.parse(JSON.stringify(v1)));
        expect(p.schemaVersion).toBe(PROFILE_SCHEMA_VERSION);
        expect(p.migratedFrom).toBe(1);
        expect(p.runtimePath).toBeUndefined();
        expect(runtimePathFactor(p)).toBe(1);
        expect(profileMigrationNotice(p)).toMatch(/profile schema 1, now 2.*run `tenancy calibrate` again/);
    });

    it('refuses an unknown version, naming the versions', () => {
        expect(() => parseProfile({ ...defaultProfile(), schemaVersion: 99 })).toThrow(/found schemaVersion 99, expected 2; run `tenancy calibrate` again/);
        expect(() => parseProfile({ ...defaultProfile(), runtimePath: { factor: 0, rounds: [], ops: 1, hostLoad: 0 } })).toThrow(/runtimePath/);
    });

    it('scales every launch, op and request prediction by the factor', () => {
        const base = defaultProfile(), scaled = withFactor(1.5);
        const tenant = mlpTenant('a', closed);
        const ops = planGraph(tenant.graph, {});
        for (const op of ops) {
            for (const l of op.launches) expect(launchTiming(scaled, l).ms).toBeCloseTo(1.5 * launchTiming(base, l).ms, 9);
            expect(opTiming(scaled, op).typicalMs).toBeCloseTo(1.5 * opTiming(base, op).typicalMs, 9);
        }
        const a = predictWorkload(workload([tenant]), base).tenants[0], b = predictWorkload(workload([mlpTenant('a', closed)]), scaled).tenants[0];
        a.ops.forEach((o, i) => expect(b.ops[i].soloP50Ms).toBeCloseTo(1.5 * o.soloP50Ms, 9));
        expect(b.serviceMs).toBeGreaterThan(a.serviceMs);
    });
});
