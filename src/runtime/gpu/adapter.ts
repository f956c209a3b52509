/**
 * Adapter and device acquisition on Dawn's Node bindings (`webgpu`). One adapter creates one
 * device, so every tenant gets its own adapter → device → queue. The `create()` handle is never
 * kept in a module global (Node would not exit); callers own it and drop it when done.
 */
import { create, globals } from 'webgpu';
import type { AdapterPreference } from '../../protocol/adapter.js';
import type { DeviceCaps } from '../kernels/kernel.js';
import { dawnPollingFromEnvironment, setDawnPolling } from './dawn-polling.js';

export type { AdapterPreference };

/** Dawn toggles: unquantised timestamps (else ~65 µs steps); robustness off (5–10% on lavapipe). */
export const DAWN_TOGGLES = [
    'disable-dawn-features=timestamp_quantization',
    'enable-dawn-features=allow_unsafe_apis,disable_robustness',
];

/** Raised when no WebGPU adapter is available; the CLI exits with code 2. */
export class NoAdapterError extends Error {
    constructor(detail: string) {
        super(`${detail}. Tenancy needs a WebGPU adapter (a GPU driver with Vulkan, Metal or D3D12, or a software one). ` +
            'On Linux without a GPU, install Mesa lavapipe: run `scripts/setup-system.sh --gpu-only` (see README, "GPU").');
        this.name = 'NoAdapterError';
    }
}

/** Plain, serialisable adapter information. */
export interface AdapterInfo {
    vendor: string;
    architecture: string;
    device: string;
    description: string;
    isFallbackAdapter: boolean;
    features: string[];
}

/** Opens Dawn with the project's toggles; the caller keeps the handle only while it needs it. */
export function openGpu(toggles: readonly string[] = DAWN_TOGGLES): GPU {
    if (!process.env.XDG_RUNTIME_DIR) {
        // Silences a harmless "XDG_RUNTIME_DIR is invalid or not set" from the Vulkan loader.
        process.env.XDG_RUNTIME_DIR = process.env.TMPDIR ?? '/tmp';
    }
    Object.assign(globalThis, globals);
    // Dawn's busy polling would otherwise stall the measurements (dawn-polling.ts).
    setDawnPolling(dawnPollingFromEnvironment());
    return create([...toggles]);
}

/** What WebGPU is asked for, per preference word (the language's spelling; WebGPU's differs). */
const requestOptions: Record<AdapterPreference, GPURequestAdapterOptions> = {
    auto: {},
    high_performance: { powerPreference: 'high-performance' },
    low_power: { powerPreference: 'low-power' },
    fallback: { forceFallbackAdapter: true },
};

/** Requests an adapter or throws NoAdapterError. */
export async function requestAdapter(gpu: GPU, preference: AdapterPreference = 'auto'): Promise<GPUAdapter> {
    const adapter = await gpu.requestAdapter(requestOptions[preference]);
    if (!adapter) throw new NoAdapterError(`No WebGPU adapter found (preference: ${preference})`);
    return adapter;
}

