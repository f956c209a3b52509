/**
 * Text of predicted (and measured) figures for hovers, inlay hints and diagnostics — pure
 * functions over the runtime's prediction and results types, shared by the language server
 * and `tenancy predict` so that both say the same thing.
 */
import type { OpResult, Results, TenantResult } from '../../runtime/report/schema.js';
import { describeAttribution } from '../../runtime/report/attribution.js';
import { requiredSamples } from '../../runtime/report/statistics.js';
import { formatBoundedMs, formatNeeds, formatRange, formatSlowdown as formatInterval, sloMark } from '../../protocol/figures.js';
import { typicalOpMs, type OpPrediction, type SloPrediction, type TenantPrediction, type WorkloadPrediction } from '../../runtime/predict/workload.js';
import { DEFAULT_BAND, MIN_DRIFT_POINTS, bandRange, combineBands, insideBand, widenBand, type ErrorBand } from '../../runtime/predict/band.js';
import { formatBytes, formatFlops, formatMs, formatPercent, formatSignedPercent } from '../../protocol/units.js';
import { profileKey } from '../../runtime/predict/profile.js';

/** `+8%` / `−12%`: (measured − predicted) / measured, the error of the prediction relative to the measurement. */
export function formatError(predicted: number, measured: number): string {
    if (!(measured > 0) || !Number.isFinite(predicted)) return 'n/a';
    return formatSignedPercent((predicted - measured) / measured);
}

/** `±12%`: a 90 % error band's relative half-width (band.ts). */
export function formatBand(band: ErrorBand): string {
    return `±${formatPercent(band.relative)}`;
}

/** A band's range in ms without the unit, as the figure it follows prints it (`61 ms (45–80)`); `≥ 45` when unbounded above. */
export function formatBandRange(range: { low: number; high: number }): string {
    return formatRange(range.low, Number.isFinite(range.high) ? range.high : null);
}

/** `45% (37–58%)`: a predicted utilisation with its 90 % band (the band left out where nothing loads the device). */
export function formatUtilisation(u: number, range: { low: number; high: number }): string {
    if (!(u > 0) || !Number.isFinite(u)) return formatPercent(u);
    return `${formatPercent(u)} (${formatPercent(range.low)}–${Number.isFinite(range.high) ? formatPercent(range.high) : '∞'})`;
}

/**
 * A tenant's co-run utilisation: an open stream's busy share is its co-run service × its rate, so it carries the band of
 * its ops' co-run time (its band widened by opCorunTerm); a closed loop's is near 1 by construction and shows none.
 */
export function formatTenantUtilisation(t: TenantPrediction, closed = 'closed'): string {
    return t.openLoop ? formatUtilisation(t.corunUtilisation, bandRange(t.corunUtilisation, widenBand(t.band, t.opCorunTerm).relative)) : `${formatPercent(t.corunUtilisation)} (${closed})`;
}

/** One line saying what a band means: the evidence it rests on (with the host's drift where the profile has it), or that it is the default. */
function bandMeaning(band: ErrorBand, drift?: HostDriftSummary): string {
    return band.calibrated
        ? `${formatBand(band)} is the 90 % band: on this profile's own calibration points, 90 % of measured times fell within that error of the prediction (each point predicted by the model fitted without it; a family with fewer than 4 points takes its class's), the host's run-to-run noise added${hostDriftText(drift)}.`
        : `${formatBand(band)} is an uncalibrated band: a stated default (±${formatPercent(DEFAULT_BAND)}), not this profile's evidence — run \`tenancy calibrate\` for bands measured on this device.`;
}

/** The profile label every predicted figure carries: calibrated device or "uncalibrated". */
export function profileLabel(p: WorkloadPrediction): string {
    return p.profile.uncalibrated ? 'uncalibrated (default profile; run `tenancy calibrate`)' : `calibrated on ${p.profile.device}`;
}

/**
 * How the latest run measured a predicted op, matched by op path (never by line: an edit that
 * moves lines keeps the match). `ops`: the measured op with the same path, plus the parts the
 * run measured separately where the prediction fused them into this op. `fused-into`: the run
 * fused this op into another one, whose figure holds its time.
 */
export type MeasuredMatch =
    | { kind: 'ops'; ops: OpResult[] }
    | { kind: 'fused-into'; into: OpResult };

/** The measured op(s) of a predicted op in a tenant's results — the one matching rule of hints, hovers and reports. */
export function measuredOp(tenant: TenantResult | undefined, op: OpPrediction): MeasuredMatch | undefined {
    if (!tenant) return undefined;
    const own = tenant.ops.filter(o => o.path === op.path || op.fused.includes(o.path));
    if (own.length > 0) return { kind: 'ops', ops: own };
    const into = tenant.ops.find(o => o.fused.includes(op.path));
    return into ? { kind: 'fused-into', into } : undefined;
}

