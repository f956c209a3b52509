/**
 * The closed word lists of workloads (docs/language.md#workloads): arrival kinds, schedule policies,
 * percentiles, priorities, device kinds, benchmark settings and the settings of a file's sweep
 * block. The grammar parses them as names,
 * so the editor features (completion, hover, semantic highlighting) take them from this table.
 */

import { quantityUnits, type QuantityKind } from '../analysis/quantities.js';

/** The kind of value a workload argument or setting takes. */
export type WordValueKind = 'rate' | 'time' | 'memory' | 'int' | 'int-or-auto' | 'auto-or-none';

export interface WordArg {
    name: string;
    kind: WordValueKind;
    /** Source text of the default; absent ⇒ required. */
    default?: string;
    /** Example value used in completion snippets. */
    example: string;
    doc: string;
}

export interface Word {
    word: string;
    doc: string;
    /** Arguments in parentheses; undefined ⇒ the word takes none. */
    args?: WordArg[];
    /** Benchmark settings: the kind of the value that follows the word. */
    value?: WordValueKind;
}

/** Where a closed word may stand. */
export type WordContext = 'arrival' | 'schedule' | 'percentile' | 'priority' | 'device' | 'benchmark' | 'sweep';

export const workloadWords: Readonly<Record<WordContext, readonly Word[]>> = {
    arrival: [
        { word: 'poisson', doc: 'Open-loop Poisson arrivals at a mean rate.',
            args: [{ name: 'rate', kind: 'rate', example: '20/s', doc: 'mean arrival rate' }] },
        { word: 'closed', doc: 'Closed loop: each client sends its next request when the previous one returns (default `closed(clients: 1)`).',
            args: [{ name: 'clients', kind: 'int', example: '1', doc: 'concurrent clients' },
                { name: 'think', kind: 'time', default: '0', example: '0ms', doc: 'pause between a response and the next request' }] },
        { word: 'periodic', doc: 'One request at a fixed interval.',
            args: [{ name: 'every', kind: 'time', example: '50ms', doc: 'interval between requests' }] },
    ],
    schedule: [
        { word: 'sequential', doc: 'One request on the GPU at a time (time slicing).' },
        { word: 'concurrent', doc: 'Every tenant submits freely on its own queue (the default).' },
        { word: 'layer_block', doc: 'Blocks of consecutive layers scheduled as units, VELTAIR-style.',
            args: [{ name: 'size', kind: 'int-or-auto', default: 'auto', example: '4', doc: 'layers per block, or `auto`' }] },
        { word: 'regulated', doc: 'Concurrency regulation: split large operators and choose sync points, GACER-style.',
            args: [{ name: 'split', kind: 'int-or-auto', default: 'auto', example: 'auto', doc: 'chunks per large operator, or `auto`' },
                { name: 'sync', kind: 'auto-or-none', default: 'auto', example: 'auto', doc: 'where tenants synchronise: `auto` or `none`' }] },
        { word: 'co_tuned', doc: 'ConCo-style: the hot ops compiled at several device shares (occupancy-capped kernels); a search on the device profile picks each tenant\'s share before the run.',
            args: [{ name: 'variants', kind: 'int', example: '3', doc: 'kernel versions per hot op: its own variant and capped ones at smaller shares' }] },
        { word: 'auto', doc: 'The scheduler picks the best policy by prediction.' },
    ],
    percentile: [
        { word: 'mean', doc: 'Mean latency.' },
        { word: 'p50', doc: 'Median latency.' },
        { word: 'p90', doc: '90th-percentile latency.' },
        { word: 'p95', doc: '95th-percentile latency.' },
        { word: 'p99', doc: '99th-percentile latency.' },
        { word: 'p999', doc: '99.9th-percentile latency.' },
    ],
    priority: [
        { word: 'high', doc: 'Served first when tenants compete.' },
        { word: 'normal', doc: 'The default priority.' },
        { word: 'low', doc: 'Served last when tenants compete.' },
    ],
    device: [
        { word: 'auto', doc: 'The default adapter.', args: deviceArgs() },
        { word: 'high_performance', doc: 'The high-performance adapter (a discrete GPU where there is one).', args: deviceArgs() },
        { word: 'low_power', doc: 'The low-power adapter (an integrated GPU where there is one).', args: deviceArgs() },
        { word: 'fallback', doc: 'The fallback (software) adapter.', args: deviceArgs() },
    ],
    benchmark: [
        { word: 'duration', doc: 'Measured time of each phase, over all rounds (default 5s).', value: 'time' },
        { word: 'warmup', doc: 'Each phase\'s time in the warm-up round, whose requests are discarded (default 1s).', value: 'time' },
        { word: 'rounds', doc: 'Rounds of every tenant alone then all co-running, interleaved so host drift hits both alike (default 8).', value: 'int' },
        { word: 'budget', doc: 'The most the whole measurement may take, rounds added for SLOs included (default 30s, or twice the planned time).', value: 'time' },
        { word: 'min_requests', doc: 'Requests each tenant needs per phase; rounds are added (within the budget) until it has them.', value: 'int' },
        { word: 'requests', doc: 'Measure this many requests per tenant and phase instead of a duration.', value: 'int' },
        { word: 'seed', doc: 'Seed of arrivals and implicit weights (default 0).', value: 'int' },
        { word: 'repetitions', doc: 'The earlier name of rounds.', value: 'int' },
    ],
    sweep: [
        { word: 'schedules', doc: 'The schedules `tenancy sweep` measures beside each workload\'s own, comma-separated as in a schedule line (default: the candidates `auto` chooses among). `--schedules` overrides it.' },
        { word: 'loads', doc: 'Factors on every tenant\'s declared traffic, comma-separated, e.g. `0.5, 1, 1.5` (default 1). `--loads` overrides it.' },
        { word: 'repeat', doc: 'Runs of every workload, schedule and load, each with its own seed (default 1). `--repeat` overrides it.' },
        { word: 'partition', doc: 'Slurm: the partition of the job array (`#SBATCH --partition`). `--partition` overrides it.' },
        { word: 'time', doc: 'Slurm: each task\'s time limit, a string in Slurm\'s format (`"1:00:00"`), whole minutes (`30`) or a time (`1800s`). `--time` overrides it.' },
        { word: 'gres', doc: 'Slurm: the GPUs of each task, `"gpu:N"` (`#SBATCH --gres=gpu:N`; default `"gpu:1"`; `"gpu:0"` asks for a whole node instead). `--gpus` overrides it.' },
        { word: 'sbatch', doc: 'Slurm: more `#SBATCH` options, as strings written as after `#SBATCH`, comma-separated (`"--account=lab", "--qos=high"`). `--sbatch` overrides them.' },
    ],
};

