/**
 * `tenancy devices [--json]`: the WebGPU adapters this machine offers (one per preference,
 * deduplicated) with their identity, features and limits. Exit code 2 when there is none.
 */
import type { Command } from 'commander';
import { exitCodes } from '../../protocol/exit-codes.js';
import { listAdapters, NoAdapterError, openGpu } from '../../runtime/gpu/adapter.js';

/** Limits worth a line in the text output (all are in --json). */
const SHOWN_LIMITS = ['maxBufferSize', 'maxStorageBufferBindingSize', 'maxStorageBuffersPerShaderStage', 'maxComputeWorkgroupStorageSize',
    'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX', 'maxComputeWorkgroupsPerDimension'];

export function register(program: Command): void {
    program.command('devices')
        .description('List the WebGPU adapters available here, with their features and limits')
        .option('--json', 'print the adapters as JSON')
        .action(async (opts: { json?: boolean }) => {
            const adapters = await listAdapters(openGpu());
            if (adapters.length === 0) {
                console.error(`tenancy devices: ${new NoAdapterError('No WebGPU adapter found').message}`);
                process.exitCode = exitCodes.environment;
                if (opts.json) process.stdout.write('[]\n');
                return;
            }
            if (opts.json) {
                process.stdout.write(`${JSON.stringify(adapters, null, 2)}\n`);
                return;
            }
            for (const a of adapters) {
                const i = a.info;
                console.log(`${i.vendor || '?'} ${i.device || '?'}${i.isFallbackAdapter ? ' (fallback)' : ''} — preference ${a.preference}`);
                console.log(`  architecture  ${i.architecture || '?'}`);
                console.log(`  description   ${i.description || '?'}`);
                console.log(`  features      ${i.features.join(', ')}`);
                for (const name of SHOWN_LIMITS) if (name in a.limits) console.log(`  ${name.padEnd(34)} ${a.limits[name]}`);
            }
        });
}