/** The measured tenant of a predicted one, by name. */
export function measuredTenant(results: Results | undefined, name: string): TenantResult | undefined {
    return results?.tenants.find(t => t.name === name);
}

/** One predicted op instance of a tenant, beside that tenant's latest measured results. */
export interface OpInstanceFigures {
    op: OpPrediction;
    measured: TenantResult | undefined;
}

/** A measured time with the prediction of the same ops in the same phase. */
export interface MeasuredVsPredicted {
    ms: number;
    predictedMs: number;
}

/**
 * The measured figure of one op instance or of an op line (a tenant's instances of the ops
 * whose source is that line, e.g. a line of a repeated block): every time is per request,
 * summed over the instances, each phase compared with the prediction of the same ops in the
 * same phase and of the same statistic: the median, the op's typical time (results files record
 * it beside the mean). On a busy host one stalled pass moves an op's mean far more than its median.
 */
export interface MeasuredFigure {
    /** Predicted solo and co-run time of all the instances. */
    predictedSoloMs: number;
    predictedCorunMs: number;
    instances: number;
    /** Measured solo time of the instances the run timed solo. */
    solo?: MeasuredVsPredicted;
    /** Measured co-run time of the instances the run timed co-running. */
    corun?: MeasuredVsPredicted;
    /** Measured co-run / solo over the measured ops timed in both phases. */
    slowdown?: number;
    /** The measured op the run fused these ops into, when it measured none of them on their own. */
    fusedInto?: string;
    /** The 90 % band of predictedSoloMs: the instances' launches combined (band.ts combineBands). */
    band: ErrorBand;
    /** The 90 % band of predictedCorunMs: `band` widened by the tenant's opCorunTerm (as each op's corunBand). */
    corunBand: ErrorBand;
}

/** The terms a tenant's op figures add to their launches' band, once (band.ts widenBand): the host's drift, and to the co-run figure the tenant's opCorunTerm (as workload.ts gives each op's corunBand). */
export interface OpBandTerms {
    drift?: number;
    corun?: number;
}

/** The op band terms of a tenant's ops in a prediction. */
export function opBandTerms(p: WorkloadPrediction, tenant: string): OpBandTerms {
    return { drift: p.profile.hostDrift?.p90, corun: p.tenants.find(t => t.name === tenant)?.opCorunTerm };
}

/**
 * Decides "the measured figure" of op instances; inlay hints and hovers both show this. Its band
 * combines the instances' launches and adds the host's drift once, its co-run band the tenant's
 * co-run term too (opBandTerms), as an op's own bands do (band.ts widenBand).
 */
export function measuredFigure(instances: OpInstanceFigures[], terms: OpBandTerms = {}): MeasuredFigure {
    const band = widenBand(combineBands(instances.flatMap(({ op }) => op.launches.map(l => ({ family: l.family, ms: l.ms, band: l.band })))), terms.drift);
    const figure: MeasuredFigure = { predictedSoloMs: 0, predictedCorunMs: 0, instances: instances.length, band, corunBand: widenBand(band, terms.corun) };
    const measuredMs = (o: OpResult, phase: 'solo' | 'corun') => phase === 'solo' ? o.soloP50Ms : o.corunP50Ms;
    const counted = new Set<string>();
    let bothSolo = 0, bothCorun = 0;
    const add = (key: 'solo' | 'corun', ms: number, predictedMs: number) => {
        const f = figure[key] ?? (figure[key] = { ms: 0, predictedMs: 0 });
        f.ms += ms;
        f.predictedMs += predictedMs;
    };
    for (const { op, measured } of instances) {
        const predicted = typicalOpMs(op);
        figure.predictedSoloMs += predicted.solo;
        figure.predictedCorunMs += predicted.corun;
        const match = measuredOp(measured, op);
        if (match?.kind === 'fused-into') {
            figure.fusedInto ??= match.into.path;
            continue;
        }
        // A measured op counts once, even if two predicted ops claim it (never double-counted).
        const ops = (match?.ops ?? []).filter(o => !counted.has(`${measured?.name}/${o.path}`));
        for (const o of ops) counted.add(`${measured?.name}/${o.path}`);
        const sum = (phase: 'solo' | 'corun') => ops.some(o => measuredMs(o, phase) !== null) ? ops.reduce((s, o) => s + (measuredMs(o, phase) ?? 0), 0) : undefined;
        const solo = sum('solo');
        const corun = sum('corun');
        if (solo !== undefined) add('solo', solo, predicted.solo);
        if (corun !== undefined) add('corun', corun, predicted.corun);
        for (const o of ops) {
            const s = measuredMs(o, 'solo'), c = measuredMs(o, 'corun');
            if (s !== null && c !== null) {
                bothSolo += s;
                bothCorun += c;
            }
        }
    }
    if (bothSolo > 0 && bothCorun > 0) figure.slowdown = bothCorun / bothSolo;
    if (figure.solo || figure.corun) delete figure.fusedInto;
    return figure;
}

