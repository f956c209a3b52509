/**
 * `tenancy calibrate [--json] [--quick]`: measures the local adapter's device profile and
 * writes it to the user cache and the workspace (`.tenancy/device-profile.json`), atomically.
 */
import type { Command } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { calibrate } from '../../runtime/calibrate/calibrate.js';
import { NoAdapterError } from '../../runtime/gpu/adapter.js';
import { adapterOptionHelp, parseAdapterOption } from '../adapter-option.js';
import { stderrIsTerminal } from '../filtered-stderr.js';
import { cachedProfile, writeProfile } from '../../runtime/predict/profile-store.js';
import { atUsualSpeed, isSoftwareAdapter, withHostSpeedHistory, type DeviceProfile } from '../../runtime/predict/profile.js';
import { hostDrift, hostMoment, MIN_DRIFT_POINTS, UNUSUAL_HOST_MOMENT } from '../../runtime/predict/band.js';
import { workspaceFolderOf } from '../../runtime/report/write.js';
import { exitCodes } from '../../protocol/exit-codes.js';
import { formatPercent, formatSignedPercent } from '../../protocol/units.js';
import { calibrateProgressLine } from '../../protocol/progress.js';

/** Tenancy's version from the nearest package.json named "tenancy" above this module (source or bundle). */
export function tenancyVersion(): string {
    for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
        const file = join(dir, 'package.json');
        if (existsSync(file)) {
            try {
                const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
                if (pkg.name === 'tenancy' && pkg.version) return pkg.version;
            } catch { /* not ours: keep looking */ }
        }
        if (dirname(dir) === dir) return 'unknown';
    }
}

/** The summary's co-run line: the kernels' turn, what the co-run bands add for the model's error, how far ops' co-run times move. */
export function corunSummary(profile: Pick<DeviceProfile, 'corunQuantumMs' | 'corunModelError' | 'corunOpNoise'>): string {
    const turn = profile.corunQuantumMs !== undefined ? `kernels take turns of ${profile.corunQuantumMs} ms` : 'kernels take whole turns';
    const error = profile.corunModelError ? `; co-run bands +${formatPercent(profile.corunModelError.excessP90)} for the model's error (${profile.corunModelError.points} figures)` : '';
    const opNoise = profile.corunOpNoise ? `; ops' co-run times move ±${formatPercent(profile.corunOpNoise.p90)} between rounds (${profile.corunOpNoise.points} op medians; their bands add it)` : '';
    return `${turn}${error}${opNoise}`;
}

/**
 * The summary's tails line: this calibration's tails at p99 (alone, beside a co-runner), and what
 * predictions take instead once the history allows (profile.ts usualTail), else how many earlier
 * calibrations kept theirs. `predicted`: the profile as predictions read it (atUsualSpeed).
 */
export function tailsSummary(profile: Pick<DeviceProfile, 'serviceTailMs' | 'corunTailMs' | 'hostSpeedHistory'>, predicted: Pick<DeviceProfile, 'corunTailMs' | 'usualTails'>): string {
    const tail = (t: DeviceProfile['corunTailMs']) => (t ? `${t.p99.toFixed(2)} ms` : 'none');
    const kept = profile.hostSpeedHistory?.filter(h => h.corunTailMs).length ?? 0;
    // How far the calibrations behind the median disagree: their co-run p99s as each measured them.
    const p99s = [profile.corunTailMs, ...(profile.hostSpeedHistory ?? []).map(h => h.corunTailMs)].flatMap(t => (t ? [t.p99] : []));
    const spread = p99s.length > 1 ? ` (theirs ${Math.min(...p99s).toFixed(2)}–${Math.max(...p99s).toFixed(2)} ms as each measured)` : '';
    return `at p99, ${tail(profile.serviceTailMs)} alone, ${tail(profile.corunTailMs)} beside a co-runner${predicted.usualTails
        ? `; predictions take the median of ${predicted.usualTails.calibrations} calibrations here${spread}: ${tail(predicted.corunTailMs)} beside a co-runner at the usual speed`
        : ` (${kept} earlier calibration${kept === 1 ? '' : 's'} here kept theirs; from ${MIN_DRIFT_POINTS}, predictions take the median)`}`;
}

