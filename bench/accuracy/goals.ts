/**
 * Issue 20's accuracy goals, each set against a noise floor measured in the same run (%): an op
 * class of 3 ops or more, and all ops, MAPE ≤ max(10 %, 1.5 × floor); tenant mean latency ≤
 * max(10 %, 1.25 × floor); co-run p99 ≤ max(15 %, 1.25 × floor). run.ts judges them against both
 * of its floors (back to back, across the run); rescore.ts against the stored run's.
 */
export type GoalFigure = 'op' | 'tenantMean' | 'corunP99';

const GOALS: Record<GoalFigure, { least: number; times: number; minN: number }> = {
    op: { least: 10, times: 1.5, minN: 3 },
    tenantMean: { least: 10, times: 1.25, minN: 1 },
    corunP99: { least: 15, times: 1.25, minN: 1 },
};

/** The goal (MAPE, %) of a figure of n values on a floor; undefined without a floor or with too few values. */
export function goalPercent(figure: GoalFigure, n: number, floor: number | undefined): number | undefined {
    const g = GOALS[figure];
    return floor === undefined || !Number.isFinite(floor) || n < g.minN ? undefined : Math.max(g.least, g.times * floor);
}

/** The goal in words, e.g. "≤ max(10 %, 1.5 × floor), n ≥ 3". */
export function goalText(figure: GoalFigure): string {
    const g = GOALS[figure];
    return `≤ max(${g.least} %, ${g.times} × floor)${g.minN > 1 ? `, n ≥ ${g.minN}` : ''}`;
}
