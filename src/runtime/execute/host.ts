/**
 * How busy the host was around a run: the 1-minute load average and the CPU time the hypervisor
 * stole (Linux: /proc/loadavg, /proc/stat). On a shared machine, and on any laptop, other work
 * changes what a run measures; the results say so.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/** A reading of the host at one moment. */
export interface HostSnapshot {
    /** 1-minute load average (null where the OS has none). */
    load: number | null;
    /** Cumulative CPU jiffies, all and stolen (null off Linux). */
    cpu: { total: number; steal: number } | null;
}

/** Reads the host now. */
export function hostSnapshot(): HostSnapshot {
    const load = process.platform === 'win32' ? null : loadavg()[0];
    return { load, cpu: readCpu() };
}

function readCpu(): HostSnapshot['cpu'] {
    try {
        const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
        // cpu  user nice system idle iowait irq softirq steal guest guest_nice
        const fields = line.trim().split(/\s+/).slice(1).map(Number);
        if (fields.length < 8 || fields.some(f => !Number.isFinite(f))) return null;
        return { total: fields.slice(0, 8).reduce((a, b) => a + b, 0), steal: fields[7] };
    } catch {
        return null;
    }
}

/** The share of CPU time stolen between two snapshots (null when unknown). */
export function stealBetween(before: HostSnapshot, after: HostSnapshot): number | null {
    if (!before.cpu || !after.cpu) return null;
    const total = after.cpu.total - before.cpu.total;
    return total > 0 ? Math.max(0, after.cpu.steal - before.cpu.steal) / total : null;
}

/** Cores the load average compares with. */
export function hostCores(): number {
    return availableParallelism();
}