/**
 * What to say when this calibration ran at an unusual speed of the host (band.ts hostMoment: the
 * reference request's time against the median of this adapter's earlier calibrations here, past
 * UNUSUAL_HOST_MOMENT either way); undefined otherwise or without enough history. Predictions
 * scale its times to the usual speed (profile.ts atUsualSpeed), which takes out the common
 * factor but not what a busy host does to some kernels more than others: two calibrations a
 * minute apart differed by 5.8–9.7 % per op beyond their common factor (BENCHMARKS.md).
 */
export function unusualHostWarning(profile: Pick<DeviceProfile, 'hostSpeedProbeMs' | 'hostSpeedHistory'>): string | undefined {
    const moment = hostMoment(profile);
    if (!moment || (moment.ratio < UNUSUAL_HOST_MOMENT && moment.ratio > 1 / UNUSUAL_HOST_MOMENT)) return undefined;
    const slower = moment.ratio > 1;
    const by = `${slower ? `${moment.ratio.toFixed(2)}× slower` : `${(1 / moment.ratio).toFixed(2)}× faster`} than the median of ${moment.points} earlier calibrations of this adapter here`;
    const what = moment.medianMs !== undefined
        ? `the reference request took ${profile.hostSpeedProbeMs!.toFixed(2)} ms, ${by} (${moment.medianMs.toFixed(2)} ms)`
        : `its curves ran ${by}`;
    return `${what}: the host ran ${slower ? 'slower' : 'faster'} than usual. ` +
        `Predictions scale this calibration's times to the host's usual speed, but a ${slower ? 'busy' : 'faster'} host moves some kernels more than others. ` +
        `Re-run tenancy calibrate ${slower ? 'when the machine is quieter' : 'to check'}.`;
}

