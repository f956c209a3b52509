import { loadAllWorkloadIrs } from '../src/cli/load-workspace.js';
for (const f of ['quick-start', 'zoo-mix']) {
  const irs = await loadAllWorkloadIrs(`examples/${f}.tenancy`);
  for (const ir of irs) for (const t of ir.tenants) console.log(t.name, t.graph.ops.length, t.graph.ops.slice(0, 6).map(o => o.path + ':' + o.kind).join(' '));
}
