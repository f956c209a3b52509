/**
 * From what a phase recorded to what the results report: each tenant's request latencies, every
 * op's GPU time per request (timestamps read back off the critical path), the kernel timeline of
 * the co-run phase aligned to wall time, and the plan's ops as reported. Phases of several
 * rounds merge by concatenating their samples.
 */
import type { Results } from '../report/schema.js';
import type { OpSummary, TenantPhaseData } from '../report/build.js';
import type { TenantPlan } from '../plan/tenant-plan.js';
import type { TenantRunner } from '../gpu/tenant-runner.js';
import { withTimeout } from '../gpu/wait.js';
import type { PhaseRecord } from './phase.js';

/** Requests of the co-run phase whose kernels the timeline shows, and the most intervals it keeps. */
const TIMELINE_REQUESTS = 50;
const TIMELINE_MAX_INTERVALS = 4000;

/** One phase's data over repetitions: samples (latencies, op times) concatenated, windows and unfinished summed. */
export function mergePhaseData(a: TenantPhaseData | undefined, b: TenantPhaseData | undefined): TenantPhaseData | undefined {
    if (!a || !b) return b ?? a;
    return {
        latenciesMs: [...a.latenciesMs, ...b.latenciesMs],
        windowMs: a.windowMs + b.windowMs,
        unfinished: a.unfinished + b.unfinished,
        opTimesMs: a.opTimesMs.map((x, k) => [...x, ...(b.opTimesMs[k] ?? [])]),
    };
}

/** The plan's ops as the results report them. */
export function opSummaries(plan: TenantPlan): OpSummary[] {
    return plan.ops.map(op => ({
        path: op.path,
        kind: op.kind,
        fused: op.fused.fused.map(f => f.path),
        kernels: op.kernels.launches.map(l => ({ name: l.name, variant: l.variant })),
        ...(op.variant !== undefined ? { variant: op.variant } : {}),
        variantSource: op.variantSource,
        flops: op.flops,
        bytes: op.bytes,
        ...(op.source ? { source: op.source } : {}),
    }));
}

/** Latencies, per-op times and (co-run) the aligned kernel timeline of a phase. */
export async function summarizePhase(record: PhaseRecord, runners: TenantRunner[], withTimeline: boolean): Promise<{ tenants: TenantPhaseData[]; timeline: Results['timeline'] }> {
    const measuredStart = record.startedAt + record.limit.warmupMs;
    const intervals: NonNullable<Results['timeline']>['intervals'] = [];
    let truncated = false;
    const tenants: TenantPhaseData[] = [];
    for (let ti = 0; ti < runners.length; ti++) {
        const runner = runners[ti];
        const done = record.completed[ti];
        const measured = done.filter(r => r.measured);
        const steps = await withTimeout(Promise.all(done.map(r => Promise.all(r.steps))), 10_000, 'reading GPU timestamps').catch(() => done.map(() => []));
        const opCount = runner.opCount;
        const times: number[][] = Array.from({ length: opCount }, () => []);
        // Device clock → wall clock: the earliest (completion − last kernel end) over all requests.
        let offset = Infinity;
        done.forEach((r, ri) => {
            let lastEnd = -Infinity;
            for (const s of steps[ri]) if (s) for (const e of s.endMs) if (Number.isFinite(e)) lastEnd = Math.max(lastEnd, e);
            if (Number.isFinite(lastEnd)) offset = Math.min(offset, r.doneAt - lastEnd);
            if (!r.measured) return;
            for (const s of steps[ri]) {
                if (!s) continue;
                for (let k = 0; k < s.startMs.length; k++) {
                    const d = s.endMs[k] - s.startMs[k];
                    if (Number.isFinite(d) && d >= 0) times[s.from + k].push(d);
                }
            }
        });
        if (withTimeline && Number.isFinite(offset)) {
            let taken = 0;
            done.forEach((r, ri) => {
                if (!r.measured || taken >= TIMELINE_REQUESTS) return;
                taken++;
                for (const s of steps[ri]) {
                    if (!s) continue;
                    for (let k = 0; k < s.startMs.length; k++) {
                        if (!Number.isFinite(s.startMs[k])) continue;
                        if (intervals.length >= TIMELINE_MAX_INTERVALS) { truncated = true; return; }
                        intervals.push({
                            tenant: runner.compiled.name, request: r.id, op: runner.compiled.ops[s.from + k].planned.path,
                            startMs: s.startMs[k] + offset - measuredStart, endMs: s.endMs[k] + offset - measuredStart,
                        });
                    }
                }
            });
            if (measured.length > TIMELINE_REQUESTS) truncated = true;
        }
        const lastDone = measured.reduce((m, r) => Math.max(m, r.doneMs), record.limit.warmupMs);
        tenants.push({
            latenciesMs: measured.map(r => r.doneMs - r.arrivalMs),
            windowMs: lastDone - record.limit.warmupMs,
            unfinished: record.unfinished[ti],
            opTimesMs: times,
        });
    }
    intervals.sort((a, b) => a.startMs - b.startMs);
    return { tenants, timeline: withTimeline ? { phase: 'corun', intervals, truncated } : null };
}
