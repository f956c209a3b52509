/**
 * What a Slurm setting of a sweep accepts, whether it comes from a flag of `tenancy sweep` or
 * from a file's `sweep { … }` block: each check returns why a value is wrong (to follow the
 * flag's or the key's name), or undefined. One set of rules for the editor's diagnostics and
 * the command, so that the block the editor accepts is the block the command submits. Pure.
 */

const TIME = /^(\d+-)?\d+(:\d+){0,2}$/;
/** #SBATCH options the sweep sets itself, so extra lines must not. */
const OWN = ['--array', '-a', '--output', '-o', '--error', '-e', '--job-name', '-J', '--parsable', '--wrap'];

/** Why a time limit is not in Slurm's format, or undefined. */
export function slurmTimeProblem(time: string): string | undefined {
    return TIME.test(time) ? undefined : `takes Slurm's time format (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS); found '${time}'`;
}

/** A time limit of `seconds` (rounded up to a whole second) in Slurm's `minutes:seconds` format: `30` for 1800, `1:30` for 90. */
export function slurmTimeOfSeconds(seconds: number): string {
    const whole = Math.ceil(seconds);
    const minutes = Math.floor(whole / 60), rest = whole % 60;
    return rest === 0 ? String(minutes) : `${minutes}:${String(rest).padStart(2, '0')}`;
}

/** Why a partition name is not one, or undefined. */
export function partitionProblem(partition: string): string | undefined {
    return /^[\w.,-]+$/.test(partition) ? undefined : `takes a partition name (or a comma-separated list); found '${partition}'`;
}

/** Why a line is not one extra #SBATCH option the sweep may add, or undefined. */
export function sbatchLineProblem(line: string): string | undefined {
    if (/[\r\n]/.test(line) || !line.startsWith('-')) return `takes one sbatch option as written after #SBATCH, e.g. --account=lab; found '${line}'`;
    const name = line.split(/[=\s]/)[0];
    if (OWN.includes(name)) return `${line}: the sweep sets ${name} itself (the array of its cells, the log files, the job's name)`;
    return undefined;
}

/** GPUs per task from a generic resource `gpu:N`, or why the text is not one. */
export function parseGres(gres: string): { gpus: number } | { problem: string } {
    const m = /^gpu:(\d+)$/.exec(gres.trim());
    if (m) return { gpus: Number(m[1]) };
    const typed = /^gpu:[^:]+:\d+$/.test(gres.trim());
    return {
        problem: `takes gpu:N, the GPUs of each task (e.g. "gpu:1"; "gpu:0" asks for a whole node instead); found '${gres}'`
            + (typed ? ' — a GPU type goes in an sbatch line, e.g. "--constraint=a100"' : ''),
    };
}
