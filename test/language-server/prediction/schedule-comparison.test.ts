/**
 * The hint rule and its text (schedule-comparison.ts) on hand-made evaluations: when a hint fires
 * (beyond the band, or rescuing SLOs the declared schedule meets at no load), when it does not
 * (within the band, one tenant, no SLOs, auto, already the best, not simulated), what it says;
 * beside `tenancy compare`'s measurement (comparison files built by the runtime's own builders):
 * the measured gain shown, the hint withdrawn when the measurement contradicts it.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import type { IrSchedule } from '../../../src/runtime/ir/types.js';
import type { ScheduleEvaluation, ScheduledTenant } from '../../../src/runtime/predict/schedules.js';
import { bestSchedule } from '../../../src/runtime/predict/schedules.js';
import { scheduleName } from '../../../src/runtime/schedule/policy.js';
import { capacityRange, comparisonMarkdown, comparisonNotes, comparisonRows, figureBands, HINT_BAND, scheduleHint, type ScheduleComparison } from '../../../src/language-server/prediction/schedule-comparison.js';
import type { Comparison } from '../../../src/runtime/report/compare.js';
import { makeComparison } from '../../fixtures/results/make-comparison.js';
import { bandRange } from '../../../src/runtime/predict/band.js';
import { formatBandRange } from '../../../src/language-server/prediction/format.js';
import { msValue } from '../../../src/protocol/units.js';

/** A tenant with a p99 (ms) and, optionally, a p99 SLO. */
function tenant(name: string, p99: number, sloMs?: number): ScheduledTenant {
    return {
        name, p50Ms: p99 / 2, p90Ms: p99 * 0.8, p95Ms: p99 * 0.9, p99Ms: p99, p999Ms: p99 * 1.1, meanMs: p99 / 2, throughputPerSecond: 10, serviceMs: p99 / 4, slowdown: 1,
        slos: sloMs === undefined ? [] : [{ percentile: 'p99', targetMs: sloMs, predictedMs: p99, met: p99 <= sloMs }],
        sampling: { mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, p999: 0 }, sampledRequests: 600,
    };
}

/** A schedule's evaluation: its QoS-satisfied throughput (req/s) and its tenants. */
function evaluation(schedule: IrSchedule, qos: number, tenants: ScheduledTenant[]): ScheduleEvaluation {
    const name = scheduleName(schedule);
    return {
        schedule, resolved: { schedule, settings: {}, name }, name, tenants,
        sloMet: tenants.every(t => t.slos.every(s => s.met)), qosThroughput: qos, capacityLoad: qos > 0 ? 1.5 : 0, capacityProbes: [],
    };
}

const concurrent: IrSchedule = { policy: 'concurrent' };
const sequential: IrSchedule = { policy: 'sequential' };
const blocks: IrSchedule = { policy: 'layer_block', size: 'auto' };
const collision = { ops: ['vision/resnet/conv2d.7', 'nlp/bert/attention'] as [string, string], tenants: ['vision', 'nlp'] as [string, string], cost: 0.2, share: 0.3 };

/** A comparison of candidates, the declared one among them (or given). */
function comparison(declared: IrSchedule, candidates: ScheduleEvaluation[], options: Partial<ScheduleComparison> = {}): ScheduleComparison {
    const { best, why } = bestSchedule(candidates);
    return {
        workload: 'w', declared, candidates, current: candidates.find(c => c.name === scheduleName(declared)) ?? (declared.policy === 'auto' ? best : undefined),
        best, why, collisions: [collision], tenantCount: candidates[0].tenants.length, hasSlos: true, ...options,
    };
}

/** Concurrent misses nlp's p99 (61 ms > 50 ms); layer_block meets it (38 ms) and serves `qos` req/s against concurrent's 50. */
function nlpMix(qos: number, declared: IrSchedule = concurrent): ScheduleComparison {
    return comparison(declared, [
        evaluation(concurrent, 50, [tenant('vision', 20, 40), tenant('nlp', 61, 50)]),
        evaluation(sequential, 20, [tenant('vision', 30, 40), tenant('nlp', 90, 50)]),
        evaluation(blocks, qos, [tenant('vision', 22, 40), tenant('nlp', 38, 50)]),
    ]);
}

