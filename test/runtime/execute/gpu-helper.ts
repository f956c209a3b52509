/**
 * GPU availability for the runtime's tests: tests that need an adapter fail (not skip) when
 * `CI` is set and none exists; locally they skip with a loud message.
 */
import { openGpu } from '../../../src/runtime/gpu/adapter.js';

/** Whether a WebGPU adapter is available (checked once per test file). */
export async function hasAdapter(): Promise<boolean> {
    const gpu = openGpu();
    const adapter = await gpu.requestAdapter();
    if (adapter) return true;
    if (process.env.CI) throw new Error('No WebGPU adapter, and CI is set: GPU tests must run in CI. Install Mesa lavapipe: scripts/setup-system.sh --gpu-only');
    console.warn('\n*** No WebGPU adapter: SKIPPING the runtime GPU tests (run scripts/setup-system.sh --gpu-only) ***\n');
    return false;
}
