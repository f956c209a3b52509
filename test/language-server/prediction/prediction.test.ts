import { formatBoundedMs } from '../../../src/protocol/figures.js';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument, URI, type LangiumDocument } from 'langium';
import { NodeFileSystem } from 'langium/node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Diagnostic, InlayHint } from 'vscode-languageserver';
import { IssueCodes } from '../../../src/language-server/validation/issue-codes.js';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';
import { defaultProfile, profileKey, type DeviceProfile } from '../../../src/runtime/predict/profile.js';
import { bandRange } from '../../../src/runtime/predict/band.js';
import { formatBand, formatBandRange, formatError, formatSlowdown } from '../../../src/language-server/prediction/format.js';
import { formatMs, formatPercent } from '../../../src/protocol/units.js';
import { makeResults, tenantResult } from '../../fixtures/results/make-results.js';

let dir: string;
let savedCache: string | undefined;
let services: ReturnType<typeof createTenancyServices>['Tenancy'];

beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tenancy-prediction-'));
    mkdirSync(path.join(dir, '.tenancy'), { recursive: true });
    // The user cache of this machine must not leak into the tests.
    savedCache = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = path.join(dir, 'cache');
    services = createTenancyServices(NodeFileSystem).Tenancy;
    // As after the client's `initialized` (no workspace/configuration support: settings come by push).
    void services.shared.workspace.ConfigurationProvider.initialized({});
});
afterEach(() => {
    if (savedCache === undefined) delete process.env.XDG_CACHE_HOME; else process.env.XDG_CACHE_HOME = savedCache;
    rmSync(dir, { recursive: true, force: true });
});

const model = `model m(batch = 1) {
  input x: f32[batch, 256]
  h = relu(dense(x, 512))
  output dense(h, 64)
}
`;

/** Writes a file and opens it in the editor (TextDocuments: its co-run figures are simulated by the check), built as didOpen does. */
async function open(text: string, name = 'demo.tenancy'): Promise<LangiumDocument> {
    const file = path.join(dir, name);
    writeFileSync(file, text);
    const uri = URI.file(file);
    services.shared.workspace.TextDocuments!.set(TextDocument.create(uri.toString(), 'tenancy', 1, text));
    const document = await services.shared.workspace.LangiumDocumentFactory.fromUri(uri);
    services.shared.workspace.LangiumDocuments.addDocument(document);
    await services.shared.workspace.DocumentBuilder.build([document], { validation: true });
    return document;
}

async function rebuild(document: LangiumDocument): Promise<void> {
    await services.shared.workspace.DocumentBuilder.update([document.uri], []);
}

const codes = (d: LangiumDocument, code: string): Diagnostic[] => (d.diagnostics ?? []).filter(x => x.code === code || (x.data as { code?: string } | undefined)?.code === code);

function errors(d: LangiumDocument): string[] {
    return (d.diagnostics ?? []).filter(x => x.severity === 1).map(x => `${x.range.start.line}: ${x.message}`);
}

async function hoverAt(d: LangiumDocument, needle: string, offsetInNeedle = 0): Promise<string> {
    const offset = d.textDocument.getText().indexOf(needle) + offsetInNeedle;
    const hover = await services.lsp.HoverProvider!.getHoverContent(d, { textDocument: { uri: d.uri.toString() }, position: d.textDocument.positionAt(offset) });
    const contents = hover?.contents as { value?: string } | undefined;
    return contents?.value ?? '';
}

async function hints(d: LangiumDocument): Promise<InlayHint[]> {
    const end = d.textDocument.positionAt(d.textDocument.getText().length);
    return (await services.lsp.InlayHintProvider!.getInlayHints(d, { textDocument: { uri: d.uri.toString() }, range: { start: { line: 0, character: 0 }, end } })) ?? [];
}

const label = (h: InlayHint) => (typeof h.label === 'string' ? h.label : h.label.map(p => p.value).join(''));

function predictionOf(d: LangiumDocument) {
    const root = d.parseResult.value as unknown as { elements: { $type: string }[] };
    const w = root.elements.find(e => e.$type === 'Workload');
    return services.prediction.Predictions.forWorkload(w as never)!.prediction;
}

/** A block repeated three times: line 2 (its dense) has three op instances in tenant a. */
const repeatedBlock = `model blk(c) {
  input x: f32[n, c]
  output relu(dense(x, c))
}
model r(batch = 1) {
  input x: f32[batch, 64]
  output repeat 3 blk(x, c: 64)
}
workload w { tenant a { model r(batch: 4) } }
`;