/** `1.90×` (a measured slowdown); `∞×` where the co-run never drains (an overloaded simulation). */
export function formatSlowdown(x: number): string {
    return Number.isFinite(x) ? `${x.toFixed(x >= 10 ? 1 : 2)}×` : '∞×';
}

/** `1.34× (1.05–1.8)`: a predicted co-run / solo mean with its 90 % band; `∞×` where a queue does not drain. */
export function formatMeanRatio(r: TenantPrediction['meanRatio']): string {
    return Number.isFinite(r.estimate) ? `${formatSlowdown(r.estimate)} (${formatBandRange(r)})` : formatSlowdown(r.estimate);
}

/** The last segment of an op path (`conv2d.1`). */
function opName(path: string): string {
    return path.split('/').pop() ?? path;
}

/** Status words of a run that did not complete (its figures cover part of the benchmark). */
function runStatusNote(status: Results['status'] | undefined): string {
    return status && status !== 'complete' ? ` (${status} run)` : '';
}

/**
 * Inlay hint text of one op line: `≈0.24 ms ±12%` (the prediction and its 90 % band; `?` after
 * the time: uncalibrated profile; after the band: a default band) before a run; after it the
 * measured solo time with the prediction's error and whether it fell inside the band, and the
 * measured co-run time with its slowdown over solo and whether it fell inside the co-run band —
 * `≈0.24 ms ±12% · measured 0.48 ms (−50%, outside band) · co-run 0.45 ms, 0.94× solo (inside band)`.
 */
export function opHint(figure: MeasuredFigure, uncalibrated: boolean, status?: Results['status']): string {
    const bandMark = !uncalibrated && !figure.band.calibrated ? '?' : '';
    const parts = [`≈${formatMs(figure.predictedSoloMs)}${uncalibrated ? '?' : ''} ${formatBand(figure.band)}${bandMark}`];
    const { solo, corun } = figure;
    if (solo) parts.push(`measured ${formatMs(solo.ms)} (${formatError(solo.predictedMs, solo.ms)}, ${insideBand(solo.predictedMs, solo.ms, figure.band.relative) ? 'inside' : 'outside'} band)`);
    if (corun) {
        const label = solo ? 'co-run' : 'measured co-run';
        const inside = `${insideBand(corun.predictedMs, corun.ms, figure.corunBand.relative) ? 'inside' : 'outside'} band`;
        // Without a solo time there is no slowdown: the co-run prediction's error instead.
        parts.push(figure.slowdown !== undefined
            ? `${label} ${formatMs(corun.ms)}, ${formatSlowdown(figure.slowdown)} solo (${inside})`
            : `${label} ${formatMs(corun.ms)} (${formatError(corun.predictedMs, corun.ms)}, ${inside})`);
    }
    if (!solo && !corun && figure.fusedInto) parts.push(`run fused it into ${opName(figure.fusedInto)}`);
    return parts.join(' · ') + (solo || corun ? runStatusNote(status) : '');
}

/**
 * How fast the host ran during a run against the profile predicted on: the reference request the
 * run timed before measuring (results' host.referenceRequestMs) over the profile's time of it.
 * Undefined when either is missing or the run was on another adapter. Every predicted time at
 * the run's speed is × factor (predict/profile.ts atHostSpeed scales them alike).
 */
export function runHostSpeed(p: WorkloadPrediction, run: Results | undefined): { factor: number; runMs: number; profileMs: number } | undefined {
    const runMs = run?.host.referenceRequestMs, profileMs = p.profile.referenceRequestMs;
    if (runMs === undefined || profileMs === undefined || !run?.adapter || profileKey(run.adapter) !== p.profile.key) return undefined;
    return { factor: runMs / profileMs, runMs, profileMs };
}