describe('schedule hint rule', () => {
    test('beyond the band: names the schedule, the SLO it meets, the gain and the colliding ops', () => {
        const hint = scheduleHint(nlpMix(80));
        expect(hint?.suggested.name).toBe('layer_block(size: auto)');
        expect(hint?.gain).toBeCloseTo(1.6, 9);
        expect(hint?.message).toBe("layer_block(size: auto) is predicted to meet nlp's p99 (38 ms vs 61 ms) at 1.60× the QoS-satisfied throughput (80/s vs 50/s); vision/resnet/conv2d.7 and nlp/bert/attention collide");
    });

    test('within the band: no hint; a narrower band gives one', () => {
        const close = nlpMix(70); // 1.4× < 1 + 0.47
        expect(scheduleHint(close)).toBeUndefined();
        expect(scheduleHint(close, { band: 0.3 })?.suggested.name).toBe('layer_block(size: auto)');
        // Just either side of the band.
        expect(scheduleHint(nlpMix(50 * (1 + HINT_BAND) * 0.99))).toBeUndefined();
        expect(scheduleHint(nlpMix(50 * (1 + HINT_BAND) * 1.01))).toBeDefined();
    });

    test('the gain alone, when no SLO changes verdict', () => {
        const c = comparison(concurrent, [
            evaluation(concurrent, 40, [tenant('a', 10, 50), tenant('b', 10)]),
            evaluation(blocks, 100, [tenant('a', 12, 50), tenant('b', 11)]),
        ]);
        expect(scheduleHint(c)?.message).toBe('layer_block(size: auto) is predicted to serve 2.50× the QoS-satisfied throughput of concurrent (100/s vs 40/s); vision/resnet/conv2d.7 and nlp/bert/attention collide');
    });

    test('the declared schedule meets its SLOs at no load: a hint only when the other meets them with the band to spare', () => {
        const rescue = (nlpMs: number) => comparison(sequential, [
            evaluation(sequential, 0, [tenant('vision', 30, 40), tenant('nlp', 90, 50)]),
            evaluation(blocks, 60, [tenant('vision', 20, 40), tenant('nlp', nlpMs, 50)]),
        ]);
        // 30 ms × 1.47 ≤ 50 ms: met with the band to spare. Under sequential nothing overlaps: no ops named.
        expect(scheduleHint(rescue(30))?.message).toBe("layer_block(size: auto) is predicted to meet nlp's p99 (30 ms vs 90 ms) at the declared load; sequential meets them at no load");
        expect(scheduleHint(rescue(30))?.gain).toBe(Infinity);
        // 45 ms × 1.47 > 50 ms: within the error, no hint.
        expect(scheduleHint(rescue(45))).toBeUndefined();
    });

    test('no hint: one tenant, no SLOs, auto, the declared schedule already best, or not simulated', () => {
        const one = comparison(concurrent, [evaluation(concurrent, 10, [tenant('a', 20, 40)]), evaluation(blocks, 40, [tenant('a', 10, 40)])]);
        expect(scheduleHint(one)).toBeUndefined();
        expect(comparisonNotes(one)).toContain('No hint: one tenant has nothing to be scheduled against.');
        expect(scheduleHint({ ...nlpMix(80), hasSlos: false })).toBeUndefined();
        expect(scheduleHint(nlpMix(80, { policy: 'auto' }))).toBeUndefined();
        expect(scheduleHint(nlpMix(80, blocks))).toBeUndefined();
        expect(scheduleHint({ ...nlpMix(80, { policy: 'co_tuned', variants: 2 }), current: undefined, currentMissing: 'co_tuned(variants: 2) cannot be simulated' })).toBeUndefined();
    });

});