describe('prediction diagnostics', () => {
    it('slo-infeasible when the predicted solo latency exceeds the SLO; none when it fits', async () => {
        const d = await open(`${model}
workload w {
  tenant a {
    model m(batch: 8)
    slo p99 <= 0.001ms
  }
  tenant b {
    model m(batch: 1)
    slo p99 <= 10s
  }
}
`);
        expect(errors(d)).toEqual([]);
        const infeasible = codes(d, IssueCodes.SloInfeasible);
        expect(infeasible).toHaveLength(1);
        expect(infeasible[0].severity).toBe(2);
        expect(infeasible[0].range.start.line).toBe(9);
        expect(infeasible[0].message).toMatch(/uncalibrated/);
        expect(codes(d, IssueCodes.SloAtRisk)).toEqual([]);
        expect(codes(d, IssueCodes.Overloaded)).toEqual([]);
    });

    /** Opens workload w with tenant a on an open stream of `rate`, and `more` members after it. */
    const openStream = (rate: string, more = '') => open(`${model}
workload w {
  tenant a {
    model m(batch: 8)
    arrival poisson(rate: ${rate})
  }
${more}}
`);

    it('overloaded when open-loop arrivals exceed the device', async () => {
        const d = await openStream('100000/s');
        const over = codes(d, IssueCodes.Overloaded);
        expect(over).toHaveLength(1);
        // The utilisation with its 90 % band.
        expect(over[0].message).toMatch(/^Predicted device utilisation [\d.]+% \([\d.]+%–([\d.]+%|∞)\): the open-loop arrivals/);
        expect(predictionOf(d).deviceUtilisation).toBeGreaterThan(1);
    });

    it('a tenant\'s utilisation in its hover: an open stream\'s with its band, a closed loop\'s without', async () => {
        const d = await openStream('10/s', '  tenant b { model m(batch: 8) }\n');
        const [a, b] = predictionOf(d).tenants;
        const range = bandRange(a.corunUtilisation, Math.hypot(a.band.relative, a.opCorunTerm));
        expect(await hoverAt(d, 'tenant a', 7)).toContain(` · utilisation ${formatPercent(a.corunUtilisation)} (${formatPercent(range.low)}–${formatPercent(range.high)})`);
        expect(await hoverAt(d, 'tenant b', 7)).toContain(` · utilisation ${formatPercent(b.corunUtilisation)} (closed loop)`);
    });

    it('slo-at-risk when the co-run latency (not the solo one) exceeds the SLO', async () => {
        const base = await open(`${model}
workload w {
  tenant a { model m(batch: 8) }
  tenant b { model m(batch: 8) }
}
`, 'probe.tenancy');
        const t = predictionOf(base).tenants[0];
        expect(t.corun.mean).toBeGreaterThan(t.solo.mean * 1.2);
        const target = (t.serviceMs * 1.1 + t.corun.mean) / 2;
        const d = await open(`${model}
workload w {
  tenant a {
    model m(batch: 8)
    slo mean <= ${target.toFixed(4)}ms
  }
  tenant b { model m(batch: 8) }
}
`);
        expect(codes(d, IssueCodes.SloInfeasible)).toEqual([]);
        const risk = codes(d, IssueCodes.SloAtRisk);
        expect(risk).toHaveLength(1);
        expect(risk[0].range.start.line).toBe(9);
    });

    it('the band decides: infeasible only beyond its low end, at risk when it straddles the SLO (and the message says so)', async () => {
        const probe = await open(`${model}
workload w { tenant a { model m(batch: 8) } }
`, 'probe.tenancy');
        const t = predictionOf(probe).tenants[0];
        // The uncalibrated default band: ±40%, a figure x spans [x/1.4, x/0.6].
        expect(t.band.relative).toBeCloseTo(0.4, 9);
        let n = 0;
        const withSlo = (target: number) => open(`${model}
workload w {
  tenant a {
    model m(batch: 8)
    slo mean <= ${target.toFixed(5)}ms
  }
}
`, `slo${n++}.tenancy`);
        // Below the prediction but above the band's low end: at risk, not infeasible.
        const between = await withSlo(t.serviceMs / 1.2);
        expect(codes(between, IssueCodes.SloInfeasible)).toEqual([]);
        const exceeds = codes(between, IssueCodes.SloAtRisk);
        expect(exceeds).toHaveLength(1);
        expect(exceeds[0].message).toMatch(/at risk: the predicted solo mean exceeds it, but the band's low end \([\d.]+ (ms|µs)\) does not/);
        // Below even the low end: infeasible, said so.
        const below = codes(await withSlo(t.serviceMs / 1.6), IssueCodes.SloInfeasible);
        expect(below).toHaveLength(1);
        expect(below[0].message).toMatch(/even at its 90 % band's low end [\d.]+ (ms|µs) \(±40%, uncalibrated band\)/);
        // Above the prediction, inside the band: at risk, the band straddles it.
        const straddle = await withSlo(t.corun.mean * 1.3);
        const risk = codes(straddle, IssueCodes.SloAtRisk);
        expect(risk).toHaveLength(1);
        expect(risk[0].message).toMatch(/the prediction meets it, but its 90 % band \([\d.]+–[\d.]+ ms\) straddles it/);
        // Above the band's high end: no diagnostic.
        expect(codes(await withSlo(t.corun.mean * 1.8), IssueCodes.SloAtRisk)).toEqual([]);
    });

    it('a workload with errors gets no prediction diagnostics', async () => {
        const d = await open(`${model}
workload w {
  tenant a {
    model nope(batch: 8)
    slo p99 <= 0.001ms
  }
}
`);
        expect(errors(d).length).toBeGreaterThan(0);
        expect(codes(d, IssueCodes.SloInfeasible)).toEqual([]);
    });
});

describe('hover and inlay hints', () => {
    const two = `${model}
workload w {
  tenant a {
    model m(batch: 8)
    slo p99 <= 1s
  }
  tenant b { model m(batch: 4) }
}
`;
    it('hover on an op shows FLOPs, bytes, intensity, bound and predicted time per tenant', async () => {
        const d = await open(two);
        const text = await hoverAt(d, 'dense(x, 512)');
        expect(text).toMatch(/Predicted/);
        expect(text).toMatch(/uncalibrated/);
        expect(text).toMatch(/\| a \|/);
        expect(text).toMatch(/\| b \|/);
        expect(text).toMatch(/FLOP/);
        expect(text).toMatch(/compute|memory/);
        expect(text).toMatch(/dense\.vec4/);
    });

    it('hover on a tenant shows solo and co-run p50/p99, utilisation and the SLO verdict', async () => {
        const d = await open(two);
        const text = await hoverAt(d, 'tenant a', 7);
        expect(text).toMatch(/\| solo \|/);
        expect(text).toMatch(/co-run \(concurrent\)/);
        expect(text).toMatch(/utilisation/);
        expect(text).toMatch(/SLO p99 ≤ 1 s: ✓ met/);
    });

    it('inlay hints per op line and per tenant', async () => {
        const d = await open(two);
        const all = await hints(d);
        const byLine = new Map(all.map(h => [h.position.line, label(h)]));
        expect(byLine.get(2)).toMatch(/≈.*ms|≈.*µs/); // h = relu(dense(x, 512))
        expect(byLine.get(3)).toMatch(/≈/);           // output dense(h, 64)
        expect(byLine.get(7)).toMatch(/p50 .* p99 .* co-run/);
        expect(byLine.get(11)).toMatch(/p99/);
    });

    it('a line of a repeated block sums its instances and says how many', async () => {
        const d = await open(repeatedBlock);
        expect(errors(d)).toEqual([]);
        const line2 = (await hints(d)).find(h => h.position.line === 2);
        expect(line2 && label(line2)).toMatch(/≈.* in 3 instances/);
    });

    it('inlay hints can be switched off with tenancy.inlayHints.enabled', async () => {
        const d = await open(two);
        const config = services.shared.workspace.ConfigurationProvider as unknown as { updateConfiguration(change: { settings: unknown }): void };
        config.updateConfiguration({ settings: { tenancy: { inlayHints: { enabled: false } } } });
        expect(await hints(d)).toEqual([]);
    });
});

describe('device profile and measured figures', () => {
    function calibrated(factor: number): DeviceProfile {
        const p = defaultProfile();
        for (const fam of Object.values(p.families)) for (const pt of fam.points) pt.ms *= factor;
        return { ...p, uncalibrated: false, key: 'test-key', adapter: { vendor: 'mesa', architecture: 'software', device: 'llvmpipe-test', description: 'test' }, createdAt: new Date().toISOString(), limits: { ...p.limits, maxStorageBufferBindingSize: 1 << 20 } };
    }

    it('uses the workspace profile, re-reads it when it changes, and hands its limits to buffer-too-large', async () => {
        const file = path.join(dir, '.tenancy', 'device-profile.json');
        writeFileSync(file, JSON.stringify(calibrated(1)));
        const d = await open(`${model}
workload w { tenant a { model m(batch: 8) } }
`);
        expect(await hoverAt(d, 'tenant a', 7)).toMatch(/calibrated on llvmpipe-test/);
        const before = predictionOf(d).tenants[0].gpuMs;
        // A slower device: every curve point 3× longer; the mtime moves, the next build re-reads it.
        writeFileSync(file, JSON.stringify(calibrated(3)));
        const later = new Date(Date.now() + 5000);
        utimesSync(file, later, later);
        await rebuild(d);
        expect(predictionOf(d).tenants[0].gpuMs).toBeGreaterThan(before * 2);
        expect(services.validation.DeviceLimits.current().maxStorageBufferBindingSize).toBe(1 << 20);
        expect(services.validation.DeviceLimits.current().source).toMatch(/llvmpipe-test/);
    });

    /** Writes the latest results of workload w beside the document and lets the server reload them. */
    async function measure(d: LangiumDocument, tenants: ReturnType<typeof tenantResult>[], status: 'complete' | 'cancelled' = 'complete', referenceRequestMs?: number): Promise<void> {
        const file = path.join(dir, '.tenancy', 'results', 'demo.w.json');
        mkdirSync(path.dirname(file), { recursive: true });
        const results = makeResults(d.uri.toString(), 'w', tenants, undefined, status);
        if (referenceRequestMs !== undefined) results.host.referenceRequestMs = referenceRequestMs;
        writeFileSync(file, JSON.stringify(results));
        services.results.ResultsWatch.invalidate([pathToFileURL(file).toString()]);
        await rebuild(d);
    }

    const hintAt = async (d: LangiumDocument, line: number) => {
        const h = (await hints(d)).find(x => x.position.line === line);
        return h ? label(h) : undefined;
    };

    it('shows measured figures beside predictions, matched by op path, with the error', async () => {
        const d = await open(`${model}
workload w {
  tenant a { model m(batch: 8) }
}
`);
        const p = predictionOf(d);
        const op = p.tenants[0].ops[0];
        const uri = d.uri.toString();
        expect(await hintAt(d, 2)).toBe(` ≈${formatMs(op.soloMs)}? ±40%`); // the uncalibrated default band
        // The measured op sits on another line (as after an edit): matching is by path, not by line.
        await measure(d, [tenantResult('a', { requests: 50, soloBase: p.tenants[0].solo.mean * 1.25, corunBase: p.tenants[0].solo.mean * 1.25, uri, ops: [{ path: op.path, line: 40, soloMs: op.soloMs * 2, corunMs: op.soloMs * 3 }] })]);
        const hover = await hoverAt(d, 'dense(x, 512)');
        expect(hover).toContain(`| ${formatMs(op.soloMs * 2)} (−50%) | ${formatMs(op.soloMs * 3)}, 1.50× (${formatError(op.corunMs, op.soloMs * 3)}) |`);
        const tenantHover = await hoverAt(d, 'tenant a', 7);
        expect(tenantHover).toMatch(/measured/);
        // One view: the measured solo time with the error of the (solo) prediction shown, then co-run and slowdown.
        expect(await hintAt(d, 2)).toBe(` ≈${formatMs(op.soloMs)}? ±40% · measured ${formatMs(op.soloMs * 2)} (−50%, outside band) · co-run ${formatMs(op.soloMs * 3)}, 1.50× solo (outside band)`);
        expect(await hintAt(d, 3)).toBe(` ≈${formatMs(p.tenants[0].ops[1].soloMs)}? ±40%`); // not measured: the prediction alone
    });

    it('hovers say what the run measured with its intervals: slowdowns, where time went, who slowed whom, validity', async () => {
        const d = await open(`${model}
workload w {
  tenant a { model m(batch: 8) slo p99 <= 1ms }
  tenant b { model m(batch: 8) }
}
`);
        const op = predictionOf(d).tenants[0].ops[0];
        const a = tenantResult('a', { requests: 100, soloBase: 5, corunBase: 10, slo: { percentile: 'p99', targetMs: 1 }, uri: d.uri.toString(), ops: [{ path: op.path, line: 2, soloMs: 1, corunMs: 2 }] });
        a.ops[0]!.attribution = { overlappedFraction: 0.63, overlappedP50Ms: 2.1, aloneP50Ms: 1.1, by: [{ tenant: 'b', op: 'b/m/dense.0', fraction: 0.63, p50Ms: 2.1 }] };
        a.interference = [{ aggressor: 'b', overlappedFraction: 0.63, slowdown: 2.1 }];
        await measure(d, [a]);
        const tenant = await hoverAt(d, 'tenant a', 7);
        expect(tenant).toMatch(/\*\*Measured\*\* in the latest run \(95 % intervals\):/);
        expect(tenant).toMatch(/co-run \/ solo: mean 1\.\d\d× slower \([\d.]+–[\d.]+\) · p50 1\.\d\d× slower/);
        expect(tenant).toMatch(/mean latency, solo → co-run: queueing 0\.5\d* ms → 1\.\d* ms, GPU/);
        expect(tenant).toContain('`b` ran during 63% of its co-run GPU time; its kernels took 2.10× their solo time then');
        expect(tenant).toContain("the co-run ranges add how far each figure scatters over a run's requests, not the co-run model's error (this profile predates its measurement: run `tenancy calibrate`)");
        // 100 requests bound a p99 from below only: the violated SLO is proven, and p99 is not shown as a number.
        expect(tenant).toMatch(/SLO p99 ≤ 1(\.00)? ms: .*; measured ✗ \(≥ [\d.]+ ms\)/);
        const opHover = await hoverAt(d, 'dense(x, 512)');
        expect(opHover).toContain('Co-run in the latest run (times over its median solo time):');
        expect(opHover).toContain('- `a`: 2.10× while b/m/dense.0 ran (63% of its time), 1.10× otherwise');
        // The predicted co-run / solo mean with its band, and where the measured one fell against it.
        const ratio = predictionOf(d).tenants[0].meanRatio;
        const predicted = `${formatSlowdown(ratio.estimate)} (${formatBandRange(ratio)})`;
        expect(tenant).toContain(`· co-run / solo mean ${predicted} ·`);
        expect(tenant).toContain("The co-run / solo mean's range is the co-run mean's band");
        const measuredAt = async (estimate: number) => {
            a.slowdown.mean = { ...a.slowdown.mean!, estimate };
            await measure(d, [a]);
            return (await hoverAt(d, 'tenant a', 7)).split('\n').find(l => l.startsWith('- co-run / solo:'));
        };
        expect(await measuredAt(ratio.estimate * 1.01)).toMatch(/^- co-run \/ solo: mean .*; predicted mean .*: inside its band$/);
        expect(await measuredAt(ratio.estimate * 1.01)).toContain(`; predicted mean ${predicted}: inside its band`);
        expect(await measuredAt(ratio.high * 1.5)).toMatch(/: outside its band$/);
        const workloadHover = await hoverAt(d, 'workload w', 9);
        expect(workloadHover).toContain(`- \`a\`: co-run p99 `);
        expect(workloadHover).toContain(`, co-run / solo mean ${predicted}`);
    });

    /** Opens workload w of two tenants a and b, both the same model. */
    const openPair = () => open(`${model}
workload w {
  tenant a { model m(batch: 8) }
  tenant b { model m(batch: 8) }
}
`);

    /** Writes `profile` with band evidence in every family (h = √(0.1² + 0.033²) = 10.5 %) and opens workload w of one tenant a (or what `opened` opens). */
    async function openWithBands(profile: DeviceProfile, opened?: () => Promise<LangiumDocument>): Promise<LangiumDocument> {
        for (const fam of Object.values(profile.families)) fam.error = { looP90: 0.1, noiseP90: 0.033, points: 5, from: 'family' };
        writeFileSync(path.join(dir, '.tenancy', 'device-profile.json'), JSON.stringify(profile));
        if (opened) return opened();
        return open(`${model}
workload w {
  tenant a { model m(batch: 8) }
}
`);
    }

    it('co-running, an op\'s co-run time carries its own band: the op\'s, the slowdown\'s and ops\' co-run noise; after a run the hint says where the measurement fell', async () => {
        const d = await openWithBands({ ...calibrated(1), corunOpNoise: { p90: 0.3, points: 33 } }, openPair);
        const t = predictionOf(d).tenants[0];
        const op = t.ops[0];
        const corun = op.soloP50Ms * op.corunMs / op.soloMs;
        const h = op.corunBand.relative;
        expect(h).toBeCloseTo(Math.hypot(Math.hypot(0.1, 0.033), t.corunBand.mean, 0.3), 9);
        const hover = await hoverAt(d, 'dense(x, 512)');
        expect(hover).toContain(`| ${formatMs(op.soloP50Ms)} ±11% | ${formatMs(corun)} ${formatBand(op.corunBand)} |`);
        expect(hover).toContain("The co-run time is the solo time × the tenant's co-run slowdown: its band adds that slowdown's (the tenant's co-run mean band) and how far an op's co-run median moved between short co-runs calibration ran (±30%).");
        // Measured co-running just inside the band's edge, then just outside it: (predicted − measured) / measured = ∓0.9 h.
        const at = (measured: number) => tenantResult('a', { requests: 50, soloBase: 5, corunBase: 6, uri: d.uri.toString(), ops: [{ path: op.path, line: 2, soloMs: op.soloP50Ms, corunMs: measured, soloP50Ms: op.soloP50Ms, corunP50Ms: measured }] });
        await measure(d, [at(corun / (1 - 0.9 * h))]);
        expect(await hintAt(d, 2)).toMatch(/ · co-run [\d.]+ (ms|µs), [\d.]+× solo \(inside band\) \(a; 1 more tenant\)$/);
        const tooltip = (await hints(d)).find(x => x.position.line === 2)!.tooltip as { value: string };
        expect(tooltip.value).toContain(`— predicted ${formatMs(corun)} ${formatBand(op.corunBand)}, error ${formatError(corun, corun / (1 - 0.9 * h))}, inside the band`);
        await measure(d, [at(corun / (1 - 1.1 * h))]);
        expect(await hintAt(d, 2)).toMatch(/ · co-run [\d.]+ (ms|µs), [\d.]+× solo \(outside band\) \(a; 1 more tenant\)$/);
    });

    /** Tenant a's results with one op measured at `ms` (typical and mean, solo and co-run). */
    const opMeasuredAt = (d: LangiumDocument, path: string, ms: number) =>
        tenantResult('a', { requests: 50, soloBase: 5, corunBase: 6, uri: d.uri.toString(), ops: [{ path, line: 2, soloMs: ms, corunMs: ms, soloP50Ms: ms, corunP50Ms: ms }] });

    it('a calibrated band: the hint shows it, the hover says what it means, the measured time is inside or outside it', async () => {
        const d = await openWithBands(calibrated(1));
        const op = predictionOf(d).tenants[0].ops[0];
        // h = √(0.1² + 0.033²) = 10.5 %.
        expect(await hintAt(d, 2)).toBe(` ≈${formatMs(op.soloP50Ms)} ±11%`);
        const hover = await hoverAt(d, 'dense(x, 512)');
        expect(hover).toContain(`| ${formatMs(op.soloP50Ms)} ±11% |`);
        expect(hover).toContain("±11% is the 90 % band: on this profile's own calibration points, 90 % of measured times fell within that error of the prediction");
        const tenant = await hoverAt(d, 'tenant a', 7);
        expect(tenant).toMatch(/Each figure with its 90 % band \(±1\d%, ms\)/);
        // The mean, p50 and p99 each with its range; the service with the tenant's band.
        const t = predictionOf(d).tenants[0];
        expect(tenant).toContain(`| solo | ${formatMs(t.solo.mean)} (${formatBandRange(t.bandMs.solo.mean)}) | ${formatMs(t.solo.p50)} (${formatBandRange(t.bandMs.solo.p50)}) | ${formatMs(t.solo.p99)} (${formatBandRange(t.bandMs.solo.p99)}) |`);
        expect(tenant).toContain(`Service ${formatMs(t.serviceMs)} ${formatBand(t.band)} per request`);
        expect(tenant).not.toContain('co-run ranges'); // alone: no co-run row
        expect(await hintAt(d, 7)).toMatch(/^ ≈ p50 [\d.]+ (ms|µs) \([\d.]+–[\d.]+\) · p99 [\d.]+ (ms|µs) \([\d.]+–[\d.]+\) solo$/);
        // Measured 5 % above the prediction: error −4.8 %, inside; 20 % above: −17 %, outside.
        await measure(d, [opMeasuredAt(d, op.path, op.soloP50Ms * 1.05)]);
        expect(await hintAt(d, 2)).toContain(` ≈${formatMs(op.soloP50Ms)} ±11% · measured ${formatMs(op.soloP50Ms * 1.05)} (${formatError(op.soloP50Ms, op.soloP50Ms * 1.05)}, inside band) · co-run`);
        await measure(d, [opMeasuredAt(d, op.path, op.soloP50Ms * 1.2)]);
        expect(await hintAt(d, 2)).toContain(` ≈${formatMs(op.soloP50Ms)} ±11% · measured ${formatMs(op.soloP50Ms * 1.2)} (${formatError(op.soloP50Ms, op.soloP50Ms * 1.2)}, outside band) · co-run`);
    });

    it('the host\'s speed in a run: the hint\'s tooltip and the hovers set the measurement beside the prediction at that speed', async () => {
        // The profile of the adapter the results name, its reference request 2 ms; the run timed it at 1.6 ms: the host ran at 0.8× the profile's times.
        const adapter = { vendor: 'mesa', architecture: 'software', device: 'llvmpipe', description: 'llvmpipe (LLVM 19)' };
        const profile = { ...calibrated(1), adapter, key: profileKey(adapter), hostSpeedProbeMs: 2 };
        const d = await openWithBands(profile);
        const op = predictionOf(d).tenants[0].ops[0];
        const ms = op.soloP50Ms * 0.8;
        const run = [opMeasuredAt(d, op.path, ms)];
        await measure(d, run, 'complete', 1.6);
        // The hint grades the prediction as shown: 25 % high, outside its ±11 % band.
        expect(await hintAt(d, 2)).toContain(`measured ${formatMs(ms)} (+25%, outside band)`);
        const tooltip = async () => ((await hints(d)).find(x => x.position.line === 2)!.tooltip as { value: string }).value;
        expect(await tooltip()).toContain(`- at the host's speed in that run (0.80× the profile's: its reference request took ${formatMs(1.6)} against ${formatMs(2)}): predicted ${formatMs(ms)} ±11%, error +0%, inside the band`);
        const speed = `In the latest run the host ran at 0.80× the profile's times (the reference request, timed before the run: ${formatMs(1.6)} against ${formatMs(2)}): at that speed every kernel's predicted time is × 0.80.`;
        expect(await hoverAt(d, 'dense(x, 512)')).toContain(speed);
        expect(await hoverAt(d, 'tenant a', 7)).toContain(speed);
        // A run that did not time it, or one on another adapter: nothing said.
        await measure(d, run);
        expect(await tooltip()).not.toContain("at the host's speed in that run");
        expect(await hoverAt(d, 'dense(x, 512)')).not.toContain('In the latest run the host ran');
        const file = path.join(dir, '.tenancy', 'device-profile.json');
        writeFileSync(file, JSON.stringify({ ...profile, key: 'another-adapter' }));
        const later = new Date(Date.now() + 5000);
        utimesSync(file, later, later);
        await measure(d, run, 'complete', 1.6);
        expect(predictionOf(d).profile.key).toBe('another-adapter');
        expect(await tooltip()).not.toContain("at the host's speed in that run");
    });

    it('co-run ranges with the co-run model error calibration measured: the hover says so and the range is that much wider', async () => {
        const profile = calibrated(1);
        for (const fam of Object.values(profile.families)) fam.error = { looP90: 0.1, noiseP90: 0.033, points: 5, from: 'family' };
        writeFileSync(path.join(dir, '.tenancy', 'device-profile.json'), JSON.stringify({ ...profile, corunModelError: { excessP90: 0.4, points: 30 } }));
        const d = await open(`${model}
workload w {
  tenant a { model m(batch: 8) arrival poisson(rate: 20/s) }
  tenant b { model m(batch: 8) }
}
`);
        const tenant = await hoverAt(d, 'tenant a', 7);
        expect(tenant).toContain("the co-run ranges add how far each figure scatters over a run's requests, and the co-run model's error calibration measured on co-runs of its own (±40%)");
        const t = predictionOf(d).tenants[0];
        expect(t.corunBand.p99).toBeGreaterThanOrEqual(Math.hypot(t.band.relative, 0.4) - 1e-12);
    });

    it('bands with the host\'s drift between calibrations, times at its usual speed: the hover says so and every band is that much wider', async () => {
        const profile = calibrated(1);
        for (const fam of Object.values(profile.families)) fam.error = { looP90: 0.1, noiseP90: 0.033, points: 5, from: 'family' };
        // Calibrated at 2.5 ms against earlier calibrations at 2.5, 1.6, 2 and 2.2 ms: the usual speed is their median with it, 2.2 ms
        // (times × 0.88); predicted at 2.2 ms, a figure measured at those moments is off by −12 %, +37.5 %, +10 %, 0: the 90th percentile of |error| is 29.85 %.
        const history = [2.5, 1.6, 2, 2.2].map((probeMs, i) => ({ createdAt: `2026-12-0${i + 1}T00:00:00.000Z`, probeMs }));
        writeFileSync(path.join(dir, '.tenancy', 'device-profile.json'), JSON.stringify({ ...profile, hostSpeedProbeMs: 2.5, hostSpeedHistory: history }));
        const d = await open(`${model}
workload w {
  tenant a { model m(batch: 8) arrival poisson(rate: 20/s) }
}
`);
        const tenant = await hoverAt(d, 'tenant a', 7);
        const drift = "how far the host's speed moves from its usual speed (±30% over 4 earlier calibrations of this adapter here). " +
            "Every time is at that usual speed, the median of 5 calibrations (by their reference request): the latest calibration's times × 0.88";
        expect(tenant).toContain(`It covers the kernels' times and the host's noise, and ${drift}, not the queueing model`);
        // An op's hover says what its band holds, the drift too.
        expect(await hoverAt(d, 'dense(x, 512)')).toContain(`the host's run-to-run noise added, and ${drift}.`);
        const t = predictionOf(d).tenants[0];
        expect(t.band.relative).toBeGreaterThanOrEqual(0.2985);
        expect(t.ops.find(o => o.launches.length > 0)!.band.relative).toBeCloseTo(Math.hypot(Math.hypot(0.1, 0.033), 0.2985), 9);
        // The op line's hint and the op hover's row show that band, the drift in it (√(0.105² + 0.2985²) = 31.6 %).
        expect(await hintAt(d, 2)).toMatch(/ ±32%$/);
        expect(await hoverAt(d, 'dense(x, 512)')).toMatch(/\| [\d.]+ (ms|µs) ±32% \|/);
        expect(predictionOf(d).profile.usualSpeed).toEqual({ factor: expect.closeTo(0.88, 12), calibrations: 5, by: 'reference request' });
    });

    it('the host\'s usual tails: the median of its calibrations\' stalls, said in the tenant\'s hover', async () => {
        const profile = calibrated(1);
        for (const fam of Object.values(profile.families)) fam.error = { looP90: 0.1, noiseP90: 0.033, points: 5, from: 'family' };
        const tail = (p99: number) => ({ p90: p99 / 4, p95: p99 / 2, p99 });
        // Earlier calibrations at the same speed with co-run tails of 16, 17.5 and 8 ms at p99; this one 4 ms: the median, 12 ms.
        const history = [16, 17.5, 8].map((p99, i) => ({ createdAt: `2026-12-0${i + 1}T00:00:00.000Z`, probeMs: 2, corunTailMs: tail(p99), serviceTailMs: tail(1) }));
        writeFileSync(path.join(dir, '.tenancy', 'device-profile.json'), JSON.stringify({ ...profile, hostSpeedProbeMs: 2, hostSpeedHistory: history, corunTailMs: tail(4), serviceTailMs: tail(1) }));
        const d = await open(`${model}
workload w {
  tenant a { model m(batch: 8) arrival poisson(rate: 20/s) }
  tenant b { model m(batch: 8) }
}
`);
        expect(predictionOf(d).profile.usualTails).toEqual({ calibrations: 4 });
        expect(await hoverAt(d, 'tenant a', 7)).toContain("The host's stalls in the p99s (its tail beyond a request's body, alone and beside a co-runner) are the median of 4 calibrations' here.");
    });

    it('bands before the host\'s drift is known: the hover says they leave it out and how to measure it', async () => {
        const profile = calibrated(1);
        for (const fam of Object.values(profile.families)) fam.error = { looP90: 0.1, noiseP90: 0.033, points: 5, from: 'family' };
        const history = [2.5, 1.6].map((probeMs, i) => ({ createdAt: `2026-12-0${i + 1}T00:00:00.000Z`, probeMs }));
        writeFileSync(path.join(dir, '.tenancy', 'device-profile.json'), JSON.stringify({ ...profile, hostSpeedProbeMs: 2, hostSpeedHistory: history }));
        const d = await open(`${model}
workload w {
  tenant a { model m(batch: 8) arrival poisson(rate: 20/s) }
}
`);
        const pending = "not yet how far the host's speed moves between calibrations (2 earlier calibrations of this adapter here, 3 needed: run `tenancy calibrate` again at another time;";
        expect(await hoverAt(d, 'tenant a', 7)).toContain(`It covers the kernels' times and the host's noise, ${pending}`);
        expect(await hoverAt(d, 'dense(x, 512)')).toContain(`the host's run-to-run noise added, ${pending}`);
        expect(predictionOf(d).tenants[0].band.relative).toBeCloseTo(Math.hypot(0.1, 0.033), 9);
    });

    it('compares typical (median) op times, measured and predicted', async () => {
        // A host whose mean GPU time is 1.25× the median: an op's typical time is its mean prediction / 1.25.
        writeFileSync(path.join(dir, '.tenancy', 'device-profile.json'), JSON.stringify({ ...calibrated(1), hostMeanFactor: { gpu: 1.25, wall: 1 } }));
        const d = await open(`${model}
workload w {
  tenant a { model m(batch: 8) }
}
`);
        const op = predictionOf(d).tenants[0].ops[0];
        expect(op.soloP50Ms).toBeCloseTo(op.soloMs / 1.25, 9);
        expect(await hintAt(d, 2)).toBe(` ≈${formatMs(op.soloP50Ms)} ±40%?`); // calibrated, but without band evidence: the default band, marked
        const before = await hoverAt(d, 'dense(x, 512)');
        expect(before).toContain('typical (median) GPU time per request, predicted');
        // The kernels' times are their shares of the typical time too, each with its band.
        expect(before).toContain(`Kernels: \`${op.launches[0].name}\` ${formatMs(op.launches[0].ms / 1.25)} ${formatBand(op.launches[0].band)}`);
        const uri = d.uri.toString();
        // One stalled pass doubled the op's mean; its median is the typical time.
        await measure(d, [tenantResult('a', { requests: 50, soloBase: 5, corunBase: 6, uri, ops: [{
            path: op.path, line: 2, soloMs: op.soloP50Ms * 2, corunMs: op.soloP50Ms * 2.5, soloP50Ms: op.soloP50Ms * 1.1, corunP50Ms: op.soloP50Ms * 1.32,
        }] })]);
        expect(await hintAt(d, 2)).toBe(` ≈${formatMs(op.soloP50Ms)} ±40%? · measured ${formatMs(op.soloP50Ms * 1.1)} (${formatError(op.soloP50Ms, op.soloP50Ms * 1.1)}, inside band) · co-run ${formatMs(op.soloP50Ms * 1.32)}, 1.20× solo (inside band)`);
        const hover = await hoverAt(d, 'dense(x, 512)');
        expect(hover).toContain(`| ${formatMs(op.soloP50Ms)} ±40% | ${formatMs(op.soloP50Ms * op.corunMs / op.soloMs)} ±40% | ${formatMs(op.soloP50Ms * 1.1)} (${formatError(op.soloP50Ms, op.soloP50Ms * 1.1)}) |`);
        expect(hover).toContain('typical (median) GPU time per request, predicted; measured in the latest run');
    });

    it('sums a repeated line over its instances, the same figure in the hint and in the hover total', async () => {
        const d = await open(repeatedBlock);
        const ops = predictionOf(d).tenants[0].ops.filter(o => o.source?.start.line === 2);
        expect(ops).toHaveLength(3);
        await measure(d, [tenantResult('a', { requests: 10, soloBase: 5, corunBase: 5, uri: d.uri.toString(), ops: ops.map((o, i) => ({ path: o.path, line: 2, soloMs: 1 + i, corunMs: 2 + 2 * i })) })]);
        // 1 + 2 + 3 = 6 ms solo, 2 + 4 + 6 = 12 ms co-run: means per request, summed over the line's instances.
        const predicted = ops.reduce((s, o) => s + o.soloMs, 0);
        expect(await hintAt(d, 2)).toBe(` ≈${formatMs(predicted)}? ±40% · measured 6 ms (${formatError(predicted, 6)}, outside band) · co-run 12 ms, 2.00× solo (outside band) in 3 instances`);
        const hover = await hoverAt(d, 'dense(x, c)');
        expect(hover).toContain(`| **a, 3 instances** | | | | | ${formatMs(predicted)} ±40% |`);
        expect(hover).toContain(`| 6 ms (${formatError(predicted, 6)}) | 12 ms, 2.00× (`);
        expect(hover).toMatch(/\| a · blk\.1 \|/);
    });

    it('never counts a measured op on the line of an op the run fused into it', async () => {
        const d = await open(`${model}
workload w { tenant a { model m(batch: 8) } }
`);
        const [first, second] = predictionOf(d).tenants[0].ops;
        // As if the run had fused the second dense into the first: its time is in the first op's figure.
        const results = tenantResult('a', { requests: 10, soloBase: 5, corunBase: 5, uri: d.uri.toString(), ops: [{ path: first.path, line: 2, soloMs: 1, corunMs: 1 }] });
        results.ops[0]!.fused = [second.path];
        await measure(d, [results]);
        expect(await hintAt(d, 2)).toMatch(/ · measured 1 ms /);
        expect(await hintAt(d, 3)).toBe(` ≈${formatMs(second.soloMs)}? ±40% · run fused it into ${first.path.split('/').pop()}`);
    });

    it('grades the co-run prediction when the run has no solo time, and marks a cancelled run', async () => {
        const d = await openPair();
        const op = predictionOf(d).tenants[0].ops[0];
        const a = tenantResult('a', { requests: 10, soloBase: 5, corunBase: 5, uri: d.uri.toString(), ops: [{ path: op.path, line: 2, soloMs: 1, corunMs: 2 }] });
        a.ops[0]!.soloMs = null;
        a.ops[0]!.soloP50Ms = null;
        await measure(d, [a], 'cancelled');
        expect(await hintAt(d, 2)).toBe(` ≈${formatMs(op.soloMs)}? ±40% · measured co-run 2 ms (${formatError(op.corunMs, 2)}, outside band) (cancelled run) (a; 1 more tenant)`);
    });

    it('compares a tenant\'s measured p99 with the prediction of the phase it was measured in', async () => {
        const d = await openPair();
        const t = predictionOf(d).tenants[0];
        const solo = tenantResult('a', { requests: 400, soloBase: 5, corunBase: 5, uri: d.uri.toString() });
        await measure(d, [{ ...solo, corun: null }]);
        const m = solo.solo!.latencyMs.p99, b = solo.solo!.boundsMs.p99!;
        // A solo run (▶ Run solo) of a co-running workload: graded against the solo prediction, and labelled solo; the measured p99 with its 95 % bounds.
        const word = (range: { low: number; high: number }, x: number) => (x >= range.low && x <= range.high ? 'inside' : 'outside');
        expect(await hintAt(d, 7)).toBe(` ≈ p50 ${formatMs(t.corun.p50)} (${formatBandRange(t.bandMs.corun.p50)}) · p99 ${formatMs(t.corun.p99)} (${formatBandRange(t.bandMs.corun.p99)}) co-run (uncalibrated) · measured p99 ${formatBoundedMs(m, b.low, b.high)} solo (${formatError(t.solo.p99, m)}, ${word(t.bandMs.solo.p99, m)} band)`);
        // Measured where predicted: inside; at twice the band's high end: outside.
        // (400 latencies from the base up by 0.01 ms: their p99 lies 3.95 ms above it.)
        for (const [at, expected] of [[t.solo.p99 - 3.95, 'inside'], [2 * t.bandMs.solo.p99.high - 3.95, 'outside']] as const) {
            const scaled = tenantResult('a', { requests: 400, soloBase: at, corunBase: at, uri: d.uri.toString() });
            await measure(d, [{ ...scaled, corun: null }]);
            const p99 = scaled.solo!.latencyMs.p99;
            expect(word(t.bandMs.solo.p99, p99)).toBe(expected);
            expect(await hintAt(d, 7)).toMatch(new RegExp(`, ${expected} band\\)$`));
        }
        // From 100 requests a p99 cannot be bounded: the hint shows the highest percentile they bound (p95) and what p99 needs.
        const few = { ...tenantResult('a', { requests: 100, soloBase: 5, corunBase: 5, uri: d.uri.toString() }), corun: null };
        await measure(d, [few]);
        const p95 = few.solo!.latencyMs.p95, b95 = few.solo!.boundsMs.p95!;
        expect(few.solo!.boundedUpTo).toBe('p95');
        expect(await hintAt(d, 7)).toBe(` ≈ p50 ${formatMs(t.corun.p50)} (${formatBandRange(t.bandMs.corun.p50)}) · p99 ${formatMs(t.corun.p99)} (${formatBandRange(t.bandMs.corun.p99)}) co-run (uncalibrated) · measured p95 ${formatBoundedMs(p95, b95.low, b95.high)} solo; p99 n/a: needs 299 requests (has 100)`);
        // From 20 requests only the median is bounded: graded against the predicted median.
        const fewer = { ...tenantResult('a', { requests: 20, soloBase: 5, corunBase: 5, uri: d.uri.toString() }), corun: null };
        await measure(d, [fewer]);
        const p50 = fewer.solo!.latencyMs.p50, b50 = fewer.solo!.boundsMs.p50!;
        expect(fewer.solo!.boundedUpTo).toBe('p50');
        expect(await hintAt(d, 7)).toMatch(` · measured p50 ${formatBoundedMs(p50, b50.low, b50.high)} solo (${formatError(t.solo.p50, p50)}, ${word(t.bandMs.solo.p50, p50)} band); p99 n/a: needs 299 requests (has 20)`);
    });
});

describe('workloads beyond what the editor predicts', () => {
    it('more tenants than the limit: an info diagnostic says so, and no prediction runs', async () => {
        const tenants = Array.from({ length: 300 }, (_, i) => `  tenant t${i} { model m(batch: ${1 + (i % 4)}) arrival poisson(rate: 1/s) slo p99 <= 1ms }`).join('\n');
        const started = performance.now();
        const document = await open(`${model}workload many {\n${tenants}\n}\n`);
        expect(performance.now() - started).toBeLessThan(20_000);
        expect(codes(document, IssueCodes.TimeLimit).map(d => [d.severity, d.message])).toEqual([[3,
            "No predictions in the editor for this workload: 300 tenants, more than the 256 predicted in the editor (the prediction's cost grows with them)."]]);
        expect(codes(document, IssueCodes.SloAtRisk).length + codes(document, IssueCodes.SloInfeasible).length).toBe(0);
    });

    it('a billion closed-loop clients: said, not computed (the closed-loop model is linear in clients)', async () => {
        const started = performance.now();
        const document = await open(`${model}workload crowd { tenant t { model m() arrival closed(clients: 999999999) } }\n`);
        expect(performance.now() - started).toBeLessThan(20_000);
        expect(codes(document, IssueCodes.TimeLimit).map(d => d.message)).toEqual([
            "No predictions in the editor for this workload: tenant t has 999999999 closed-loop clients, more than the 100000 predicted in the editor (the prediction's cost grows with them)."]);
    });
});

describe('slowdowns of an overloaded co-run (found by the fuzzer)', () => {
    it('writes ∞× where the simulation never drains, never Infinity', () => {
        expect(formatSlowdown(Number.POSITIVE_INFINITY)).toBe('∞×');
        expect(formatSlowdown(1.234)).toBe('1.23×');
        expect(formatSlowdown(12.34)).toBe('12.3×');
    });
});