export function register(program: Command): void {
    program.command('calibrate')
        .description('Measure the local GPU adapter (kernel throughput curves, memory bandwidth, overheads, interference) and store the device profile used by predictions')
        .option('--json', 'print the profile as JSON on stdout (progress stays on stderr)')
        .option('--quick', 'fewer sizes and repeats (about half the time, noisier)')
        .option('--adapter <preference>', adapterOptionHelp('auto'), 'auto')
        .option('--workspace <dir>', 'workspace folder to write .tenancy/device-profile.json into (default: the one containing the current directory)')
        .option('--no-workspace-copy', 'write only to the user cache')
        .action(async (opts: { json?: boolean; quick?: boolean; adapter: string; workspace?: string; workspaceCopy: boolean }) => {
            const adapter = parseAdapterOption(opts.adapter);
            if ('error' in adapter) {
                console.error(`tenancy calibrate: ${adapter.error}`);
                process.exitCode = exitCodes.usage;
                return;
            }
            if (adapter.note) console.error(`tenancy calibrate: ${adapter.note}`);
            const controller = new AbortController();
            const onSignal = () => controller.abort(new Error('calibration cancelled'));
            process.once('SIGINT', onSignal);
            process.once('SIGTERM', onSignal);
            const tty = stderrIsTerminal();
            try {
                const measured = await calibrate({
                    quick: opts.quick,
                    preference: adapter.preference,
                    tenancyVersion: tenancyVersion(),
                    signal: controller.signal,
                    onProgress: (fraction, message) => {
                        const line = calibrateProgressLine(fraction, message);
                        process.stderr.write(tty ? `\r\x1b[K${line}` : `${line}\n`);
                    },
                });
                if (tty) process.stderr.write('\n');
                // The host's speed in this adapter's earlier calibrations here: how far it drifts (the bands' hostDrift).
                const profile = withHostSpeedHistory(measured, cachedProfile(measured.key));
                const load = profile.hostLoad;
                const software = isSoftwareAdapter(profile.adapter);
                if (software && load && Math.max(load.before, load.after) > load.cores) {
                    console.error(`tenancy calibrate: warning: the host was busy (load average ${load.before.toFixed(1)} → ${load.after.toFixed(1)} on ${load.cores} cores); ` +
                        'other processes share the cores a software adapter computes on, so these figures are inflated. Re-run when the machine is quieter.');
                }
                const unusual = unusualHostWarning(profile);
                if (unusual) console.error(`tenancy calibrate: warning: ${unusual}`);
                const workspace = opts.workspaceCopy ? resolve(opts.workspace ?? workspaceFolderOf(join(process.cwd(), 'calibrate'))) : undefined;
                const written = await writeProfile(profile, workspace);
                if (opts.json) {
                    process.stdout.write(JSON.stringify(profile, null, 2) + '\n');
                } else {
                    // The fastest GEMM family at its largest measured size.
                    const tops = Object.entries(profile.families).filter(([name, f]) => name.startsWith('gemm.') && f.basis === 'flops')
                        .map(([, f]) => f.points[f.points.length - 1]).sort((x, y) => y.flops / y.ms - x.flops / x.ms);
                    const top = tops[0];
                    console.log(`Device profile for ${profile.adapter.vendor} ${profile.adapter.device} (${profile.adapter.description || profile.adapter.architecture})`);
                    if (top) console.log(`  GEMM peak            ${(top.flops / top.ms / 1e6).toFixed(2)} GFLOP/s at ${top.shape}`);
                    console.log(`  memory bandwidth     ${(profile.bandwidthBytesPerMs / 1e6).toFixed(2)} GB/s`);
                    console.log(`  dispatch / submit    ${(profile.dispatchOverheadMs * 1000).toFixed(1)} µs / ${(profile.submitOverheadMs * 1000).toFixed(0)} µs`);
                    const refined = profile.refinement;
                    if (refined && refined.anchors.length > 0) {
                        // Per family, how many of its points were refined and the worst of their leave-one-out errors (the profile lists them all).
                        const byFamily = new Map<string, number[]>();
                        for (const a of refined.anchors) (byFamily.get(a.family) ?? byFamily.set(a.family, []).get(a.family)!).push(a.error);
                        const families = [...byFamily].map(([f, es]) => `${f} ${formatSignedPercent(es.reduce((w, e) => (Math.abs(e) > Math.abs(w) ? e : w), 0))}`).join(', ');
                        console.log(`  refined              ${refined.anchors.length} points missed when left out (${families}): measured again, ${refined.added.length} new cases beside them`);
                    }
                    console.log(`  interference         ${profile.interference.pairs.map(p => `${p.victim}×${p.aggressor} ${p.slowdown.toFixed(2)}×`).join(', ')}`);
                    console.log(`  co-run               ${corunSummary(profile)}`);
                    // As predictions read it: at the host's usual speed, the drift measured from there.
                    const predicted = atUsualSpeed(profile);
                    const drift = hostDrift(predicted), usual = predicted.usualSpeed;
                    const history = profile.hostSpeedHistory?.length ?? 0;
                    if (usual) console.log(`  host's speed         predictions scale these times by ${usual.factor.toFixed(2)} to the median speed of ${usual.calibrations} calibrations here (by their ${usual.by === 'curves' ? 'curves' : 'reference request'})`);
                    console.log(`  host's tails         ${tailsSummary(profile, predicted)}`);
                    console.log(`  host's drift         ${drift ? `±${formatPercent(drift.p90)} from its usual speed over ${drift.points} earlier calibrations (every band includes it)` : `not known yet (${history} earlier calibration${history === 1 ? '' : 's'} of this adapter here; ${MIN_DRIFT_POINTS} needed)`}`);
                    console.log(`  took ${(profile.calibrationMs / 1000).toFixed(1)} s; written to:`);
                    for (const p of written) console.log(`    ${p}`);
                }
            } catch (e) {
                if (tty) process.stderr.write('\n');
                if (e instanceof NoAdapterError) {
                    console.error(`tenancy calibrate: ${e.message}`);
                    process.exitCode = exitCodes.environment;
                } else if (controller.signal.aborted) {
                    console.error('tenancy calibrate: cancelled; no profile was written');
                    process.exitCode = exitCodes.cancelled;
                } else {
                    console.error(`tenancy calibrate: ${(e as Error).message}`);
                    process.exitCode = exitCodes.environment;
                }
            } finally {
                process.off('SIGINT', onSignal);
                process.off('SIGTERM', onSignal);
            }
        });
}
