/**
 * Shards: a sweep's cells dealt to the tasks of a job array (Slurm) or an Indexed Job
 * (Kubernetes) in contiguous blocks of `cellsPerTask`, in cell order; task k runs cells
 * k·n … k·n + n − 1, one after another. With one cell per task the task index is the cell's.
 * Pure.
 */

/** Number of tasks for `cells` cells, `cellsPerTask` each. */
export function shardCount(cells: number, cellsPerTask: number): number {
    return Math.ceil(cells / cellsPerTask);
}

/** The cells of shard `shard` (ascending). */
export function cellsOfShard(shard: number, cellsPerTask: number, cells: number): number[] {
    const first = shard * cellsPerTask;
    return Array.from({ length: Math.max(0, Math.min(cellsPerTask, cells - first)) }, (_, i) => first + i);
}

/** The shard holding cell `cell`. */
export function shardOfCell(cell: number, cellsPerTask: number): number {
    return Math.floor(cell / cellsPerTask);
}

/** The tasks that run the given cells (each shard once, ascending). */
export function shardsOfCells(cells: readonly number[], cellsPerTask: number): number[] {
    return [...new Set(cells.map(c => shardOfCell(c, cellsPerTask)))].sort((a, b) => a - b);
}

/** A Slurm array index list: ascending, runs of consecutive ids as ranges: `0-3,7,9-10`. */
export function arraySpec(ids: readonly number[]): string {
    const sorted = [...new Set(ids)].sort((a, b) => a - b);
    const parts: string[] = [];
    for (let i = 0; i < sorted.length;) {
        let j = i;
        while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
        parts.push(j === i ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
        i = j + 1;
    }
    return parts.join(',');
}
