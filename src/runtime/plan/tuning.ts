/**
 * The tuning seam: which kernel variant an op uses on an adapter. The best variant is a
 * property of the adapter (one matmul's variants span 25× on the software adapter, in an order a
 * GPU with fast workgroup memory need not share: BENCHMARKS.md, "Kernels"), so choices are keyed by the adapter's identity
 * (vendor/architecture/device/driver description) and the op's signature (kind, shapes,
 * epilogue). Calibration (`tenancy calibrate`) fills a cache; without an entry the kernel
 * generator's default variant is used. Pure.
 */
import { z } from 'zod';
import type { Epilogue } from '../kernels/kernel.js';
import type { IrOp } from '../ir/types.js';

/** Identity of an adapter for tuning purposes. */
export interface AdapterIdentity {
    vendor: string;
    architecture: string;
    device: string;
    /** The adapter description (carries the driver version on most backends). */
    description: string;
}

/** "vendor/architecture/device/description": the key a tuning cache is stored under. */
export function adapterKey(adapter: AdapterIdentity): string {
    return [adapter.vendor, adapter.architecture, adapter.device, adapter.description].map(s => s || '?').join('/');
}

/** The op signature a tuned choice applies to: equal signatures take the same variant. */
export function opSignature(op: IrOp, inputShapes: number[][], outputShape: number[], epilogue: readonly Epilogue[]): string {
    const attrs = Object.keys(op.attrs).sort().map(k => `${k}=${JSON.stringify(op.attrs[k])}`).join(',');
    const shapes = inputShapes.map(s => s.join('x')).join(';');
    return `${op.kind}(${attrs})[${shapes}]->[${outputShape.join('x')}]+${epilogue.map(e => e.kind === 'activation' ? e.fn : e.kind).join('+')}`;
}

/** A source of tuned variant choices. */
export interface TuningCache {
    /** The tuned variant for an op signature on an adapter, or undefined (use the default). */
    variantFor(adapter: string, signature: string): string | undefined;
}

/** The tuning file format (what calibration writes). */
export const tuningFileSchema = z.object({
    tuningVersion: z.literal(1),
    /** adapterKey → op signature → variant name. */
    adapters: z.record(z.string(), z.record(z.string(), z.string())),
});
export type TuningFile = z.infer<typeof tuningFileSchema>;

/** An in-memory tuning cache, optionally seeded from a tuning file's content. */
export class MemoryTuningCache implements TuningCache {
    private readonly entries = new Map<string, Map<string, string>>();

    constructor(file?: TuningFile) {
        for (const [adapter, choices] of Object.entries(file?.adapters ?? {})) {
            for (const [signature, variant] of Object.entries(choices)) this.set(adapter, signature, variant);
        }
    }

    variantFor(adapter: string, signature: string): string | undefined {
        return this.entries.get(adapter)?.get(signature);
    }

    /** Records a choice (calibration). */
    set(adapter: string, signature: string, variant: string): void {
        let m = this.entries.get(adapter);
        if (!m) this.entries.set(adapter, m = new Map());
        m.set(signature, variant);
    }

    /** The cache as a tuning file (for writing). */
    toJSON(): TuningFile {
        const adapters: TuningFile['adapters'] = {};
        for (const [adapter, m] of this.entries) adapters[adapter] = Object.fromEntries(m);
        return { tuningVersion: 1, adapters };
    }
}