describe('schedule hint beside tenancy compare', () => {
    // Measured comparisons of concurrent (the baseline), layer_block(size: auto) (ran as size 4) and
    // sequential: layer_block's headline (a's p99) better, no better, worse. Each bootstraps its intervals (seconds each, minutes on a loaded host): built once.
    let better: Comparison, noGain: Comparison, worse: Comparison;
    beforeAll(() => {
        better = makeComparison('file:///w/mix.tenancy', 'w', { layerBlockMs: 8 });
        noGain = makeComparison('file:///w/mix.tenancy', 'w', { layerBlockMs: 40 });
        worse = makeComparison('file:///w/mix.tenancy', 'w', { layerBlockMs: 60 });
    }, 600_000);
    /** `better` with `tenancy compare --capacity`'s headline for layer_block: the ratio the hint predicts. */
    const capacity = (measured: { estimate: number; low: number; high: number; verdict: 'better' | 'no-change' | 'worse' }): Comparison => ({
        ...better,
        schedules: better.schedules.map(s => (s.asked === 'layer_block(size: auto)' ? { ...s, gain: { metric: 'capacity' as const, measured, predicted: 1.6 } } : s)),
    });

    test('a measured gain is shown beside the predicted one', () => {
        const hint = scheduleHint(nlpMix(80), { measured: capacity({ estimate: 1.4, low: 1.2, high: 1.7, verdict: 'better' }) });
        expect(hint?.message).toContain('at 1.60× the QoS-satisfied throughput (predicted 1.60×, measured 1.40× (1.20–1.70))');
        expect(hint?.withdrawn).toBeUndefined();
        // A latency headline is the compare's own prediction of that statistic, named, beside its measurement.
        const latency = scheduleHint(nlpMix(80), { measured: better })!;
        expect(latency.measured).toMatchObject({ schedule: 'layer_block(size: 4)', what: "a's p99", predicted: 4, betterThanBaseline: 'confirmed' });
        expect(latency.message).toMatch(/^layer_block\(size: auto\) is predicted to meet nlp's p99 \(38 ms vs 61 ms\) at 1\.60× the QoS-satisfied throughput \(80\/s vs 50\/s\); a's p99 predicted 4\.00×, measured \d+\.\d\d× \((\d+\.\d\d)–\d+\.\d\d\); vision\/resnet\/conv2d\.7 and nlp\/bert\/attention collide$/);
        expect(latency.withdrawn).toBeUndefined();
    });

    test('a measurement that contradicts the hint withdraws it and says so: no gain ruling the predicted one out, or worse', () => {
        const none = scheduleHint(nlpMix(80), { measured: noGain })!;
        expect(none.measured?.betterThanBaseline).toBe('contradicted');
        expect(none.withdrawn).toMatch(/^measured: no gain \(0\.\d\d–1\.\d\d×\) in a's p99 against concurrent, hint withdrawn$/);
        expect(none.message).toBe(`layer_block(size: auto) was predicted to meet nlp's p99 (38 ms vs 61 ms) at 1.60× the QoS-satisfied throughput (80/s vs 50/s); ${none.withdrawn}`);
        const lost = scheduleHint(nlpMix(80), { measured: worse })!;
        expect(lost.withdrawn).toMatch(/^measured: worse \(0\.\d\d–0\.\d\d×\) in a's p99 against concurrent, hint withdrawn$/);
        // Capacity: the interval holds 1 and lies below the predicted 1.6×.
        expect(scheduleHint(nlpMix(80), { measured: capacity({ estimate: 1.05, low: 0.9, high: 1.1, verdict: 'no-change' }) })!.withdrawn)
            .toBe('measured: no gain (0.90–1.10×) in capacity against concurrent, hint withdrawn');
        // An interval that holds both 1 and the predicted gain rules nothing out: the hint stays, with the measurement.
        const wide = scheduleHint(nlpMix(80), { measured: capacity({ estimate: 1.3, low: 0.9, high: 1.8, verdict: 'no-change' }) })!;
        expect(wide.withdrawn).toBeUndefined();
        expect(wide.message).toContain('(predicted 1.60×, measured 1.30× (0.90–1.80))');
    });

    test('withdrawn only by a complete, valid comparison against the declared schedule', () => {
        const cancelled = scheduleHint(nlpMix(80), { measured: { ...noGain, status: 'cancelled' } })!;
        expect(cancelled.withdrawn).toBeUndefined();
        expect(cancelled.message).toMatch(/; a's p99 predicted 4\.00×, measured [\d.]+× \([\d.]+–[\d.]+\), comparison incomplete; vision/);
        expect(scheduleHint(nlpMix(80), { measured: { ...noGain, valid: false } })!.message).toMatch(/measured [\d.]+× \([\d.]+–[\d.]+\), not valid; vision/);
        // Measured against concurrent; the workload now declares sequential: no measured gain over it.
        const other = nlpMix(80, sequential);
        const hint = scheduleHint(other, { measured: noGain })!;
        expect(hint.measured).toBeUndefined();
        expect(hint.withdrawn).toBeUndefined();
        expect(hint.message).not.toContain('measured');
        expect(comparisonNotes(other, HINT_BAND, noGain)).toContain('Measured (tenancy compare, 2026-12-01T10:01:00.000Z) against concurrent, not sequential: compare again for measured gains over sequential.');
    });

    test('the hover\'s notes: the hint (or its withdrawal) and every schedule measured, predicted beside measured', () => {
        const notes = comparisonNotes(nlpMix(80), HINT_BAND, better);
        expect(notes[1]).toMatch(/^Hint: layer_block\(size: auto\) is predicted to meet nlp's p99 .*; a's p99 predicted 4\.00×, measured/);
        expect(notes[2]).toMatch(/^Measured \(tenancy compare, 2026-12-01T10:01:00\.000Z\) against concurrent: layer_block\(size: auto\) → layer_block\(size: 4\): a's p99 predicted 4\.00×, measured [\d.]+× \([\d.]+–[\d.]+\); sequential: a's p99 predicted 1\.20×, measured [\d.]+× \([\d.]+–[\d.]+\)\.$/);
        expect(comparisonNotes(nlpMix(80), HINT_BAND, noGain)[1]).toMatch(/^Hint withdrawn: layer_block\(size: auto\) was predicted .*, hint withdrawn\.$/);
        expect(comparisonMarkdown(nlpMix(80), 'profile p', HINT_BAND, worse)).toMatch(/\n\nBest: .*\nHint withdrawn: .*measured: worse .*\nMeasured \(tenancy compare/);
        // Without a comparison, as before.
        expect(comparisonNotes(nlpMix(80)).some(n => n.startsWith('Measured'))).toBe(false);
    });
});

describe('comparison table', () => {
    test('every schedule with its tenants\' figures and SLO verdicts, the current and the best marked, and why', () => {
        const rows = comparisonRows(nlpMix(80));
        expect(rows[0]).toEqual(['schedule', 'vision p50 · p99 ms (SLO p99 ≤ 40)', 'nlp p50 · p99 ms (SLO p99 ≤ 50)', 'QoS-satisfied throughput', '']);
        expect(rows.slice(1)).toEqual([
            ['concurrent', '10 · 20 ✓', '30.5 · 61 ✗', '50/s at 1.50× the load', 'current'],
            ['sequential', '15 · 30 ✓', '45 · 90 ✗', '20/s at 1.50× the load', ''],
            ['layer_block(size: auto)', '11 · 22 ✓', '19 · 38 ✓', '80/s at 1.50× the load', 'best (auto would run it)'],
        ]);
        const notes = comparisonNotes(nlpMix(80));
        expect(notes[0]).toMatch(/^Best: layer_block\(size: auto\) — 1\.60× the QoS-satisfied throughput of concurrent/);
        expect(notes[1]).toMatch(/^Hint: layer_block\(size: auto\) is predicted to meet nlp's p99/);
        expect(notes).toContain('Ops that collide most (their share of the pair\'s mutual slowdown while both are busy: one\'s kernels waiting for the other\'s): vision/resnet/conv2d.7 and nlp/bert/attention (30%).');
        expect(comparisonNotes(nlpMix(70))[1]).toBe('No hint: layer_block(size: auto)\'s predicted advantage is within the predictor\'s error (a hint needs more than 1.47× the QoS-satisfied throughput, or every SLO met with that margin where concurrent meets none).');
    });

    test('with bands: each figure carries its 90 % band — the kernels\' band, the co-run model\'s error and that schedule\'s sampling spread over a run', () => {
        const c = nlpMix(80);
        // vision h 10 %, nlp 20 %, c 5 %; a 1 s benchmark at 10 req/s brings 10 requests.
        const bands = { tenants: [{ h: 0.1, arrival: { kind: 'closed' as const, clients: 1, thinkMs: 0 } }, { h: 0.2, arrival: { kind: 'closed' as const, clients: 1, thinkMs: 0 } }], corunModelError: 0.05, benchmark: { durationMs: 1000, warmupMs: 0, seed: 1 } };
        // Concurrent's nlp p99 scatters by 8 % over its 600 simulated requests; sequential's by 30 %.
        c.candidates[0].tenants[1] = { ...c.candidates[0].tenants[1], sampling: { ...c.candidates[0].tenants[1].sampling, p99: 0.08 } };
        c.candidates[1].tenants[1] = { ...c.candidates[1].tenants[1], sampling: { ...c.candidates[1].tenants[1].sampling, p99: 0.3 } };
        const rows = comparisonRows({ ...c, bands });
        const range = (x: number, h: number) => `${msValue(x)} (${formatBandRange(bandRange(x, h))})`;
        // No sampling spread: √(h² + c²); with it, the spread of 10 requests against 600: √(h² + (1 + 600/10)·s² + c²).
        expect(rows[1][1]).toBe(`${range(10, Math.hypot(0.1, 0.05))} · ${range(20, Math.hypot(0.1, 0.05))} ✓`);
        expect(rows[1][2]).toBe(`${range(30.5, Math.hypot(0.2, 0.05))} · ${range(61, Math.hypot(0.2, Math.sqrt(61) * 0.08, 0.05))} ✗`);
        expect(rows[2][2]).toMatch(/^45 \(.+\) · 90 \(≥ [\d.]+\) ✗$/); // a band past 100 %: no upper end
        expect(figureBands(bands, 1, c.candidates[0].tenants[1]).p99).toBeCloseTo(Math.hypot(0.2, Math.sqrt(61) * 0.08, 0.05), 12);
        expect(comparisonMarkdown({ ...c, bands }, 'profile')).toContain("Ranges: each figure's 90 % band");
        expect(comparisonMarkdown(c, 'profile')).not.toContain('Ranges:');
    });

    test('the QoS-satisfied load with its range: where the worst SLO crosses its target at its band\'s high and low ends, between the loads the search tried', () => {
        const closed = { kind: 'closed' as const, clients: 1, thinkMs: 0 };
        const bands = { tenants: [{ h: 0.2, arrival: closed }], corunModelError: 0, benchmark: { durationMs: 1000, warmupMs: 0, seed: 1 } };
        // One tenant, p99 SLO 100 ms, its p99 proportional to the load: 50, 100, 200 ms at 1, 2, 4×. At the band's high end
        // (p99 / 0.8) it reaches 100 ms at 1.6×, at its low end (p99 / 1.2) at 2.4×: margins linear in the load, so log–log exact.
        const at = (load: number) => ({ load, tenants: [tenant('a', 50 * load, 100)] });
        const e = { ...evaluation(concurrent, 20, [tenant('a', 50, 100)]), capacityLoad: 2, capacityProbes: [at(1), at(4), at(2)] };
        const r = capacityRange(e, bands)!;
        expect(r.low).toBeCloseTo(1.6, 9);
        expect(r.high).toBeCloseTo(2.4, 9);
        const c: ScheduleComparison = { ...nlpMix(80), candidates: [e], current: e, best: e, bands };
        expect(comparisonRows(c)[1].at(-2)).toBe('20/s at 2.00× the load (1.6–2.4×)');
        expect(comparisonMarkdown(c, 'profile')).toContain("The load's range: where the worst SLO's figure reaches its target at its band's high end and at its low end, read off the loads the capacity search tried (beyond them, a bound: ≥, ≤).");
        // Bounds where a crossing lies outside the loads tried: none misses at either end ⇒ at least the highest load tried.
        expect(capacityRange({ ...e, capacityProbes: [at(1), at(1.5)] }, bands)).toEqual({ low: 1.5, high: null });
        expect(comparisonRows({ ...c, candidates: [{ ...e, capacityProbes: [at(1), at(1.5)] }] })[1].at(-2)).toBe('20/s at 2.00× the load (≥ 1.5×)');
        // Every load tried misses at both ends ⇒ from nothing up to the least load tried.
        expect(capacityRange({ ...e, capacityProbes: [at(3), at(4)] }, bands)).toEqual({ low: 0, high: 3 });
        expect(comparisonRows({ ...c, candidates: [{ ...e, capacityProbes: [at(3), at(4)] }] })[1].at(-2)).toBe('20/s at 2.00× the load (≤ 3×)');
        // No search, or no SLO: no range.
        expect(capacityRange({ ...e, capacityProbes: [] }, bands)).toBeUndefined();
        expect(capacityRange({ ...e, tenants: [tenant('a', 50)], capacityProbes: [{ load: 1, tenants: [tenant('a', 50)] }] }, bands)).toBeUndefined();
    });

    test('auto: its choice is the current one', () => {
        const rows = comparisonRows(nlpMix(80, { policy: 'auto' }));
        expect(rows.find(r => r[4] === 'current (auto\'s choice)')?.[0]).toBe('layer_block(size: auto)');
    });
});
