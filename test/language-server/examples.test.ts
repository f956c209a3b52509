import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { formatDiagnostic, loadWorkspace } from '../../src/cli/load-workspace.js';
import { validateWorkloadIr } from '../../src/runtime/ir/validate.js';

/** Every .tenancy file under examples/ (imports included). */
function examples(dir = 'examples'): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap(e =>
        e.isDirectory() ? examples(join(dir, e.name)) : e.name.endsWith('.tenancy') ? [join(dir, e.name)] : []);
}

describe('examples', () => {
    test.each(examples())('%s has no errors and every workload lowers to valid IR', async file => {
        const workspace = await loadWorkspace([file]);
        expect(workspace.diagnostics.filter(d => d.severity === 'error').map(formatDiagnostic)).toEqual([]);
        for (const w of workspace.workloads(file)) {
            const ir = workspace.lower(w.name, file);
            const v = validateWorkloadIr(JSON.parse(JSON.stringify(ir)));
            expect(v.ok ? [] : v.issues, `${file} ${w.name}`).toEqual([]);
        }
    });
});
