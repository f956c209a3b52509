/**
 * Who slows whom, from the kernel timeline of the co-run rounds: for every kernel run of a tenant,
 * which other tenants' kernels ran at the same time and for how long. Per op this says what it
 * overlapped most and how long it took then against its runs that ran mostly alone
 * (`conv2d.3: 2.1× while nlp/attention ran (63 % of its time), 1.1× otherwise`); per pair of
 * tenants, the share of one's co-run GPU time the other overlapped and the slowdown over solo
 * during that time (the interference heatmap). Pure.
 */
import type { Attribution } from './schema.js';
import { quantileSorted, sortedAscending } from './statistics.js';
import { formatPercent, formatRatio } from '../../protocol/units.js';

/** A kernel run in a co-run phase: tenant and op indices, ms on the phase's (wall) clock. */
export interface OpRun {
    tenant: number;
    op: number;
    startMs: number;
    endMs: number;
}

/** A run counts as overlapped when other tenants' kernels covered at least this share of it. */
const OVERLAPPED = 0.5;
/** Co-runner ops named per op. */
const TOP = 3;

/** What attribution gives: per tenant and op, and per tenant the row of the heatmap (by aggressor tenant). */
export interface AttributionResult {
    ops: (Attribution | null)[][];
    interference: { aggressor: string; overlappedFraction: number; slowdown: number | null }[][];
}

interface Execution {
    duration: number;
    /** Share of the run other tenants' kernels covered (union). */
    fraction: number;
    /** The co-runner op that overlapped it longest (tenant and op), and the tenant that did. */
    main: string | undefined;
    mainTenant: number | undefined;
}

interface OpAccumulator {
    total: number;
    overlapped: number;
    byOp: Map<string, number>;
    executions: Execution[];
}

/** A tenant as attribution names it: its name, its ops' paths and their median solo times (null: not measured). */
export interface AttributedTenant {
    name: string;
    ops: readonly string[];
    soloP50Ms: readonly (number | null)[];
}