/** One sentence on the host's speed in a run (runHostSpeed), for the hovers beside its measurements. */
function runSpeedText(speed: NonNullable<ReturnType<typeof runHostSpeed>>): string {
    return `In the latest run the host ran at ${speed.factor.toFixed(2)}× the profile's times (the reference request, timed before the run: ${formatMs(speed.runMs)} against ${formatMs(speed.profileMs)}): at that speed every kernel's predicted time is × ${speed.factor.toFixed(2)}.`;
}

/** Markdown tooltip of an op line's hint: what each figure is, in words. */
export function opHintTooltip(figure: MeasuredFigure, p: WorkloadPrediction, tenant: string, ops: OpPrediction[], run: Results | undefined): string {
    const finishedAt = run?.finishedAt;
    const names = [...new Set(ops.map(o => opName(o.path)))];
    const what = figure.instances > 1 ? `; the sum over this line's ${figure.instances} op instances (${names.map(n => `\`${n}\``).join(', ')})` : '';
    const lines = [`Predicted typical (median) GPU time per request, solo, for \`${tenant}\` — ${profileLabel(p)}${what}.`, '', bandMeaning(figure.band, p.profile)];
    const { solo, corun } = figure;
    if (solo || corun) {
        lines.push('', `Measured in the latest run${finishedAt ? ` (${new Date(finishedAt).toLocaleString()})` : ''}, typical (median) GPU time per request:`);
        if (solo) lines.push(`- solo ${formatMs(solo.ms)} — predicted ${formatMs(solo.predictedMs)} ${formatBand(figure.band)}, error ${formatError(solo.predictedMs, solo.ms)}, ${insideBand(solo.predictedMs, solo.ms, figure.band.relative) ? 'inside' : 'outside'} the band`);
        const speed = runHostSpeed(p, run);
        if (solo && speed) {
            // The host's speed in the run is known: the band's drift term no longer applies (it was added in quadrature).
            const drift = p.profile.hostDrift?.p90 ?? 0;
            const band = { ...figure.band, relative: Math.sqrt(Math.max(0, figure.band.relative ** 2 - drift ** 2)) };
            const atSpeed = solo.predictedMs * speed.factor;
            lines.push(`- at the host's speed in that run (${speed.factor.toFixed(2)}× the profile's: its reference request took ${formatMs(speed.runMs)} against ${formatMs(speed.profileMs)}): predicted ${formatMs(atSpeed)} ${formatBand(band)}, ` +
                `error ${formatError(atSpeed, solo.ms)}, ${insideBand(atSpeed, solo.ms, band.relative) ? 'inside' : 'outside'} the band${drift > 0 ? ' (the host\'s drift left out: its speed is known)' : ''}`);
        }
        if (corun) {
            lines.push(`- co-run ${formatMs(corun.ms)}${figure.slowdown !== undefined ? `, ${formatSlowdown(figure.slowdown)} solo` : ''} — predicted ${formatMs(corun.predictedMs)} ${formatBand(figure.corunBand)}, error ${formatError(corun.predictedMs, corun.ms)}, ${insideBand(corun.predictedMs, corun.ms, figure.corunBand.relative) ? 'inside' : 'outside'} the band`);
        }
        lines.push('', `Error: (predicted − measured) / measured.${corun ? ` ${corunOpBandText(p)}` : ''} Hover the op for every tenant and instance.`);
    } else if (figure.fusedInto) {
        lines.push('', `The run fused this op into \`${figure.fusedInto}\`: its time is in that op's figure.`);
    }
    return lines.join('\n');
}

