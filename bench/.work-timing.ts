import { performance } from 'node:perf_hooks';
import { createHash } from 'node:crypto';
import { loadAllWorkloadIrs } from '../src/cli/load-workspace.js';
import { locateProfile } from '../src/runtime/predict/profile-store.js';
import { PlanCache } from '../src/runtime/plan/plan.js';
import { compareSchedules, CANDIDATE_SCHEDULES } from '../src/runtime/predict/schedules.js';
const profile = locateProfile(undefined).profile;
const irs = [];
for (const f of ['quick-start', 'vision-and-nlp', 'schedules', 'zoo-mix']) irs.push(...await loadAllWorkloadIrs(`examples/${f}.tenancy`));
const cache = new PlanCache();
const hash = createHash('sha256');
const times: number[] = [];
for (let rep = 0; rep < Number(process.argv[2] ?? 3); rep++) {
  const t0 = performance.now(); const c0 = process.threadCpuUsage();
  for (const ir of irs) { const e = compareSchedules(ir, profile, CANDIDATE_SCHEDULES, { cache }); if (rep === 0) hash.update(JSON.stringify(e)); }
  const c = process.threadCpuUsage(c0); times.push((c.user + c.system) / 1000);
}
console.log(process.argv[3] ?? '', hash.digest('hex').slice(0, 16), times.map(t => t.toFixed(0)).join(' '));
