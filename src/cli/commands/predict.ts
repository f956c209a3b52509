/**
 * `tenancy predict <file> [--workload W] [--json] [--profile P] [--top N] [--no-schedules]`: the
 * predictions the editor shows, as a table — per tenant solo and co-run p50/p99, utilisation and
 * SLO verdicts, then the top ops by predicted time, then the schedules compared as the editor's
 * hover on `schedule` shows them (with its hint, if any). `<file>` is a `.tenancy` document or a
 * Workload IR JSON file (`tenancy ir` output).
 */
import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { parseWorkloadIr } from '../../runtime/ir/validate.js';
import type { WorkloadIR } from '../../runtime/ir/types.js';
import { locateProfile, readProfileToPredict, type LocatedProfile } from '../../runtime/predict/profile-store.js';
import { predictWorkload, typicalOpMs, type WorkloadPrediction } from '../../runtime/predict/workload.js';
import { DEFAULT_BAND } from '../../runtime/predict/band.js';
import { alignTable } from '../../runtime/report/table.js';
import { workspaceFolderOf } from '../../runtime/report/write.js';
import { corunModelErrorText, corunOpBandText, formatBand, formatBandRange, formatMeanRatio, formatTenantUtilisation, formatUtilisation, hostDriftText, profileLabel, usualTailsText } from '../../language-server/prediction/format.js';
import { formatBytes, formatFlops, formatMs, formatPercent } from '../../protocol/units.js';
import { comparisonJson, comparisonText, compareWorkloadSchedules } from '../../language-server/prediction/schedule-comparison.js';
import { PlanCache } from '../../runtime/plan/plan.js';
import { exitCodes } from '../../protocol/exit-codes.js';
import { loadAllWorkloadIrs } from '../load-workspace.js';

/** Validates one IR read from a file, naming the file in the error. */
function parseWorkloadIrAt(value: unknown, where: string): WorkloadIR {
    try {
        return parseWorkloadIr(value);
    } catch (e) {
        throw new Error(`${where}: ${(e as Error).message}`);
    }
}

/** Loads the workloads of a file: IR JSON directly, `.tenancy` through the language services (load-workspace). */
async function loadIrs(file: string): Promise<WorkloadIR[]> {
    if (extname(file) === '.json') {
        const value: unknown = JSON.parse(readFileSync(file, 'utf8'));
        const list = Array.isArray(value) ? value : [value];
        return list.map((v, i) => parseWorkloadIrAt(v, list.length > 1 ? `${file}[${i}]` : file));
    }
    return loadAllWorkloadIrs(file);
}

/** A predicted figure with its 90 % band, as the table shows it: `5.12 ms (4.10–6.41)`. */
const withRange = (ms: number, band: { low: number; high: number }) => `${formatMs(ms)} (${formatBandRange(band)})`;

/** The text table of a prediction (what `tenancy predict` prints). */
export function predictionTable(p: WorkloadPrediction, top: number): string {
    const multi = p.tenants.length > 1;
    const header = ['tenant', 'service', 'solo p50', 'solo p99', ...(multi ? ['co-run p50', 'co-run p99', 'co-run/solo mean'] : []), 'utilisation', 'SLO'];
    const rows = [header];
    for (const t of p.tenants) {
        const slo = t.slos.length === 0 ? '—' : t.slos.map(s => `${s.percentile}≤${formatMs(s.targetMs)} ${s.verdict === 'ok' ? '✓' : s.verdict === 'infeasible' ? '✗ infeasible' : '⚠ at risk'}`).join(' ');
        rows.push([
            t.name, `${formatMs(t.serviceMs)} ${formatBand(t.band)}`, withRange(t.solo.p50, t.bandMs.solo.p50), withRange(t.solo.p99, t.bandMs.solo.p99),
            ...(multi ? [withRange(t.corun.p50, t.bandMs.corun.p50), withRange(t.corun.p99, t.bandMs.corun.p99), formatMeanRatio(t.meanRatio)] : []),
            formatTenantUtilisation(t), slo,
        ]);
    }
    const lines = [
        `workload ${p.workload} — schedule ${p.policy} — ${profileLabel(p)}`,
        alignTable(rows),
        `device utilisation (open-loop demand at solo speed): ${formatUtilisation(p.deviceUtilisation, p.deviceUtilisationBand)}${p.overloaded ? ' — OVERLOADED' : ''}`,
        (p.tenants.some(t => !t.band.calibrated)
            ? `p50 and p99 (low–high), service and ops ±: uncalibrated band, a stated default of ±${formatPercent(DEFAULT_BAND)} (this profile has no leave-one-out evidence; run \`tenancy calibrate\`)`
            : `p50 and p99 (low–high), service and ops ±: the 90 % band (90 % of the profile's own calibration points, each predicted without it, fell within it; the host's run-to-run noise added${hostDriftText(p.profile)})`)
            + (multi ? `; the co-run ranges add how far each figure scatters over a run's requests, ${corunModelErrorText(p.profile.corunModelError)}; co-run/solo mean (low–high): the co-run mean over the solo mean, with the co-run mean's band` : '')
            + (p.profile.usualTails ? `.${usualTailsText(p.profile)}` : ''),
    ];
    if (top > 0) {
        // Typical (median) times per request, as the editor's op hints show them.
        const ops = p.tenants.flatMap(t => t.ops.map(o => ({ o, typical: typicalOpMs(o) }))).sort((a, b) => b.typical.solo - a.typical.solo).slice(0, top);
        const opRows = [['op', 'kind', 'FLOPs', 'bytes', 'FLOP/B', 'bound', 'solo', 'co-run', 'kernels']];
        for (const { o, typical } of ops) {
            opRows.push([o.path, o.kind, formatFlops(o.flops), formatBytes(o.bytes), o.intensity.toFixed(1), o.bound, `${formatMs(typical.solo)} ${formatBand(o.band)}`, `${formatMs(typical.corun)} ${formatBand(o.corunBand)}`, o.launches.map(l => l.name).join(',')]);
        }
        lines.push('', `top ${ops.length} ops by predicted typical (median) solo GPU time per request:`, alignTable(opRows));
        if (multi) lines.push(corunOpBandText(p));
    }
    return lines.join('\n');
}