/** Inlay hint text of a tenant: predicted p50/p99 with their bands, and the measured p99 of the same phase when there is a run, with the error and whether it fell inside the band. */
export function tenantHint(t: TenantPrediction, measured: TenantResult | undefined, uncalibrated: boolean, multiTenant: boolean): string {
    const phase = multiTenant ? 'co-run' : 'solo';
    const f = multiTenant ? t.corun : t.solo;
    const bands = t.bandMs[multiTenant ? 'corun' : 'solo'];
    let text = `≈ p50 ${formatMs(f.p50)} (${formatBandRange(bands.p50)}) · p99 ${formatMs(f.p99)} (${formatBandRange(bands.p99)}) ${phase}${uncalibrated ? ' (uncalibrated)' : ''}`;
    // The phase the code lens summarises too: co-run when the run had one, else solo (a solo run).
    const measuredPhase = measured?.corun ? 'corun' : measured?.solo ? 'solo' : undefined;
    const stats = measuredPhase ? measured?.[measuredPhase] : undefined;
    if (measuredPhase && stats) {
        const label = (measuredPhase === 'corun') === multiTenant ? '' : measuredPhase === 'corun' ? ' co-run' : ' solo';
        const bounds = stats.boundsMs.p99;
        if (bounds && bounds.high !== null) {
            const predicted = measuredPhase === 'corun' ? t.corun.p99 : t.solo.p99;
            const value = stats.latencyMs.p99;
            text += ` · measured p99 ${formatBoundedMs(value, bounds.low, bounds.high)}${label} (${formatError(predicted, value)}, ${insideBand(predicted, value, phaseBand(t, measuredPhase, 'p99')) ? 'inside' : 'outside'} band)`;
        } else {
            // Too few requests to bound p99: the highest percentile they do bound, and what p99 still needs.
            const fallback = stats.boundedUpTo && stats.boundedUpTo !== 'p99' && stats.boundedUpTo !== 'p999' ? stats.boundedUpTo : undefined;
            const fb = fallback ? stats.boundsMs[fallback] : undefined;
            if (fallback && fb) {
                const value = stats.latencyMs[fallback];
                const predictedP50 = measuredPhase === 'corun' ? t.corun.p50 : t.solo.p50;
                const error = fallback === 'p50' ? ` (${formatError(predictedP50, value)}, ${insideBand(predictedP50, value, phaseBand(t, measuredPhase, 'p50')) ? 'inside' : 'outside'} band)` : '';
                text += ` · measured ${fallback} ${formatBoundedMs(value, fb.low, fb.high)}${label}${error}; p99 ${formatNeeds(requiredSamples('p99'), stats.requests)}`;
            } else {
                text += ` · measured p99 ${formatNeeds(requiredSamples('p99'), stats.requests)}${label}`;
            }
        }
    }
    return text;
}

/** The relative 90 % band of a tenant's figure in a phase: the tenant's band solo, the figure's co-run band co-running (as bandMs has them). */
function phaseBand(t: TenantPrediction, phase: 'solo' | 'corun', p: 'p50' | 'p99'): number {
    return phase === 'corun' ? t.corunBand[p] : t.band.relative;
}

/** The instance part of an op path (`basic_block.1` of `vision/tiny_resnet/basic_block.1/conv2d.0`), or ''. */
function instanceOf(path: string): string {
    return path.split('/').slice(2, -1).join('/');
}

