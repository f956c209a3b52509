/**
 * The device limits the validator checks against (`buffer-too-large`, `out-of-memory`). Until a
 * device profile is known these are WebGPU's default limits; the prediction side replaces them
 * with a calibrated profile's real limits through `set()` (or by overriding the service).
 */

/** Limits of the device a workload will run on. */
export interface DeviceLimits {
    /** Largest storage buffer binding, bytes (WebGPU `maxStorageBufferBindingSize`). */
    maxStorageBufferBindingSize: number;
    /** Device memory, bytes, when known. */
    memoryBytes?: number;
    /** Where the figures come from, for messages: "WebGPU default limits", "profile lavapipe…". */
    source: string;
}

/** WebGPU's default `maxStorageBufferBindingSize`: 128 MiB. */
export const webGpuDefaultLimits: DeviceLimits = {
    maxStorageBufferBindingSize: 128 * 2 ** 20,
    source: 'WebGPU default limits',
};

/** Injectable holder of the current limits (services.validation.DeviceLimits). */
export class DeviceLimitsProvider {
    private limits: DeviceLimits = webGpuDefaultLimits;

    /** The limits to validate against now. */
    current(): DeviceLimits {
        return this.limits;
    }

    /** Replaces the limits (e.g. from a device profile); callers then rebuild the documents. */
    set(limits: DeviceLimits): void {
        this.limits = limits;
    }
}