/** The adapter's identity and features as plain data. */
export function adapterInfo(adapter: GPUAdapter): AdapterInfo {
    const info = adapter.info;
    return {
        vendor: info.vendor ?? '',
        architecture: info.architecture ?? '',
        device: info.device ?? '',
        description: info.description ?? '',
        isFallbackAdapter: Boolean((info as { isFallbackAdapter?: boolean }).isFallbackAdapter ?? (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter),
        features: [...adapter.features].map(String).sort(),
    };
}

/** The adapter's limits as plain data (for `tenancy devices`). */
export function adapterLimits(adapter: GPUAdapter): Record<string, number> {
    const out: Record<string, number> = {};
    const limits = adapter.limits as unknown as Record<string, unknown>;
    for (const key of Object.keys(Object.getPrototypeOf(limits) ?? {}).concat(Object.keys(limits))) {
        const v = limits[key];
        if (typeof v === 'number') out[key] = v;
    }
    return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/** Limits a tenant device asks for at the adapter's maximum (the defaults are far lower on most adapters). */
const RAISED_LIMITS = [
    'maxStorageBufferBindingSize', 'maxBufferSize', 'maxStorageBuffersPerShaderStage',
    'maxComputeWorkgroupStorageSize', 'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX',
    'maxComputeWorkgroupSizeY', 'maxComputeWorkgroupSizeZ', 'maxComputeWorkgroupsPerDimension',
] as const;

/** A device for one tenant, on its own fresh adapter. */
export interface TenantDevice {
    adapter: AdapterInfo;
    device: GPUDevice;
    /** Whether GPU timestamps are available (timestamp-query). */
    timestamps: boolean;
}

/** Requests a fresh adapter and a device with timestamps (when offered) and raised limits. */
export async function requestTenantDevice(gpu: GPU, preference: AdapterPreference, label: string, options: { timestamps?: boolean } = {}): Promise<TenantDevice> {
    const adapter = await requestAdapter(gpu, preference);
    const info = adapterInfo(adapter);
    const requiredFeatures: GPUFeatureName[] = [];
    const timestamps = (options.timestamps ?? true) && adapter.features.has('timestamp-query');
    if (timestamps) requiredFeatures.push('timestamp-query');
    if (adapter.features.has('shader-f16')) requiredFeatures.push('shader-f16');
    // The sg_* GEMM variants need subgroups (capsFromDevice reads the size).
    if (adapter.features.has('subgroups')) requiredFeatures.push('subgroups');
    const requiredLimits: Record<string, number> = {};
    for (const key of RAISED_LIMITS) requiredLimits[key] = (adapter.limits as unknown as Record<string, number>)[key];
    const device = await adapter.requestDevice({ label, requiredFeatures, requiredLimits });
    return { adapter: info, device, timestamps };
}

/** Every distinct adapter the preferences reach (for `tenancy devices`). */
export async function listAdapters(gpu: GPU): Promise<{ preference: AdapterPreference; info: AdapterInfo; limits: Record<string, number> }[]> {
    const found: { preference: AdapterPreference; info: AdapterInfo; limits: Record<string, number> }[] = [];
    const seen = new Set<string>();
    for (const preference of ['high_performance', 'low_power', 'fallback'] as const) {
        const adapter = await gpu.requestAdapter(requestOptions[preference]);
        if (!adapter) continue;
        const info = adapterInfo(adapter);
        const key = JSON.stringify([info.vendor, info.architecture, info.device, info.description, info.isFallbackAdapter]);
        if (seen.has(key)) continue;
        seen.add(key);
        found.push({ preference, info, limits: adapterLimits(adapter) });
    }
    return found;
}

/** The device's limits and features, as the generators see them. */
export function capsFromDevice(device: GPUDevice): DeviceCaps {
    const l = device.limits;
    return {
        maxComputeWorkgroupSizeX: l.maxComputeWorkgroupSizeX,
        maxComputeWorkgroupSizeY: l.maxComputeWorkgroupSizeY,
        maxComputeWorkgroupSizeZ: l.maxComputeWorkgroupSizeZ,
        maxComputeInvocationsPerWorkgroup: l.maxComputeInvocationsPerWorkgroup,
        maxComputeWorkgroupStorageSize: l.maxComputeWorkgroupStorageSize,
        maxComputeWorkgroupsPerDimension: l.maxComputeWorkgroupsPerDimension,
        maxStorageBufferBindingSize: l.maxStorageBufferBindingSize,
        maxStorageBuffersPerShaderStage: l.maxStorageBuffersPerShaderStage,
        maxBufferSize: l.maxBufferSize,
        shaderF16: device.features.has('shader-f16'),
        ...fixedSubgroupSize(device),
    };
}

/** The device's subgroup size when it has subgroups of one fixed size (min = max), else nothing. */
function fixedSubgroupSize(device: GPUDevice): { subgroupSize?: number } {
    if (!device.features.has('subgroups')) return {};
    const info = (device as { adapterInfo?: { subgroupMinSize?: number; subgroupMaxSize?: number } }).adapterInfo;
    const min = info?.subgroupMinSize, max = info?.subgroupMaxSize;
    return typeof min === 'number' && min > 0 && min === max ? { subgroupSize: min } : {};
}
