/**
 * Op error with each workload's common factor removed: every op's ratio predicted / measured is
 * divided by the median ratio of its workload's ops before its error is taken. On a shared host
 * the speed moves between calibration and a workload, and between workloads (the reference
 * request timed before each workload of one run: 0.99–1.75× its calibrated time, 2026-12-06),
 * which moves all of a workload's ops alike; this takes that apart from the model's error at one
 * shape against another. It is a lower bound on the model's error: a bias of the model common to
 * most of a workload's ops (a class that dominates it) is removed with the host's factor.
 */
interface Sample { workload: string; predicted: number; measured: number }

/** MAPE (%) per op class and over all ops ('all ops'), each op's ratio over its workload's median ratio; and each workload's factor. */
export function scaleFreeMape(ops: Readonly<Record<string, readonly Sample[]>>): { mape: Map<string, number>; factors: Map<string, number> } {
    const all = Object.entries(ops).flatMap(([kind, xs]) => xs.map(x => ({ kind, x })));
    const factors = new Map<string, number>();
    for (const w of new Set(all.map(s => s.x.workload))) {
        const logs = all.filter(s => s.x.workload === w).map(s => Math.log(s.x.predicted / s.x.measured)).sort((a, b) => a - b);
        const n = logs.length;
        factors.set(w, Math.exp(n % 2 ? logs[(n - 1) / 2] : (logs[n / 2 - 1] + logs[n / 2]) / 2));
    }
    const errors = new Map<string, number[]>();
    for (const { kind, x } of all) {
        const e = Math.abs(x.predicted / x.measured / factors.get(x.workload)! - 1);
        for (const k of [`op ${kind}`, 'all ops']) (errors.get(k) ?? errors.set(k, []).get(k)!).push(e);
    }
    return { mape: new Map([...errors].map(([k, es]) => [k, (100 * es.reduce((s, e) => s + e, 0)) / es.length])), factors };
}