/** Markdown of one op line's prediction and measurement: a row per tenant instance, and a total per tenant with several. */
export function opHoverMarkdown(rows: { tenant: string; op: OpPrediction; measured?: TenantResult }[], p: WorkloadPrediction, run?: Results, maxRows = 12): string {
    const lines: string[] = [`**Predicted** — ${profileLabel(p)}`, ''];
    lines.push('| tenant | FLOPs | bytes | FLOP/byte | bound | solo | co-run | measured solo | measured co-run |', '|---|---:|---:|---:|---|---:|---:|---:|---:|');
    const cells = (f: MeasuredFigure) => {
        if (!f.solo && !f.corun) return f.fusedInto ? [`in \`${opName(f.fusedInto)}\``, '—'] : ['—', '—'];
        return [
            f.solo ? `${formatMs(f.solo.ms)} (${formatError(f.solo.predictedMs, f.solo.ms)})` : '—',
            f.corun ? `${formatMs(f.corun.ms)}${f.slowdown !== undefined ? `, ${formatSlowdown(f.slowdown)}` : ''} (${formatError(f.corun.predictedMs, f.corun.ms)})` : '—',
        ];
    };
    let anyMeasured = false;
    const byTenant = new Map<string, typeof rows>();
    for (const r of rows) {
        const group = byTenant.get(r.tenant);
        if (group) group.push(r);
        else byTenant.set(r.tenant, [r]);
    }
    let shown = 0;
    for (const [tenant, group] of byTenant) {
        for (const r of group) {
            if (shown++ >= maxRows) continue; // the tenant's total below still covers every instance
            const f = measuredFigure([{ op: r.op, measured: r.measured }], opBandTerms(p, tenant));
            anyMeasured ||= f.solo !== undefined || f.corun !== undefined;
            const label = group.length > 1 && instanceOf(r.op.path) ? `${tenant} · ${instanceOf(r.op.path)}` : tenant;
            lines.push(`| ${label} | ${formatFlops(r.op.flops)} | ${formatBytes(r.op.bytes)} | ${r.op.intensity.toFixed(1)} | ${r.op.bound} | ${formatMs(f.predictedSoloMs)} ${formatBand(f.band)} | ${formatMs(f.predictedCorunMs)} ${formatBand(f.corunBand)} | ${cells(f).join(' | ')} |`);
        }
        if (group.length > 1) {
            const f = measuredFigure(group.map(r => ({ op: r.op, measured: r.measured })), opBandTerms(p, tenant));
            lines.push(`| **${tenant}, ${group.length} instances** | | | | | ${formatMs(f.predictedSoloMs)} ${formatBand(f.band)} | ${formatMs(f.predictedCorunMs)} ${formatBand(f.corunBand)} | ${cells(f).join(' | ')} |`);
        }
    }
    if (rows.length > maxRows) lines.push('', `…and ${rows.length - maxRows} more instances`);
    // Who slowed it in the co-run rounds (from the kernel timeline), per tenant instance measured.
    const attributions = rows.flatMap(r => {
        const match = measuredOp(r.measured, r.op);
        const o = match?.kind === 'ops' ? match.ops[0] : undefined;
        const text = o ? describeAttribution(o.attribution, o.soloP50Ms) : undefined;
        return text ? [`- \`${r.tenant}\`${instanceOf(r.op.path) ? ` · ${instanceOf(r.op.path)}` : ''}: ${text}${o?.slowdown ? `; median ${formatInterval(o.slowdown)}` : ''}`] : [];
    });
    if (attributions.length) lines.push('', 'Co-run in the latest run (times over its median solo time):', ...attributions.slice(0, maxRows));
    lines.push('', anyMeasured
        ? `Solo and co-run: typical (median) GPU time per request, predicted; measured in the latest run; error = (predicted − measured) / measured; × = co-run / solo.`
        : 'Solo and co-run: typical (median) GPU time per request, predicted.');
    const speed = anyMeasured ? runHostSpeed(p, run) : undefined;
    if (speed) lines.push('', runSpeedText(speed));
    const first = rows[0]?.op;
    if (first) lines.push('', `${bandMeaning(first.band, p.profile)}${p.tenants.length > 1 ? ` ${corunOpBandText(p)}` : ''}`);
    if (first) {
        // Each launch's share of the op's typical time (launch times are means: the host's factor scales them alike).
        const scale = first.soloMs > 0 ? typicalOpMs(first).solo / first.soloMs : 1;
        // Each with its family's band and the host's drift, as the op's band combines them.
        const kernels = first.launches.map(l => `\`${l.name}\` ${formatMs(l.ms * scale)} ${formatBand(widenBand(l.band, p.profile.hostDrift?.p90))}`).join(', ');
        if (kernels) lines.push('', `Kernels: ${kernels}${first.fused.length > 0 ? ` · fused: ${first.fused.map(f => `\`${opName(f)}\``).join(', ')}` : ''}`);
        if (first.estimated) lines.push('', '*No kernel generator serves this op as written; timed from its FLOPs and bytes.*');
    }
    return lines.join('\n');
}

/** What an op's co-run band adds to its band where tenants co-run (workload.ts TenantPrediction.opCorunTerm). */
export function corunOpBandText(p: WorkloadPrediction): string {
    const c = p.profile.corunOpNoise;
    const noise = c === undefined
        ? `not ops' co-run noise: ${p.profile.uncalibrated ? 'the profile is uncalibrated' : 'this profile predates its measurement'} (run \`tenancy calibrate\`)`
        : `how far an op's co-run median moved between short co-runs calibration ran (±${formatPercent(c)})`;
    return `The co-run time is the solo time × the tenant's co-run slowdown: its band adds that slowdown's (the tenant's co-run mean band) and ${noise}. It does not hold how ops of one tenant stretch unlike each other, nor a tenant of short kernels waiting for turns beside long ones, whose kernels' own times do not stretch as its latency does.`;
}

/** What the co-run ranges say of the co-run model's own error (workload.ts corunBands). */
export function corunModelErrorText(c: number | undefined): string {
    return c === undefined
        ? 'not the co-run model\'s error (this profile predates its measurement: run `tenancy calibrate`)'
        : `and the co-run model's error calibration measured on co-runs of its own (±${formatPercent(c)})`;
}

/** What a prediction knows of the host's drift between calibrations (WorkloadPrediction.profile). */
type HostDriftSummary = Pick<WorkloadPrediction['profile'], 'hostDrift' | 'hostDriftPending' | 'usualSpeed'>;

/**
 * What the bands say of the host's drift between calibrations (band.ts hostDrift): its size where
 * the profile knows it; where a calibrated profile does not yet, that the bands leave it out
 * (on a fresh machine, bands without it held 73–79 % of measured ops where 90 % was meant:
 * BENCHMARKS.md); nothing for the default profile. Where the times were scaled to the host's
 * usual speed (profile.ts atUsualSpeed), by how much: a user comparing with the profile file
 * sees why its times differ.
 */