/** Attribution over the co-run rounds (each round's runs on its own clock; indices into `tenants`). */
export function attribute(rounds: readonly (readonly OpRun[] | undefined)[], tenants: readonly AttributedTenant[]): AttributionResult {
    const opCounts = tenants.map(t => t.ops.length);
    const acc: OpAccumulator[][] = opCounts.map(n => Array.from({ length: n }, () => ({ total: 0, overlapped: 0, byOp: new Map<string, number>(), executions: [] })));
    /** [victim][aggressor]: time overlapped, and (overlapped runs mainly by that aggressor) their time and solo time. */
    const pair = opCounts.map(() => opCounts.map(() => ({ overlap: 0, time: 0, solo: 0 })));
    const gpuTime = opCounts.map(() => 0);
    for (const runs of rounds) {
        if (!runs) continue;
        const sorted = [...runs].filter(r => r.endMs > r.startMs).sort((a, b) => a.startMs - b.startMs);
        const overlaps: { with: OpRun; from: number; to: number }[][] = sorted.map(() => []);
        let active: number[] = [];
        sorted.forEach((run, i) => {
            active = active.filter(j => sorted[j].endMs > run.startMs);
            for (const j of active) {
                const other = sorted[j];
                if (other.tenant === run.tenant) continue;
                const from = run.startMs, to = Math.min(run.endMs, other.endMs);
                overlaps[i].push({ with: other, from, to });
                overlaps[j].push({ with: run, from, to });
            }
            active.push(i);
        });
        sorted.forEach((run, i) => {
            const duration = run.endMs - run.startMs;
            const a = acc[run.tenant]?.[run.op];
            if (!a) return;
            a.total += duration;
            gpuTime[run.tenant] += duration;
            const byOp = new Map<string, number>();
            const byTenant = new Map<number, number>();
            for (const o of overlaps[i]) {
                const key = `${o.with.tenant}:${o.with.op}`;
                byOp.set(key, (byOp.get(key) ?? 0) + (o.to - o.from));
                byTenant.set(o.with.tenant, (byTenant.get(o.with.tenant) ?? 0) + (o.to - o.from));
            }
            const covered = unionLength(overlaps[i].map(o => [o.from, o.to] as const));
            a.overlapped += covered;
            for (const [key, t] of byOp) a.byOp.set(key, (a.byOp.get(key) ?? 0) + t);
            for (const [t, time] of byTenant) pair[run.tenant][t].overlap += time;
            const fraction = duration > 0 ? covered / duration : 0;
            const main = [...byOp].sort((x, y) => y[1] - x[1])[0]?.[0];
            const mainTenant = [...byTenant].sort((x, y) => y[1] - x[1])[0]?.[0];
            a.executions.push({ duration, fraction, main, mainTenant });
            const solo = tenants[run.tenant]?.soloP50Ms[run.op];
            if (fraction >= OVERLAPPED && mainTenant !== undefined && solo) {
                pair[run.tenant][mainTenant].time += duration;
                pair[run.tenant][mainTenant].solo += solo;
            }
        });
    }
    const median = (xs: number[]) => xs.length ? quantileSorted(sortedAscending(xs), 0.5) : null;
    const ops = acc.map(tenantOps => tenantOps.map((a): Attribution | null => {
        if (a.total <= 0) return null;
        const by = [...a.byOp].sort((x, y) => y[1] - x[1]).slice(0, TOP).map(([key, time]) => {
            const [t, o] = key.split(':').map(Number);
            return {
                tenant: tenants[t].name, op: tenants[t].ops[o], fraction: time / a.total,
                p50Ms: median(a.executions.filter(e => e.main === key && e.fraction >= OVERLAPPED).map(e => e.duration)),
            };
        });
        return {
            overlappedFraction: a.overlapped / a.total,
            overlappedP50Ms: median(a.executions.filter(e => e.fraction >= OVERLAPPED).map(e => e.duration)),
            aloneP50Ms: median(a.executions.filter(e => e.fraction < OVERLAPPED).map(e => e.duration)),
            by,
        };
    }));
    const interference = pair.map((row, victim) => row.flatMap((cell, aggressor) => aggressor === victim ? [] : [{
        aggressor: tenants[aggressor].name,
        overlappedFraction: gpuTime[victim] > 0 ? cell.overlap / gpuTime[victim] : 0,
        slowdown: cell.solo > 0 ? cell.time / cell.solo : null,
    }]));
    return { ops, interference };
}

/** Total length of a union of intervals. */
function unionLength(intervals: readonly (readonly [number, number])[]): number {
    const sorted = [...intervals].filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
    let total = 0, start = -Infinity, end = -Infinity;
    for (const [a, b] of sorted) {
        if (a > end) {
            if (end > start) total += end - start;
            start = a;
            end = b;
        } else {
            end = Math.max(end, b);
        }
    }
    if (end > start) total += end - start;
    return total;
}

/**
 * An op's attribution in words: `2.1× while nlp/bert/attention ran (63 % of its time), 1.1×
 * otherwise` (times over its median solo time). Undefined when it never overlapped anything or
 * was not measured solo.
 */
export function describeAttribution(attribution: Attribution | null, soloP50Ms: number | null): string | undefined {
    if (!attribution || !soloP50Ms || attribution.by.length === 0) return undefined;
    const top = attribution.by[0];
    const during = top.p50Ms !== null ? `${formatRatio(top.p50Ms / soloP50Ms)} while ${top.tenant}/${shortOp(top.op)} ran` : `${top.tenant}/${shortOp(top.op)} ran`;
    const otherwise = attribution.aloneP50Ms !== null ? `, ${formatRatio(attribution.aloneP50Ms / soloP50Ms)} otherwise` : '';
    return `${during} (${formatPercent(top.fraction)} of its time)${otherwise}`;
}

/** An op path without its tenant (the tenant is named beside it). */
function shortOp(path: string): string {
    return path.split('/').slice(1).join('/') || path;
}
