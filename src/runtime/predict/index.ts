/**
 * The prediction model: device profile, launch plan, latency, contention and queueing. Pure
 * functions (no webgpu); the language server, `tenancy predict` and `tenancy run` import this.
 * File access to profiles lives in ./profile-store.ts (node:fs, still no webgpu).
 */
export * from './profile.js';
export * from './latency.js';
export * from './contention.js';
export * from './queueing.js';
export * from './workload.js';
export * from './band.js';
