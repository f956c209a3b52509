/**
 * From what a phase recorded to what the results report: each tenant's request latencies, every
 * op's GPU time per request (timestamps read back off the critical path), the kernel timeline of
 * the co-run phase aligned to wall time, and the plan's ops as reported. Phases of several
 * rounds merge by concatenating their samples.
 */
import type { Results } from '../report/schema.js';
import type { OpSummary, TenantPhaseData } from '../report/build.js';
import type { TenantPlan } from '../plan/tenant-plan.js';
import type { OpSplit } from '../plan/split.js';
import type { TenantRunner } from '../gpu/tenant-runner.js';
import { withTimeout } from '../gpu/wait.js';
import type { PhaseRecord } from './phase.js';
import type { OpRun } from '../report/attribution.js';

export type { OpRun };

/** Requests of the co-run phase whose kernels the timeline shows, and the most intervals it keeps. */
const TIMELINE_REQUESTS = 50;
const TIMELINE_MAX_INTERVALS = 4000;
/** Version decisions kept per tenant and phase (multi-version kernels). */
const MAX_DECISIONS = 100;

/** The variants of each version of a plan's ops that have versions (multi-version kernels). */
export function versionVariants(plan: TenantPlan): { path: string; variants: string[] }[] {
    return plan.ops.flatMap((op, i) => {
        const versions = plan.versions[i];
        return versions ? [{ path: op.path, variants: [op.variant ?? 'default', ...versions.map(v => v.variant ?? '?')] }] : [];
    });
}

/** The plan's ops as the results report them; `splits`: the ops the schedule ran in chunks, by path. */
export function opSummaries(plan: TenantPlan, splits: Readonly<Record<string, OpSplit>> = {}): OpSummary[] {
    return plan.ops.map(op => ({
        path: op.path,
        kind: op.kind,
        fused: op.fused.fused.map(f => f.path),
        kernels: op.kernels.launches.map(l => ({ name: l.name, variant: l.variant })),
        ...(op.variant !== undefined ? { variant: op.variant } : {}),
        variantSource: op.variantSource,
        flops: op.flops,
        bytes: op.bytes,
        ...(splits[op.path] ? { split: { axis: splits[op.path].axis, chunks: splits[op.path].chunks } } : {}),
        ...(op.source ? { source: op.source } : {}),
    }));
}

/** What one phase measured: per tenant its round data, the kernel runs of its measured requests (co-run), and the timeline excerpt. */
export interface PhaseSummary {
    tenants: TenantPhaseData[];
    runs: OpRun[];
    timeline: Results['timeline'];
}

/**
 * Latencies, per-op times, where each request's time went, and (co-run) the kernel runs aligned
 * to wall time. Each device's clock is mapped to wall time by the earliest (completion − last
 * kernel end) over its requests.
 */
export async function summarizePhase(record: PhaseRecord, runners: TenantRunner[], corun: boolean): Promise<PhaseSummary> {
    const measuredStart = record.startedAt + record.limit.warmupMs;
    const intervals: NonNullable<Results['timeline']>['intervals'] = [];
    const runs: OpRun[] = [];
    let truncated = false;
    const tenants: TenantPhaseData[] = [];
    for (let ti = 0; ti < runners.length; ti++) {
        const runner = runners[ti];
        const done = record.completed[ti];
        const steps = await withTimeout(Promise.all(done.map(r => Promise.all(r.steps))), 10_000, 'reading GPU timestamps').catch(() => done.map(() => []));
        const times: number[][] = Array.from({ length: runner.opCount }, () => []);
        let offset = Infinity;
        done.forEach((r, ri) => {
            let lastEnd = -Infinity;
            for (const st of steps[ri]) if (st) for (const e of st.endMs) if (Number.isFinite(e)) lastEnd = Math.max(lastEnd, e);
            if (Number.isFinite(lastEnd)) offset = Math.min(offset, r.doneAt - lastEnd);
        });
        const latenciesMs: number[] = [];
        const breakdown: TenantPhaseData['breakdown'] = [];
        const versionBlocks: number[] = [];
        const decisions: NonNullable<TenantPhaseData['versions']>['decisions'] = [];
        let timelineRequests = 0;
        done.forEach((r, ri) => {
            if (!r.measured) return;
            let gpuMs = 0;
            const inTimeline = corun && timelineRequests < TIMELINE_REQUESTS && Number.isFinite(offset);
            if (inTimeline) timelineRequests++;
            // An op's time in this request: the sum over its entries (a split op runs as several chunks).
            const opMs = new Map<number, number>();
            for (const st of steps[ri]) {
                if (!st) continue;
                for (let k = 0; k < st.startMs.length; k++) {
                    const d = st.endMs[k] - st.startMs[k];
                    if (!Number.isFinite(d) || d < 0) continue;
                    const op = st.ops ? st.ops[k] : st.from + k;
                    opMs.set(op, (opMs.get(op) ?? 0) + d);
                    gpuMs += d;
                    if (!corun || !Number.isFinite(offset)) continue;
                    const startMs = st.startMs[k] + offset - measuredStart, endMs = st.endMs[k] + offset - measuredStart;
                    runs.push({ tenant: ti, op, startMs, endMs });
                    if (!inTimeline) continue;
                    if (intervals.length >= TIMELINE_MAX_INTERVALS) { truncated = true; continue; }
                    intervals.push({ tenant: runner.compiled.name, request: r.id, op: runner.compiled.ops[op].planned.path, startMs, endMs });
                }
            }
            for (const [op, ms] of opMs) times[op].push(ms);
            const latencyMs = r.doneMs - r.arrivalMs;
            latenciesMs.push(latencyMs);
            for (const v of r.versions) {
                versionBlocks[v.version] = (versionBlocks[v.version] ?? 0) + 1;
                if (decisions.length < MAX_DECISIONS) decisions.push({ op: runner.compiled.ops[v.fromOp].planned.path, version: v.version, level: v.level ?? null });
            }
            // Latency = time waiting with nothing of it submitted + time its steps were submitted; the GPU time is part of the latter.
            const submitted = Math.min(latencyMs, r.submittedMs);
            breakdown.push({ queueingMs: latencyMs - submitted, gpuMs: Math.min(gpuMs, submitted), hostMs: Math.max(0, submitted - gpuMs) });
        });
        if (corun && latenciesMs.length > TIMELINE_REQUESTS) truncated = true;
        const lastDone = done.reduce((m, r) => r.measured ? Math.max(m, r.doneMs) : m, record.limit.warmupMs);
        tenants.push({
            latenciesMs, windowMs: lastDone - record.limit.warmupMs, unfinished: record.unfinished[ti], opTimesMs: times, breakdown,
            ...(runner.versions > 1 ? { versions: { blocks: Array.from({ length: runner.versions }, (_, v) => versionBlocks[v] ?? 0), decisions } } : {}),
        });
    }
    intervals.sort((a, b) => a.startMs - b.startMs);
    return { tenants, runs, timeline: corun ? { phase: 'corun', intervals, truncated } : null };
}
