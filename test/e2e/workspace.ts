/** Builds a fresh test workspace: the examples, a file with a mistake, short benchmark settings. */
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { projectRoot, workRoot } from './code-server.js';

/** Sized to run in seconds on a software adapter; its ops are defined in the file, so inline figures appear. */
export const exampleName = 'quick-start.tenancy';
export const resultsName = 'quick-start.quick_start.json';
/** The example whose schedule line gets a hint (sequential; regulated predicted to meet vision's SLO). */
export const hintExampleName = 'schedule-hint.tenancy';

/** The workspace's settings: a short run (`durationSeconds`), and a comparison of the workload's schedule with the one the hint suggests. */
export function writeSettings(dir: string, durationSeconds: number): void {
    writeFileSync(path.join(dir, '.vscode', 'settings.json'), JSON.stringify({
        'tenancy.run.duration': durationSeconds, 'tenancy.compare.schedules': ['regulated(split: auto, sync: auto)'],
    }, null, 2));
}

export function makeWorkspace(): string {
    mkdirSync(workRoot, { recursive: true });
    const dir = mkdtempSync(path.join(workRoot, 'ws-'));
    for (const name of [exampleName, hintExampleName]) copyFileSync(path.join(projectRoot, 'examples', name), path.join(dir, name));
    writeFileSync(path.join(dir, 'typo.tenancy'), `model broken(batch = 1) {
  input x: f32[batch, 16]
  output relu(dense_layer(x, 8))
}
`);
    mkdirSync(path.join(dir, '.vscode'), { recursive: true });
    // A short run: the e2e checks the flow, not the numbers.
    writeSettings(dir, 1);
    // A marker so that the CLI's workspace rule (nearest .tenancy/.git/...) picks this folder.
    mkdirSync(path.join(dir, '.tenancy'), { recursive: true });
    return dir;
}
