/** `calibrate()` end to end on the software adapter with tiny shapes: a valid profile, every part measured. */
import { describe, expect, it } from 'vitest';
import { calibrate } from '../../../src/runtime/calibrate/calibrate.js';
import { calibrationCases, convCase, corunProbeTenants, denseCase, matmulCase, reluCase, softmaxCase } from '../../../src/runtime/calibrate/synthetic.js';
import { caseShapeOf } from '../../../src/runtime/calibrate/refine.js';
import { parseProfile, profileKey } from '../../../src/runtime/predict/profile.js';
import { predictWorkload } from '../../../src/runtime/predict/workload.js';
import { mlpTenant, workload } from '../predict/fixtures.js';
import { probeAdapter } from '../gpu.js';
import { CANDIDATE_QUANTA_MS, probeWorkload } from '../../../src/runtime/calibrate/corun-evidence.js';

const hasAdapter = await probeAdapter();

describe.skipIf(!hasAdapter)('calibrate (tiny shapes)', () => {
    it('measures curves, bandwidth, overheads and interference into a valid profile the model uses', async () => {
        const progress: number[] = [];
        const messages: string[] = [];
        const profile = await calibrate({
            quick: true,
            tenancyVersion: 'test',
            onProgress: (f, m) => { progress.push(f); messages.push(m); },
            ladders: [
                { family: 'gemm.vec4', cases: [matmulCase(32, 32, 32, 'vec4_4x8'), matmulCase(64, 64, 64, 'vec4_4x8'), denseCase(4, 128, 64, 'vec4_4x8')] },
                { family: 'conv2d (default)', cases: [convCase(4, 12, 8, 3)] },
                // The quick elementwise ladder (its cases have kinds: the refinement can build more of them).
                calibrationCases(true).find(l => l.family === 'elementwise')!,
                { family: 'reduction', cases: [softmaxCase(16, 64)] },
            ],
            interference: { compute: matmulCase(96, 96, 96), memory: reluCase(262144), capped: matmulCase(96, 96, 96, 'capped_2') },
            corunProbe: { rounds: 2, durationMs: 600, warmupMs: 100 },
        });
        expect(parseProfile(JSON.parse(JSON.stringify(profile)))).toEqual(profile);
        expect(profile.uncalibrated).toBe(false);
        expect(profile.key).toBe(profileKey(profile.adapter));
        expect(profile.families['gemm.vec4'].points.length, JSON.stringify(profile.families['gemm.vec4'].points)).toBeGreaterThanOrEqual(3);
        expect(profile.families.elementwise.basis).toBe('bytes');
        expect(profile.bandwidthBytesPerMs).toBeGreaterThan(0);
        expect(profile.kernelFloorMs).toBeGreaterThan(0);
        expect(profile.interference.pairs.map(p => `${p.victim}×${p.aggressor}`)).toEqual([
            'compute×compute', 'compute×memory', 'memory×compute', 'memory×memory', 'capped×compute', 'compute×capped',
        ]);
        for (const p of profile.interference.pairs) expect(p.slowdown).toBeGreaterThan(0);
        expect(progress.at(-1)).toBe(1);
        // The shaders first, over one device per core: compiled, or found compiled in Mesa's cache.
        expect(messages.find(m => !m.startsWith('shaders: compiling,'))).toMatch(/^shaders(?: compiled: \d+ cases on \d devices? in [\d.]+ s|: already compiled \(the first \d+ cases dispatched at once; [\d.]+ s\))$/);
        // Long steps say where they are meanwhile, and the fraction moves by time through them (progress.ts): the curves'
        // rounds, before any case's figure, and the co-run probe's rounds.
        const rounds = messages.flatMap((m, i) => /^curves: round \d of \d through \d+ ladders$/.test(m) ? [i] : []);
        expect(rounds.length, messages.join('\n')).toBe(2); // quick
        expect(progress[rounds[1]]).toBeGreaterThan(progress[rounds[0]]);
        expect(rounds.at(-1)!).toBeLessThan(messages.findIndex(m => m.startsWith('gemm.vec4: ')));
        expect(progress[rounds[0]]).toBeGreaterThan(0.05);
        expect(progress[rounds[1]]).toBeLessThan(0.5);
        expect(messages.some(m => m.startsWith('co-run probe: two synthetic tenants co-running'))).toBe(true);
        const probeRounds = messages.flatMap((m, i) => /^co-run probe: \d of 2 rounds done$/.test(m) ? [progress[i]] : []);
        expect(probeRounds.length, messages.join('\n')).toBe(2);
        expect(probeRounds[0]).toBeLessThan(1);
        expect(probeRounds[1]).toBeGreaterThan(probeRounds[0]);
        // The idle arrivals, the interference pairs and the co-run probe: 40 % of a calibration's time, not its last 5 %.
        expect(progress[messages.findIndex(m => m.startsWith('idle arrivals:'))]).toBeLessThan(0.7);
        expect(progress.every((f, i) => i === 0 || f >= progress[i - 1])).toBe(true);
        expect(profile.hostLoad?.cores).toBeGreaterThan(0);
        // Host effects: measured, finite, in their ranges (factors ≥ 1, penalties and tails ≥ 0).
        expect(profile.hostMeanFactor?.gpu).toBeGreaterThanOrEqual(1);
        expect(profile.hostMeanFactor?.wall).toBeGreaterThanOrEqual(1);
        expect(Number.isFinite(profile.hostMeanFactor?.wall)).toBe(true);
        expect(profile.idlePenalty?.wallMs).toBeGreaterThanOrEqual(0);
        expect(profile.idlePenalty?.gpuMsPerPass).toBeGreaterThanOrEqual(0);
        expect(Number.isFinite(profile.idlePenalty?.wallMs)).toBe(true);
        // The idle penalty comes from the runtime's own path, on two request lengths (pass counts).
        const runtimeIdle = messages.find(m => m.startsWith('idle arrivals (runtime path)'));
        expect(runtimeIdle, messages.join('\n')).toMatch(/\(\d+ passes: .*; \d+ passes: /);
        // The idle probe's first pass runs its blocks' kernel: the same trials time what being first costs.
        expect(runtimeIdle).toMatch(/first pass \+\d+\.\d+ ms back to back, \+\d+\.\d+ ms from idle/);
        expect(profile.firstPassMs?.busy).toBeGreaterThanOrEqual(0);
        expect(Number.isFinite(profile.firstPassMs?.idle)).toBe(true);
        expect(profile.serviceCv).toBeGreaterThanOrEqual(0);
        expect(profile.serviceCvAtMs).toBeGreaterThan(0);
        expect(profile.hostSpeedProbeMs).toBeGreaterThan(0);
        for (const tail of [profile.serviceTailMs, profile.corunTailMs]) {
            expect(tail?.p90).toBeGreaterThanOrEqual(0);
            expect(Number.isFinite(tail?.p99)).toBe(true);
        }
        // Band evidence for every family (elementwise has 4 points: its own leave-one-out; the others pool), said in the progress.
        expect(profile.families.elementwise.points.length, JSON.stringify(profile.families.elementwise.points)).toBeGreaterThanOrEqual(4);
        for (const [name, fam] of Object.entries(profile.families)) {
            const e = fam.error;
            expect(e, name).toBeDefined();
            if (fam.points.length >= 4) expect(e, name).toMatchObject({ from: 'family', points: fam.points.length });
            else expect(['class', 'all'], name).toContain(e!.from);
            expect(e!.points, name).toBeGreaterThanOrEqual(4);
            expect(Number.isFinite(e!.looP90) && e!.looP90 >= 0, name).toBe(true);
            expect(Number.isFinite(e!.noiseP90) && e!.noiseP90 >= 0, name).toBe(true);
        }
        expect(messages.find(m => m.startsWith('error bands'))).toMatch(/elementwise ±[\d.]+%(,|$)/);
        // Adaptive sampling: every anchor was missed by 15 % or more when left out, every added case was measured, said in the progress.
        const refined = profile.refinement!;
        expect(refined).toBeDefined();
        for (const a of refined.anchors) expect(Math.abs(a.error), a.shape).toBeGreaterThanOrEqual(0.15);
        const measured = new Set(Object.values(profile.families).flatMap(f => f.points.map(p => caseShapeOf(p.shape))));
        for (const shape of refined.added) expect([...measured]).toContain(shape);
        expect(messages.find(m => m.startsWith('refined: '))).toBeDefined();
        // Its new cases' shaders went through a pass of their own first (compiled there, or found compiled).
        const refinedAt = messages.findIndex(m => m.startsWith('refined: '));
        const passes = messages.slice(0, refinedAt).filter(m => /^shaders(?: compiled:|: already compiled)/.test(m));
        expect(passes.length, messages.join('\n')).toBe(refined.added.length > 0 ? 2 : 1);
        // The co-run model: a turn from the candidates (absent: whole kernels fitted best), and its error from two rounds of
        // the probe's two tenants × five figures, said in the progress.
        expect([undefined, ...CANDIDATE_QUANTA_MS]).toContain(profile.corunQuantumMs);
        expect(profile.corunModelError?.points).toBe(20);
        expect(Number.isFinite(profile.corunModelError?.excessP90) && profile.corunModelError!.excessP90 >= 0).toBe(true);
        expect(messages.find(m => m.startsWith('co-run model')), messages.join('\n')).toMatch(/turns of (whole kernels|[\d.]+ ms) \(score whole kernels [\d.∞]+, 8 ms .*\); corun_probe_short mean [\d.]+ ms predicted, [\d.]+ \/ [\d.]+ measured; corun_probe_long .*; error ±[\d.]+% beyond the bands at p90 of 20 figures; ops' co-run times moved ±[\d.]+% between rounds at p90 of \d+$/);
        // Ops' co-run noise: each timed op's median in each round against its median over both, every op of the probe with launches timed in both.
        const probeOps = predictWorkload(probeWorkload(corunProbeTenants(40), 600, 100), profile).tenants.flatMap(t => t.ops.filter(o => o.launches.length > 0));
        expect(profile.corunOpNoise?.points).toBe(2 * probeOps.length);
        expect(Number.isFinite(profile.corunOpNoise?.p90) && profile.corunOpNoise!.p90 >= 0).toBe(true);
        // The model runs on what was measured.
        const w = predictWorkload(workload([mlpTenant('a', { kind: 'closed', clients: 1, thinkMs: 0 })]), profile);
        expect(w.tenants[0].serviceMs).toBeGreaterThan(0);
        expect(Number.isFinite(w.tenants[0].solo.p99)).toBe(true);
    }, 120_000);
});