/** The example value completed after a sweep setting. */
export const sweepExamples: Readonly<Record<string, string>> = {
    schedules: 'layer_block(size: auto), regulated', loads: '0.5, 1, 1.5', repeat: '3', partition: '"gpu"', time: '"30:00"', gres: '"gpu:1"', sbatch: '"--account=lab"',
};

/**
 * What completion offers in the lists of a sweep block (`loads 0.5, |`, `sbatch "--qos=high", |`)
 * besides what the line already has; a `schedules` list offers the schedule words. Loads are
 * any positive factors and sbatch lines any option (docs/sweeps.md), so these are common ones.
 */
export const sweepListValues: Readonly<Record<'loads' | 'sbatch', readonly { value: string; snippet: string; doc: string }[]>> = {
    loads: [
        { value: '0.5', snippet: '0.5', doc: 'Half of every tenant\'s declared traffic.' },
        { value: '1', snippet: '1', doc: 'The traffic as written.' },
        { value: '1.5', snippet: '1.5', doc: 'One and a half times the declared traffic.' },
        { value: '2', snippet: '2', doc: 'Twice the declared traffic.' },
    ],
    sbatch: [
        { value: '"--account=…"', snippet: '"--account=${1:lab}"', doc: 'The account the job is charged to.' },
        { value: '"--qos=…"', snippet: '"--qos=${1:normal}"', doc: 'The quality of service of the job.' },
        { value: '"--constraint=…"', snippet: '"--constraint=${1:a100}"', doc: 'Node features the tasks need, e.g. a GPU type.' },
        { value: '"--mem=…"', snippet: '"--mem=${1:32G}"', doc: 'Memory per node.' },
        { value: '"--cpus-per-task=…"', snippet: '"--cpus-per-task=${1:8}"', doc: 'CPU cores per task.' },
    ],
};

/** The example value completed after a benchmark setting. */
export const benchmarkExamples: Readonly<Record<string, string>> = {
    duration: '5s', warmup: '1s', rounds: '8', budget: '30s', min_requests: '300', requests: '100', seed: '0', repetitions: '8',
};

function deviceArgs(): WordArg[] {
    return [{ name: 'memory', kind: 'memory', default: 'the device memory', example: '2GiB', doc: 'the memory the workload may use' }];
}

/** The entry for `word` in `context`, or undefined. */
export function findWord(context: WordContext, word: string): Word | undefined {
    return workloadWords[context].find(w => w.word === word);
}

/**
 * `poisson(rate: 20/s)` as a snippet: `poisson(rate: ${1:20/s})` — the required arguments, or all
 * of them with `all` (a schedule policy's arguments are what one picks it for).
 */
export function wordSnippet(w: Word, all = false): string {
    const shown = (w.args ?? []).filter(a => all || a.default === undefined);
    if (shown.length === 0) return w.word;
    return `${w.word}(${shown.map((a, i) => `${a.name}: \${${i + 1}:${a.example}}`).join(', ')})`;
}

/** `closed(clients, think: 0)` — the word's signature. */
export function wordSignature(w: Word): string {
    if (!w.args) return w.word;
    return `${w.word}(${w.args.map(a => (a.default === undefined ? a.name : `${a.name}: ${a.default}`)).join(', ')})`;
}

/** Units that make sense for a value kind, in completion order. */
export const unitsByKind: Readonly<Record<QuantityKind, readonly string[]>> = {
    time: unitsOf('time'),
    rate: unitsOf('rate'),
    memory: unitsOf('memory'),
};

function unitsOf(kind: QuantityKind): string[] {
    return quantityUnits.filter(u => u.kind === kind).map(u => u.unit);
}
