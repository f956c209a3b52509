/**
 * `tenancy predict` end to end in a child process (no GPU needed): .tenancy and IR JSON input,
 * the table, --json, --profile, --workload and the exit codes of bad input.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleCli } from '../../fixtures/bundle-cli.js';
import { rescueWorkload } from '../../fixtures/rescue-workload.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { formatMs, msValue } from '../../../src/protocol/units.js';
import { defaultProfile } from '../../../src/runtime/predict/profile.js';
import { formatBand, formatBandRange } from '../../../src/language-server/prediction/format.js';
import { bandRange } from '../../../src/runtime/predict/band.js';
import { EmptyFileSystem, URI } from 'langium';
import { TextDocument } from 'langium';
import { createTenancyServices } from '../../../src/language-server/tenancy-module.js';

const root = join(import.meta.dirname, '../../..');
const node = join(root, 'node_modules/.bin/node');
const cli = join(root, 'out', 'test', `cli-predict-${process.pid}.mjs`);
const work = mkdtempSync(join(tmpdir(), 'tenancy-predict-'));
mkdirSync(join(work, '.git')); // a workspace root: no profile here

function runCli(args: string[]) {
    const r = spawnSync(node, [cli, ...args], { cwd: work, encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: join(work, 'cache') } });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
    await bundleCli(cli, root);
    writeFileSync(join(work, 'demo.tenancy'), `model m(batch = 1) {
  input x: f32[batch, 128]
  output dense(relu(dense(x, 256)), 10)
}
workload w {
  tenant a {
    model m(batch: 4)
    arrival poisson(rate: 10/s)
    slo p99 <= 0.001ms
  }
  tenant b { model m(batch: 2) }
}
`);
    const profile = { ...defaultProfile(), uncalibrated: false, key: 'k', adapter: { vendor: 'v', architecture: 'a', device: 'cli-test-device', description: 'd' } };
    writeFileSync(join(work, 'profile.json'), JSON.stringify(profile));
}, 120_000);

describe('tenancy predict', () => {
    it('prints the table for a .tenancy file with the uncalibrated label and verdicts', () => {
        const r = runCli(['predict', 'demo.tenancy', '--top', '3']);
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/uncalibrated/);
        expect(r.stdout).toMatch(/tenant\s+service\s+solo p50\s+solo p99\s+co-run p50\s+co-run p99\s+co-run\/solo mean/);
        // The co-run / solo mean carries its band, and the legend says which.
        expect(r.stdout).toMatch(/\n[ab]\s.*\d\.\d\d× \([\d.]+–[\d.]+\)/);
        expect(r.stdout).toContain("co-run/solo mean (low–high): the co-run mean over the solo mean, with the co-run mean's band");
        expect(r.stdout).toMatch(/✗ infeasible/);
        expect(r.stdout).toMatch(/top 3 ops/);
    });
    it('--json with --profile gives the prediction object; --workload filters', () => {
        const r = runCli(['predict', 'demo.tenancy', '--json', '--profile', 'profile.json', '--workload', 'w']);
        expect(r.code).toBe(0);
        const out = JSON.parse(r.stdout) as { profile: string; predictions: { workload: string; profile: { uncalibrated: boolean; device: string }; tenants: { name: string; solo: { p99: number } }[] }[] };
        expect(out.profile).toMatch(/profile\.json$/);
        expect(out.predictions).toHaveLength(1);
        expect(out.predictions[0].profile).toMatchObject({ uncalibrated: false, device: 'cli-test-device' });
        expect(out.predictions[0].tenants.map(t => t.name)).toEqual(['a', 'b']);
        expect(out.predictions[0].tenants[0].solo.p99).toBeGreaterThan(0);
        const ratio = (out.predictions[0].tenants[0] as unknown as { meanRatio: { estimate: number; low: number; high: number } }).meanRatio;
        expect(ratio.low).toBeLessThan(ratio.estimate);
        expect(ratio.high).toBeGreaterThan(ratio.estimate);
    });
    it('lists ops by their typical (median) time, as the editor shows them', () => {
        writeFileSync(join(work, 'profile-host.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(work, 'profile.json'), 'utf8')), hostMeanFactor: { gpu: 1.25, wall: 1 } }));
        const json = runCli(['predict', 'demo.tenancy', '--json', '--profile', 'profile-host.json', '--workload', 'w']);
        const ops = (JSON.parse(json.stdout) as { predictions: { tenants: { ops: { path: string; soloMs: number; soloP50Ms: number }[] }[] }[] }).predictions[0].tenants.flatMap(t => t.ops);
        const top = [...ops].sort((x, y) => y.soloP50Ms - x.soloP50Ms)[0];
        expect(top.soloP50Ms).toBeCloseTo(top.soloMs / 1.25, 9);
        const table = runCli(['predict', 'demo.tenancy', '--profile', 'profile-host.json', '-w', 'w', '--top', '1']);
        expect(table.stdout).toMatch(/top 1 ops by predicted typical \(median\) solo GPU time per request/);
        const row = table.stdout.split('\n').find(l => l.startsWith(top.path))!;
        // A calibrated profile without band evidence: the stated default band.
        expect(row.split(/\s{2,}/)[6]).toBe(`${formatMs(top.soloP50Ms)} ±40%`);
    });
    it('--json carries each op\'s band and each tenant\'s p50/p99 bands; the table shows them, from the profile\'s evidence', () => {
        const profile = JSON.parse(readFileSync(join(work, 'profile.json'), 'utf8')) as { families: Record<string, { error?: unknown }> };
        // Every family with 10 % leave-one-out error and 5 % noise: h = √(0.1² + 0.05²) = 0.1118…
        for (const f of Object.values(profile.families)) f.error = { looP90: 0.1, noiseP90: 0.05, points: 5, from: 'family' };
        writeFileSync(join(work, 'profile-band.json'), JSON.stringify(profile));
        const json = runCli(['predict', 'demo.tenancy', '--json', '--profile', 'profile-band.json', '--workload', 'w']);
        type Band = { relative: number; calibrated: boolean };
        type Range = { low: number; high: number };
        type Figures = { mean: number; p50: number; p99: number };
        const out = JSON.parse(json.stdout) as { predictions: { tenants: { name: string; serviceMs: number; band: Band; solo: Figures; corun: Figures; corunBand: Figures; opCorunTerm: number; bandMs: Record<'solo' | 'corun', Record<'mean' | 'p50' | 'p99', Range>>; ops: { path: string; soloMs: number; soloP50Ms: number; corunMs: number; band: Band; corunBand: Band }[] }[] }[] };
        const h = Math.hypot(0.1, 0.05);
        for (const t of out.predictions[0].tenants) {
            // One relative band for every launch: any combination of them keeps it.
            expect(t.band.calibrated).toBe(true);
            expect(t.band.relative).toBeCloseTo(h, 9);
            // A co-run figure's band: the tenant's, widened by how far the figure scatters over the run's requests.
            const hc = t.corunBand.p99;
            expect(hc).toBeGreaterThanOrEqual(h);
            expect(t.bandMs.corun.p99.low).toBeCloseTo(t.corun.p99 / (1 + hc), 6);
            expect(t.bandMs.corun.p99.high).toBeCloseTo(hc < 1 ? t.corun.p99 / (1 - hc) : Infinity, 6);
            // Every figure carries one: the means and p50s too, solo by the tenant's band, co-running by each figure's own.
            for (const k of ['mean', 'p50'] as const) {
                expect(t.bandMs.solo[k].low).toBeCloseTo(t.solo[k] / (1 + h), 6);
                expect(t.bandMs.solo[k].high).toBeCloseTo(t.solo[k] / (1 - h), 6);
                expect(t.bandMs.corun[k].low).toBeCloseTo(t.corun[k] / (1 + t.corunBand[k]), 6);
            }
            for (const o of t.ops.filter(x => x.soloP50Ms > 0)) expect(o.band).toEqual({ relative: expect.closeTo(h, 9), calibrated: true });
            // An op's co-run time carries its own band: its band and its tenant's co-run term (the slowdown's band: no op noise in this profile).
            expect(t.opCorunTerm).toBeCloseTo(t.corunBand.mean, 12);
            for (const o of t.ops.filter(x => x.soloP50Ms > 0)) expect(o.corunBand.relative).toBeCloseTo(Math.hypot(h, t.corunBand.mean), 9);
        }
        const table = runCli(['predict', 'demo.tenancy', '--profile', 'profile-band.json', '--workload', 'w', '--top', '3']);
        expect(table.stdout).toMatch(/ms ±11%/);
        expect(table.stdout).toMatch(/\d ms \([\d.]+–[\d.]+\)/);
        // A tenant's row: its service with the band, and both p50s and p99s with their ranges.
        const a = out.predictions[0].tenants.find(t => t.name === 'a')!;
        const cells = table.stdout.split('\n').find(l => l.startsWith('a '))!.trim().split(/\s{2,}/);
        const range = (r: Range) => `(${formatBandRange(r)})`;
        expect(cells.slice(1, 6)).toEqual([
            `${formatMs(a.serviceMs)} ±11%`,
            `${formatMs(a.solo.p50)} ${range(a.bandMs.solo.p50)}`, `${formatMs(a.solo.p99)} ${range(a.bandMs.solo.p99)}`,
            `${formatMs(a.corun.p50)} ${range(a.bandMs.corun.p50)}`, `${formatMs(a.corun.p99)} ${range(a.bandMs.corun.p99)}`,
        ]);
        expect(table.stdout).toContain('p50 and p99 (low–high), service and ops ±: the 90 % band');
        // Utilisation with its band: the device's (the open streams' bands by their share), and an open tenant's own.
        expect(table.stdout).toMatch(/device utilisation \(open-loop demand at solo speed\): [\d.]+% \([\d.]+%–[\d.]+%\)/);
        expect(table.stdout.split('\n').find(l => l.startsWith('a '))).toMatch(/ [\d.]+% \([\d.]+%–[\d.]+%\) /);
        expect(table.stdout).toContain("the co-run ranges add how far each figure scatters over a run's requests");
        // The ops' table: the co-run column with each op's co-run band, and what that band holds.
        const op = out.predictions[0].tenants.flatMap(t => t.ops).sort((x, y) => y.soloP50Ms - x.soloP50Ms)[0];
        const row = table.stdout.split('\n').find(l => l.startsWith(`${op.path} `))!.trim().split(/\s{2,}/);
        expect(row).toContain(`${formatMs(op.soloP50Ms * op.corunMs / op.soloMs)} ${formatBand(op.corunBand)}`);
        expect(table.stdout).toContain("The co-run time is the solo time × the tenant's co-run slowdown: its band adds that slowdown's (the tenant's co-run mean band) and not ops' co-run noise: this profile predates its measurement (run `tenancy calibrate`).");
        expect(table.stdout).toMatch(/the 90 % band/);
        expect(table.stdout).not.toMatch(/uncalibrated band/);
    });
    it('reads Workload IR JSON too', () => {
        const r = runCli(['predict', join(root, 'test/fixtures/ir/two-mlps.json'), '--top', '0']);
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/workload two_mlps/);
    });
    it('compares the schedules as the editor\'s hover does; --no-schedules skips it', () => {
        const r = runCli(['predict', 'demo.tenancy', '--top', '0']);
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(/schedules compared \(simulated; latencies in ms at the declared load\):\nschedule\s+a p50 · p99 ms \(SLO p99 ≤ 0\.001\)\s+b p50 · p99 ms\s+QoS-satisfied throughput/);
        for (const name of ['concurrent', 'sequential', 'layer_block(size: auto)', 'regulated(split: auto, sync: auto)']) expect(r.stdout).toMatch(new RegExp(`\\n${name.replace(/[()]/g, '\\$&')}.*`));
        expect(r.stdout).toMatch(/\nconcurrent .* — \(no load meets the SLOs\)\s+current/);
        expect(r.stdout).toMatch(/\nBest: /);
        const json = JSON.parse(runCli(['predict', 'demo.tenancy', '--json']).stdout) as { schedules: { workload: string; declared: string; current: string; schedules: { name: string }[]; hint: unknown }[] };
        expect(json.schedules[0]).toMatchObject({ workload: 'w', declared: 'concurrent', current: 'concurrent', hint: null });
        expect(json.schedules[0].schedules.map(s => s.name)).toEqual(['concurrent', 'sequential', 'layer_block(size: auto)', 'regulated(split: auto, sync: auto)']);
        // Each figure with its band; the declared schedule's row carries the very bands of the tenants' co-run figures (one rule, workload.ts corunBands).
        expect(r.stdout).toContain("Ranges: each figure's 90 % band");
        type Tenant = { name: string; corun: { p50: number; p99: number }; bandMs: { corun: Record<'p50' | 'p99', { low: number; high: number }> } };
        const both = JSON.parse(runCli(['predict', 'demo.tenancy', '--json']).stdout) as { predictions: { tenants: Tenant[] }[]; schedules: { schedules: { name: string; tenants: { name: string; p50Ms: number; p99Ms: number; bands: Record<string, number> }[] }[] }[] };
        const current = both.schedules[0].schedules.find(s => s.name === 'concurrent')!;
        for (const t of both.predictions[0].tenants) {
            const row = current.tenants.find(x => x.name === t.name)!;
            expect(row.p99Ms).toBe(t.corun.p99);
            expect(bandRange(row.p99Ms, row.bands.p99)).toEqual(t.bandMs.corun.p99);
            expect(bandRange(row.p50Ms, row.bands.p50)).toEqual(t.bandMs.corun.p50);
        }
        const concurrentRow = r.stdout.split('\n').find(l => l.startsWith('concurrent '))!;
        const b = both.predictions[0].tenants.find(t => t.name === 'b')!;
        expect(concurrentRow).toContain(`${msValue(b.corun.p50)} (${formatBandRange(b.bandMs.corun.p50)}) · ${msValue(b.corun.p99)} (${formatBandRange(b.bandMs.corun.p99)})`);
        const skipped = runCli(['predict', 'demo.tenancy', '--top', '0', '--no-schedules']);
        expect(skipped.stdout).not.toMatch(/schedules compared/);
        expect(JSON.parse(runCli(['predict', 'demo.tenancy', '--json', '--no-schedules']).stdout)).not.toHaveProperty('schedules');
    });
    it('says what the editor\'s schedule hint says (one simulation, the same figures)', async () => {
        const text = rescueWorkload();
        writeFileSync(join(work, 'rescue.tenancy'), text);
        const r = runCli(['predict', 'rescue.tenancy', '--json']);
        const hint = (JSON.parse(r.stdout) as { schedules: { hint: { schedule: string; message: string } | null }[] }).schedules[0].hint;
        expect(hint?.schedule).toBe('regulated(split: auto, sync: auto)');
        // The editor, on the same text and the same (default) profile: the CLI's empty user cache.
        const savedCache = process.env.XDG_CACHE_HOME;
        process.env.XDG_CACHE_HOME = join(work, 'cache');
        const { shared, Tenancy } = createTenancyServices(EmptyFileSystem);
        try {
            Tenancy.prediction.ScheduleHints.debounceMs = 0;
            shared.workspace.TextDocuments!.set(TextDocument.create('file:///editor/rescue.tenancy', 'tenancy', 1, text));
            await shared.workspace.DocumentBuilder.update([URI.parse('file:///editor/rescue.tenancy')], []);
            await Tenancy.prediction.ScheduleHints.idle();
        } finally {
            if (savedCache === undefined) delete process.env.XDG_CACHE_HOME; else process.env.XDG_CACHE_HOME = savedCache;
        }
        const diagnostic = shared.workspace.LangiumDocuments.getDocument(URI.parse('file:///editor/rescue.tenancy'))!.diagnostics!.find(d => d.code === 'schedule-hint');
        expect(diagnostic?.message).toBe(hint?.message);
        expect(runCli(['predict', 'rescue.tenancy', '--top', '0']).stdout).toContain(`Hint: ${hint?.message}.`);
    });
    it('every example: the tenant hint, the hover row of its schedule and `tenancy predict` give the same co-run p99 (one simulation)', async () => {
        const examples = readdirSync(join(root, 'examples')).filter(f => f.endsWith('.tenancy'));
        cpSync(join(root, 'examples'), join(work, 'examples'), { recursive: true });
        type Predicted = { workload: string; tenants: { name: string; corun: { p99: number } }[] };
        type Compared = { workload: string; current: string; schedules: { name: string; tenants: { name: string; p99Ms: number }[] }[] };
        const cliFigures = new Map<string, number>();
        for (const file of examples) {
            const r = runCli(['predict', join(work, 'examples', file), '--json', '--top', '0']);
            expect(r.code, r.stderr).toBe(0);
            const out = JSON.parse(r.stdout) as { predictions: Predicted[]; schedules: Compared[] };
            out.predictions.forEach((p, i) => {
                const row = out.schedules[i].schedules.find(s => s.name === out.schedules[i].current)!;
                for (const t of p.tenants) {
                    // The prediction's co-run p99 is its schedule's row in the comparison.
                    expect(t.corun.p99, `${file} ${p.workload}/${t.name}`).toBe(row.tenants.find(x => x.name === t.name)!.p99Ms);
                    cliFigures.set(`${file}/${p.workload}/${t.name}`, t.corun.p99);
                }
            });
        }
        // The editor on the same texts and the same (default) profile: the CLI's empty user cache.
        const savedCache = process.env.XDG_CACHE_HOME;
        process.env.XDG_CACHE_HOME = join(work, 'cache');
        const { shared, Tenancy } = createTenancyServices(EmptyFileSystem);
        try {
            Tenancy.prediction.ScheduleHints.debounceMs = 0;
            for (const file of examples) shared.workspace.TextDocuments!.set(TextDocument.create(`file:///editor/${file}`, 'tenancy', 1, readFileSync(join(root, 'examples', file), 'utf8')));
            await shared.workspace.DocumentBuilder.update(examples.map(f => URI.parse(`file:///editor/${f}`)), []);
            await Tenancy.prediction.ScheduleHints.idle();
            let checked = 0;
            for (const file of examples) {
                const document = shared.workspace.LangiumDocuments.getDocument(URI.parse(`file:///editor/${file}`))!;
                const end = document.textDocument.positionAt(document.textDocument.getText().length);
                const labels = ((await Tenancy.lsp.InlayHintProvider!.getInlayHints(document, { textDocument: { uri: document.uri.toString() }, range: { start: { line: 0, character: 0 }, end } })) ?? [])
                    .map(h => (typeof h.label === 'string' ? h.label : h.label.map(part => part.value).join('')));
                const text = document.textDocument.getText();
                for (const workload of (document.parseResult.value as unknown as { elements: { $type: string; name: string }[] }).elements.filter(e => e.$type === 'Workload')) {
                    const view = Tenancy.prediction.Predictions.forWorkload(workload as never)!;
                    expect(view.prediction.corunPending).toBe(false);
                    const offset = text.indexOf('schedule ', text.indexOf(`workload ${workload.name} `));
                    const hover = await Tenancy.lsp.HoverProvider!.getHoverContent(document, { textDocument: { uri: document.uri.toString() }, position: document.textDocument.positionAt(offset) });
                    const current = ((hover?.contents as { value: string }).value.split('\n').find(l => /\| current( \(auto's choice\))?(, best.*)? \|$/.test(l)))!;
                    expect(current, `${file} ${workload.name}: the hover's current row`).toBeDefined();
                    for (const t of view.prediction.tenants) {
                        const cli = cliFigures.get(`${file}/${workload.name}/${t.name}`)!;
                        expect(t.corun.p99, `${file} ${workload.name}/${t.name}`).toBe(cli);
                        expect(labels.some(l => l.includes(`p99 ${formatMs(cli)}`)), `${file} ${workload.name}/${t.name}: a tenant hint with p99 ${formatMs(cli)} among ${labels.join(' | ')}`).toBe(true);
                        expect(current).toContain(msValue(cli));
                        checked++;
                    }
                }
            }
            expect(checked).toBeGreaterThanOrEqual(10);
        } finally {
            if (savedCache === undefined) delete process.env.XDG_CACHE_HOME; else process.env.XDG_CACHE_HOME = savedCache;
        }
    }, 120_000);
    it('bad input: unknown workload, broken profile, document errors → exit 1 with a clear message', () => {
        const missing = runCli(['predict', 'demo.tenancy', '--workload', 'nope']);
        expect(missing.code).toBe(1);
        expect(missing.stderr).toMatch(/no workload 'nope'.*found: w/);
        writeFileSync(join(work, 'bad-profile.json'), '{"schemaVersion": 9}');
        const badProfile = runCli(['predict', 'demo.tenancy', '--profile', 'bad-profile.json']);
        expect(badProfile.code).toBe(1);
        expect(badProfile.stderr).toMatch(/found schemaVersion 9, expected 1/);
        writeFileSync(join(work, 'broken.tenancy'), 'workload w { tenant a { model nope() } }\n');
        const broken = runCli(['predict', 'broken.tenancy']);
        expect(broken.code).toBe(1);
        expect(broken.stderr).toMatch(/broken\.tenancy:1/);
        const usage = runCli(['predict', 'demo.tenancy', '--top', '-1']);
        expect(usage.code).toBe(64);
    });
});
