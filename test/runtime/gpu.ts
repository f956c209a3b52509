/// <reference types="@webgpu/types" />
/**
 * Shared GPU test helpers. `probeAdapter()` decides whether GPU tests can run: with no WebGPU
 * adapter they FAIL when the environment variable CI is set, and otherwise skip with a loud
 * message. `openKernelDevice()` gives each test file its own adapter + device (one adapter
 * makes one device); call `close()` in afterAll. The create() handle is never kept globally.
 */
import { create, globals } from 'webgpu';
import { kernelDeviceDescriptor, KernelPipelines } from '../../src/runtime/gpu/harness.js';
import { capsFromDevice } from '../../src/runtime/gpu/adapter.js';
import type { DeviceCaps } from '../../src/runtime/kernels/kernel.js';

/** Dawn flags: exact timestamps, no robustness (faster, as the runtime runs). */
export const DAWN_FLAGS = ['disable-dawn-features=timestamp_quantization', 'enable-dawn-features=allow_unsafe_apis,disable_robustness'];

function installGlobals(): void {
    if (!process.env.XDG_RUNTIME_DIR) process.env.XDG_RUNTIME_DIR = '/tmp';
    Object.assign(globalThis, globals);
}

/** True when an adapter exists; throws under CI when none does; warns loudly otherwise. */
export async function probeAdapter(): Promise<boolean> {
    installGlobals();
    let adapter: GPUAdapter | null = null;
    let why = '';
    try {
        adapter = await create(DAWN_FLAGS).requestAdapter();
    } catch (e) {
        why = ` (${(e as Error).message})`;
    }
    if (adapter) return true;
    const msg = `No WebGPU adapter found${why}: GPU kernel tests cannot run. Install a Vulkan driver (README.md, "GPU adapter setup": scripts/setup-system.sh --gpu-only installs Mesa's lavapipe from bookworm-backports).`;
    if (process.env.CI) throw new Error(`${msg} CI is set, so this is a failure.`);
    console.warn(`\n*** SKIPPING GPU TESTS *** ${msg}\n`);
    return false;
}

/** A device for kernel tests, with its caps and a pipeline cache. */
export interface KernelTestDevice {
    device: GPUDevice;
    caps: DeviceCaps;
    pipelines: KernelPipelines;
    close(): void;
}

/** Opens a fresh adapter + device with the limits the kernels use. */
export async function openKernelDevice(): Promise<KernelTestDevice> {
    installGlobals();
    // Keep the GPU instance reachable while the device lives (its collection tears Dawn down).
    let gpu: GPU | undefined = create(DAWN_FLAGS);
    const adapter = await gpu.requestAdapter();
    if (!adapter) throw new Error('no WebGPU adapter (probeAdapter said there was one)');
    const device = await adapter.requestDevice(kernelDeviceDescriptor(adapter, 'kernel-tests'));
    return {
        device, caps: capsFromDevice(device), pipelines: new KernelPipelines(device),
        close: () => { device.destroy(); gpu = undefined; },
    };
}