/** What `tenancy predict` is asked (its options as commander reads them). */
export interface PredictCommandOptions {
    workload?: string;
    json?: boolean;
    profile?: string;
    top: string;
    schedules: boolean;
}

/**
 * Runs `tenancy predict`; returns the exit code (prints to the given streams). Each workload's
 * declared schedule is simulated once: with the comparison, the co-run figures are its row;
 * without (`--no-schedules`), predictWorkload simulates it. The file is loaded with predictions
 * off, so its checks simulate nothing beside them.
 */
export async function runPredict(fileArg: string, opts: PredictCommandOptions, out: (text: string) => void = console.log, err: (line: string) => void = console.error): Promise<number> {
    const file = resolve(fileArg);
    const top = Number(opts.top);
    if (!Number.isInteger(top) || top < 0) {
        err(`tenancy predict: --top must be a non-negative integer; found '${opts.top}'`);
        return exitCodes.usage;
    }
    let located: LocatedProfile;
    try {
        located = opts.profile ? { profile: readProfileToPredict(resolve(opts.profile)), file: resolve(opts.profile) } : locateProfile(workspaceFolderOf(file));
    } catch (e) {
        err(`tenancy predict: ${(e as Error).message}`);
        return exitCodes.inputErrors;
    }
    if (located.problem) err(`tenancy predict: warning: ${located.problem}`);
    let irs: WorkloadIR[];
    try {
        irs = await loadIrs(file);
    } catch (e) {
        err(`tenancy predict: ${(e as Error).message}`);
        return exitCodes.inputErrors;
    }
    if (opts.workload) {
        const found = irs.filter(ir => ir.workload === opts.workload);
        if (found.length === 0) {
            err(`tenancy predict: no workload '${opts.workload}' in ${fileArg}; found: ${irs.map(i => i.workload).join(', ') || 'none'}`);
            return exitCodes.inputErrors;
        }
        irs = found;
    }
    if (irs.length === 0) {
        err(`tenancy predict: ${fileArg} defines no workload`);
        return exitCodes.inputErrors;
    }
    const cache = new PlanCache();
    // The editor's comparison (schedule hints, the hover on `schedule`), from the same functions.
    const comparisons = opts.schedules ? irs.map(ir => compareWorkloadSchedules(ir, located.profile, cache)) : undefined;
    // The co-run figures are the declared schedule's row of the comparison (simulated once), else simulated alone.
    const predictions = irs.map((ir, i) => predictWorkload(ir, located.profile, { cache, schedule: comparisons?.[i].current }));
    if (opts.json) {
        const schedules = comparisons?.map(c => comparisonJson(c));
        out(JSON.stringify({ profile: located.file ?? 'default (uncalibrated)', predictions, ...(schedules ? { schedules } : {}) }, (_k, v) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2));
    } else {
        out(`profile: ${located.file ?? 'built-in default (uncalibrated) — run `tenancy calibrate`'}`);
        predictions.forEach((p, i) => {
            out('\n' + predictionTable(p, top));
            if (comparisons) out('\n' + comparisonText(comparisons[i]));
        });
    }
    return exitCodes.ok;
}

export function register(program: Command): void {
    program.command('predict')
        .description('Predict latency, utilisation and interference of a workload on the calibrated device profile (no GPU needed)')
        .argument('<file>', 'a .tenancy document, or a Workload IR JSON file')
        .option('-w, --workload <name>', 'the workload to predict (default: every workload of the file)')
        .option('--json', 'print the predictions as JSON (an unbounded latency, i.e. an overloaded queue, is null)')
        .option('--profile <file>', 'a device profile JSON (default: <workspace>/.tenancy/device-profile.json, then the user cache, else the uncalibrated default)')
        .option('--top <n>', 'how many ops to list per workload', '10')
        .option('--no-schedules', 'skip the comparison of schedules (it simulates each candidate schedule: a fraction of a second per workload)')
        .action(async (fileArg: string, opts: PredictCommandOptions) => {
            process.exitCode = await runPredict(fileArg, opts);
        });
}

/** Where the workspace's profile would be written (for messages). */
export function workspaceProfileHint(file: string): string {
    return join(workspaceFolderOf(file), '.tenancy', 'device-profile.json');
}
