/** bench/gpu/run.sh's steps (bench/gpu/step.sh): what a lent GPU machine's few minutes depend on. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const STEP = resolve('bench/gpu/step.sh');

describe('bench/gpu/step.sh', () => {
    let root: string;
    beforeEach(() => {
        root = mkdtempSync(join(tmpdir(), 'gpu-step-'));
        mkdirSync(join(root, 'bench/.work'), { recursive: true });
    });
    afterEach(() => rmSync(root, { recursive: true, force: true }));

    /** Runs `script` in a shell of the project root's shape that has sourced step.sh. */
    function run(script: string): { stdout: string; stderr: string; status: number | null } {
        const r = spawnSync('bash', ['-c', `source ${JSON.stringify(STEP)}; ${script}`], { cwd: root, encoding: 'utf8', timeout: 30_000 });
        return { stdout: r.stdout, stderr: r.stderr, status: r.status };
    }

    it('writes only the command\'s output to the result file, its status lines to stderr (run.log)', () => {
        const r = run('step devices 10 echo \'{"adapters": []}\' > result.json');
        expect(r.status).toBe(0);
        expect(JSON.parse(readFileSync(join(root, 'result.json'), 'utf8'))).toEqual({ adapters: [] });
        expect(r.stderr).toMatch(/^== devices \(limit 10s\) \d\d:\d\d:\d\d, load [\d.]+\n== devices: exit 0 after \d+ s\n$/);
    });

    it('removes the suite\'s JSON before its step, so a step that writes none leaves none behind', () => {
        writeFileSync(join(root, 'bench/.work/schedules.json'), '{"from": "an earlier run"}');
        run('step schedules 10 false > schedules.md');
        expect(existsSync(join(root, 'bench/.work/schedules.json'))).toBe(false);
    });

    it('says when a step ran out of its time limit, and the script goes on', () => {
        const r = run('step slow 1 sleep 20 > slow.md; echo next');
        expect(r.stdout).toBe('next\n');
        expect(r.stderr).toMatch(/== slow: exit 124 after \d+ s \(time limit\)/);
    });
});