export function hostDriftText(p: HostDriftSummary | undefined): string {
    const d = p?.hostDrift, pending = p?.hostDriftPending, usual = p?.usualSpeed;
    if (d && usual) {
        return `, and how far the host's speed moves from its usual speed (±${formatPercent(d.p90)} over ${d.points} earlier calibrations of this adapter here). ` +
            `Every time is at that usual speed, the median of ${usual.calibrations} calibrations (by their ${usual.by}): the latest calibration's times × ${usual.factor.toFixed(2)}`;
    }
    if (d) return `, and how far the host's speed moved between this adapter's calibrations here (±${formatPercent(d.p90)} over ${d.points})`;
    if (!pending) return '';
    const n = pending.calibrations;
    return `, not yet how far the host's speed moves between calibrations (${n} earlier calibration${n === 1 ? '' : 's'} of this adapter here, ${MIN_DRIFT_POINTS} needed: run \`tenancy calibrate\` again at another time; until then a figure measured while the host runs faster or slower than at calibration can fall outside it)`;
}

/**
 * Where the profile's tails (the host's stalls beyond a request's body, in every p99) are the host's
 * usual ones (profile.ts usualTail): of how many calibrations. One calibration's tail moved 2–4×
 * from the next minutes later, so a user who calibrates again should know the p99s follow the
 * median, not the latest. Empty otherwise.
 */
export function usualTailsText(p: Pick<WorkloadPrediction['profile'], 'usualTails'> | undefined): string {
    const n = p?.usualTails?.calibrations;
    return n ? ` The host's stalls in the p99s (its tail beyond a request's body, alone and beside a co-runner) are the median of ${n} calibrations' here.` : '';
}

/** Markdown of a tenant's prediction. */
export function tenantHoverMarkdown(t: TenantPrediction, p: WorkloadPrediction, measured: TenantResult | undefined, run?: Results): string {
    const multi = p.tenants.length > 1;
    const lines: string[] = [`**Predicted** — ${profileLabel(p)}`, ''];
    const row = (label: string, f: TenantPrediction['solo'], m: TenantResult['solo'] | undefined, band: TenantPrediction['bandMs']['solo']) => {
        const cell = (x: number, key: 'p50' | 'p99' | 'mean') => {
            const predicted = `${formatMs(x)} (${formatBandRange(band[key])})`;
            if (!m) return predicted;
            const b = m.boundsMs[key];
            if (!b || b.high === null) return `${predicted}, measured ${key === 'mean' ? formatMs(m.latencyMs.mean) : formatNeeds(requiredSamples(key), m.requests)}`;
            return `${predicted}, measured ${formatBoundedMs(m.latencyMs[key], b.low, b.high)}, ${formatError(x, m.latencyMs[key])}`;
        };
        lines.push(`| ${label} | ${cell(f.mean, 'mean')} | ${cell(f.p50, 'p50')} | ${cell(f.p99, 'p99')} |`);
    };
    lines.push('| | mean | p50 | p99 |', '|---|---:|---:|---:|');
    row('solo', t.solo, measured?.solo ?? undefined, t.bandMs.solo);
    if (multi) row(`co-run (${p.policy})`, t.corun, measured?.corun ?? undefined, t.bandMs.corun);
    lines.push('', `Each figure with its 90 % band (${formatBand(t.band)}, ms). ${bandMeaning(t.band)} It covers the kernels' times and the host's noise${hostDriftText(p.profile)}, not the queueing model${multi ? `; the co-run ranges add how far each figure scatters over a run's requests, ${corunModelErrorText(p.profile.corunModelError)}. The co-run / solo mean's range is the co-run mean's band (the kernels' error cancels in a ratio; the host's noise between a run's two phases does not)` : ''}.${usualTailsText(p.profile)}`, '');
    lines.push(`Service ${formatMs(t.serviceMs)} ${formatBand(t.band)} per request (${t.launches} kernels, ${t.submits} submit${t.submits === 1 ? '' : 's'})` +
        (multi ? ` · co-run / solo mean ${formatMeanRatio(t.meanRatio)}` : '') +
        ` · utilisation ${formatTenantUtilisation(t, 'closed loop')}`);
    for (const s of t.slos) {
        const verdict = s.verdict === 'ok' ? '✓ met' : s.verdict === 'infeasible' ? '✗ infeasible even solo, even at the band\'s low end' : `⚠ at risk: ${sloRiskReason(s, multi)}`;
        const run = measured?.slos.find(m => m.percentile === s.percentile);
        const seen = run ? `; measured ${run.verdict === 'invalid' ? `invalid (needs ${run.requestsNeeded} requests)` : `${sloMark(run.verdict)}${run.boundsMs ? ` (${formatRange(run.boundsMs.low, run.boundsMs.high)} ms)` : ''}`}` : '';
        lines.push(`- SLO ${s.percentile} ≤ ${formatMs(s.targetMs)}: ${verdict} (predicted ${formatMs(multi ? s.corunMs : s.soloMs)}, band ${formatBandRange(multi ? s.corunBandMs : bandRange(s.soloMs, t.band.relative))} ms)${seen}`);
    }
    if (measured) lines.push(...measuredTenantLines(measured, multi ? t : undefined));
    const speed = measured ? runHostSpeed(p, run) : undefined;
    if (speed) lines.push('', runSpeedText(speed));
    return lines.join('\n');
}

