import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitChecked } from '../../../src/runtime/gpu/submit.js';
import { openGpu, requestTenantDevice } from '../../../src/runtime/gpu/adapter.js';
import { hasAdapter } from '../execute/gpu-helper.js';

const gpu = await hasAdapter();

describe.skipIf(!gpu)('submitChecked on the software adapter', () => {
    let handle: GPU | undefined;
    let device: GPUDevice;
    let pipeline: GPUComputePipeline;

    beforeAll(async () => {
        handle = openGpu();
        ({ device } = await requestTenantDevice(handle, 'auto', 'submit-test'));
        const module = device.createShaderModule({ code: `
            @group(0) @binding(0) var<storage, read_write> b: array<f32>;
            @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {
                if (g.x < arrayLength(&b)) { b[g.x] = b[g.x] + 1.0; }
            }` });
        pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
    });
    afterAll(() => { device?.destroy(); handle = undefined; });

    /** An encoder whose work adds 1 to every element of `buffer`, `times` times. */
    function increment(buffer: GPUBuffer, times = 1): GPUCommandEncoder {
        const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer } }] });
        const encoder = device.createCommandEncoder();
        for (let i = 0; i < times; i++) {
            const pass = encoder.beginComputePass();
            pass.setPipeline(pipeline);
            pass.setBindGroup(0, group);
            pass.dispatchWorkgroups(4);
            pass.end();
        }
        return encoder;
    }

    async function read(buffer: GPUBuffer): Promise<Float32Array> {
        const staging = device.createBuffer({ size: buffer.size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
        const encoder = device.createCommandEncoder();
        encoder.copyBufferToBuffer(buffer, 0, staging, 0, buffer.size);
        device.queue.submit([encoder.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        const out = new Float32Array(staging.getMappedRange().slice(0));
        staging.destroy();
        return out;
    }

    it('resolves once the queue has done the work, with when', async () => {
        const buffer = device.createBuffer({ size: 4 * 256, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
        const before = performance.now();
        const submitted = await submitChecked(device, increment(buffer, 2), 5000, 'the test work');
        expect(submitted.error).toBeUndefined();
        expect(submitted.doneAt).toBeGreaterThanOrEqual(before);
        expect(submitted.doneAt).toBeLessThanOrEqual(performance.now());
        expect([...await read(buffer)].every(v => v === 2)).toBe(true);
        buffer.destroy();
    });

    it('reports an invalid submission as its validation error', async () => {
        const buffer = device.createBuffer({ size: 4 * 256, usage: GPUBufferUsage.STORAGE });
        const work = increment(buffer);
        buffer.destroy();
        const submitted = await submitChecked(device, work, 5000, 'the test work');
        expect(submitted.doneAt).toBeUndefined();
        expect(submitted.error?.message).toMatch(/destroyed/i);
        // The scope was popped: the next submission is judged on its own.
        const fresh = device.createBuffer({ size: 4 * 256, usage: GPUBufferUsage.STORAGE });
        expect((await submitChecked(device, increment(fresh), 5000, 'the test work')).error).toBeUndefined();
        fresh.destroy();
    });

    it('reports an encoding error as this submission\'s, not as an uncaptured one', async () => {
        const uncaptured: string[] = [];
        const listener = (e: Event) => uncaptured.push((e as GPUUncapturedErrorEvent).error.message);
        device.addEventListener('uncapturederror', listener);
        try {
            // A dispatch without a pipeline: the encoder records the error and raises it when it finishes.
            const encoder = device.createCommandEncoder();
            const pass = encoder.beginComputePass();
            pass.dispatchWorkgroups(1);
            pass.end();
            const submitted = await submitChecked(device, encoder, 5000, 'the test work');
            expect(submitted.error?.message).toMatch(/pipeline/i);
            expect(uncaptured).toEqual([]);
        } finally {
            device.removeEventListener('uncapturederror', listener);
        }
    });

    it('gives way to cancellation with the signal\'s reason', async () => {
        const buffer = device.createBuffer({ size: 4 * 256, usage: GPUBufferUsage.STORAGE });
        const stop = new AbortController();
        stop.abort(new Error('cancelled by the test'));
        await expect(submitChecked(device, increment(buffer), 5000, 'the test work', stop.signal)).rejects.toThrow('cancelled by the test');
        buffer.destroy();
    });
});
