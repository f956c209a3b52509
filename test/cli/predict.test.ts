/**
 * `tenancy predict` simulates each workload's declared schedule once: the simulations it runs
 * (simulate.ts's `simulate`, wrapped to count its calls) are those of the schedule comparison
 * alone, whose declared row gives the co-run figures; with `--no-schedules`, those of the
 * declared schedule's evaluation alone. Loading the file simulates nothing.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { runPredict } from '../../src/cli/commands/predict.js';
import { loadWorkspace } from '../../src/cli/load-workspace.js';
import { compareWorkloadSchedules } from '../../src/language-server/prediction/schedule-comparison.js';
import type { WorkloadIR } from '../../src/runtime/ir/types.js';
import { locateProfile } from '../../src/runtime/predict/profile-store.js';
import { declaredEvaluation } from '../../src/runtime/predict/schedules.js';
import { workspaceFolderOf } from '../../src/runtime/report/write.js';
import { rescueWorkload } from '../fixtures/rescue-workload.js';

const simulations = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../src/runtime/predict/simulate.js', async original => {
    const real = await original<typeof import('../../src/runtime/predict/simulate.js')>();
    return {
        ...real,
        simulate: (...args: Parameters<typeof real.simulate>) => {
            simulations.count++;
            return real.simulate(...args);
        },
    };
});

/** Simulations a call runs. */
function counted<T>(run: () => T): { value: T; simulations: number } {
    const before = simulations.count;
    const value = run();
    return { value, simulations: simulations.count - before };
}

/** Two tenants with SLOs under a schedule: a candidate's, one that is not a candidate, a searched one, auto. */
const workload = (name: string, schedule: string) => rescueWorkload({ name, schedule });

let dir: string;
let file: string;
let irs: WorkloadIR[];
const savedCache = process.env.XDG_CACHE_HOME;
beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'tenancy-predict-'));
    mkdirSync(path.join(dir, '.git')); // a workspace root of its own
    // The default profile: no user cache of this machine, no workspace profile.
    process.env.XDG_CACHE_HOME = path.join(dir, 'cache');
    file = path.join(dir, 'mix.tenancy');
    writeFileSync(file, [
        workload('sequential_mix', 'sequential'), workload('fixed_blocks', 'layer_block(size: 4)'),
        workload('searched', 'regulated(split: auto, sync: auto)'), workload('chosen', 'auto'),
    ].join('\n'));
    const workspace = await loadWorkspace([file], { predictions: false });
    irs = workspace.workloads(file).map(w => workspace.lower(w.name, file));
}, 120_000);
afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    if (savedCache === undefined) delete process.env.XDG_CACHE_HOME; else process.env.XDG_CACHE_HOME = savedCache;
});

/** Runs `tenancy predict --json` on the file; its output and the simulations it ran. */
async function predict(schedules: boolean): Promise<{ output: { predictions: { workload: string; corunSchedule: string | null }[] }; simulations: number }> {
    const out: string[] = [];
    const before = simulations.count;
    const code = await runPredict(file, { json: true, top: '0', schedules }, text => out.push(text), line => { throw new Error(`unexpected stderr: ${line}`); });
    expect(code).toBe(0);
    return { output: JSON.parse(out.join('\n')), simulations: simulations.count - before };
}

describe('tenancy predict', () => {
    test('its checks predict nothing when loaded for predict; they do for check', async () => {
        let before = simulations.count;
        const quiet = await loadWorkspace([file], { predictions: false });
        expect(simulations.count - before).toBe(0);
        expect(quiet.diagnostics.filter(d => d.code === 'slo-at-risk')).toEqual([]);
        before = simulations.count;
        const checked = await loadWorkspace([file]);
        expect(simulations.count - before).toBeGreaterThan(0);
        expect(checked.diagnostics.filter(d => d.code === 'slo-at-risk').length).toBeGreaterThan(0);
    }, 120_000);

    test('with the comparison: the declared schedule is its row, simulated once (the comparison\'s simulations, no more)', async () => {
        const profile = locateProfile(workspaceFolderOf(file)).profile;
        const comparisons = irs.map(ir => counted(() => compareWorkloadSchedules(ir, profile)));
        const run = await predict(true);
        expect(run.simulations).toBe(comparisons.reduce((sum, c) => sum + c.simulations, 0));
        expect(run.output.predictions.map(p => p.corunSchedule)).toEqual(comparisons.map(c => c.value.current!.resolved.name));
    }, 120_000);

    test('--no-schedules: the declared schedule\'s evaluation alone', async () => {
        const profile = locateProfile(workspaceFolderOf(file)).profile;
        const declared = irs.map(ir => counted(() => declaredEvaluation(ir, profile)));
        const run = await predict(false);
        expect(run.simulations).toBe(declared.reduce((sum, d) => sum + d.simulations, 0));
        expect(run.output.predictions.map(p => p.corunSchedule)).toEqual(declared.map(d => d.value.resolved.name));
        // A schedule run as written is one simulation; a searched one more.
        expect(declared.map(d => d.simulations > 1)).toEqual([false, false, true, true]);
    }, 120_000);
});