/**
 * Why an SLO is at risk, in words: the figure exceeds the target, or it meets it but its band
 * straddles the target (the band's high end exceeds it).
 */
export function sloRiskReason(s: SloPrediction, multiTenant: boolean): string {
    const phase = multiTenant ? 'co-run' : 'queued';
    if (s.soloServiceMs > s.targetMs) return `the predicted solo ${s.percentile} exceeds it, but the band's low end (${formatMs(s.soloServiceBandMs.low)}) does not`;
    if (s.corunMs > s.targetMs) return `the predicted ${phase} ${s.percentile} exceeds it`;
    const band = s.corunBandMs.high > s.targetMs ? s.corunBandMs : s.soloServiceBandMs;
    return `the prediction meets it, but its 90 % band (${formatBandRange(band)} ms) straddles it`;
}

/** What the latest run measured of a tenant beyond its percentiles: slowdowns with intervals, where time went, who slowed it, validity. */
function measuredTenantLines(m: TenantResult, predicted: TenantPrediction | undefined): string[] {
    const lines = ['', '**Measured** in the latest run (95 % intervals):'];
    const slowdowns = (['mean', 'p50', 'p99'] as const).flatMap(k => m.slowdown[k] ? [`${k} ${formatInterval(m.slowdown[k]!)}`] : []);
    if (slowdowns.length) lines.push(`- co-run / solo: ${slowdowns.join(' · ')}${m.noise?.low != null && m.noise.high != null ? ` — A/A noise ${formatRange(m.noise.low, m.noise.high)}` : ''}${ratioAgainstBand(m.slowdown.mean?.estimate, predicted)}`);
    const s = m.solo?.breakdown, c = m.corun?.breakdown;
    if (s && c) lines.push(`- mean latency, solo → co-run: queueing ${formatMs(s.queueingMs)} → ${formatMs(c.queueingMs)}, GPU ${formatMs(s.gpuMs)} → ${formatMs(c.gpuMs)}, host ${formatMs(s.hostMs)} → ${formatMs(c.hostMs)}`);
    for (const i of m.interference.filter(x => x.overlappedFraction > 0)) {
        lines.push(`- \`${i.aggressor}\` ran during ${formatPercent(i.overlappedFraction)} of its co-run GPU time${i.slowdown !== null ? `; its kernels took ${i.slowdown.toFixed(2)}× their solo time then` : ''}`);
    }
    if (!m.valid) lines.push(`- *not valid:* ${m.invalidReasons.join('; ')}`);
    return lines;
}

/** `; predicted mean 1.81× (1.2–3.4): inside its band`: where the measured co-run / solo mean fell against the prediction's band (the co-run mean's). */
function ratioAgainstBand(measured: number | undefined, t: TenantPrediction | undefined): string {
    if (measured === undefined || !t || !Number.isFinite(t.meanRatio.estimate)) return '';
    return `; predicted mean ${formatMeanRatio(t.meanRatio)}: ${insideBand(t.meanRatio.estimate, measured, t.corunBand.mean) ? 'inside' : 'outside'} its band`;
}

/** Markdown of a workload's device load. */
export function workloadHoverMarkdown(p: WorkloadPrediction): string {
    const lines = [`**Predicted** — ${profileLabel(p)}`, '', `Device utilisation (open-loop demand, solo speed): ${formatUtilisation(p.deviceUtilisation, p.deviceUtilisationBand)}${p.overloaded ? ' — **overloaded**' : ''}`];
    const multi = p.tenants.length > 1;
    for (const t of p.tenants) lines.push(`- \`${t.name}\`: co-run p99 ${formatMs(t.corun.p99)} (${formatBandRange(t.bandMs.corun.p99)} ms)${multi ? `, co-run / solo mean ${formatMeanRatio(t.meanRatio)}` : ''}`);
    return lines.join('\n');
}
