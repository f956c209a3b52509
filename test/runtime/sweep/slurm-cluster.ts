/**
 * A real single-node Slurm cluster for one test file, from Debian's slurm-wlm and munge, private
 * to the test: its own munge key and socket, its own slurm.conf (ports, state and spool folders
 * in a temporary folder, no accounting) that clients find through SLURM_CONF, so it never touches
 * /etc or another cluster on the machine. The daemons run in the foreground as children and are
 * stopped by their PIDs. Needs root (slurmd runs jobs as their user).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { cpus, hostname, tmpdir } from 'node:os';
import { join } from 'node:path';

/** The programs the cluster needs. */
const TOOLS = ['munged', 'munge', 'slurmctld', 'slurmd', 'sbatch', 'squeue', 'scancel', 'sinfo', 'scontrol'];

/** Why a cluster cannot start here (a tool missing, not root), or undefined when it can. */
export function slurmUnavailable(): string | undefined {
    const missing = TOOLS.filter(tool => spawnSync('sh', ['-c', `command -v ${tool}`], { env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` } }).status !== 0);
    if (missing.length > 0) return `Slurm is not installed (missing ${missing.join(', ')}); scripts/setup-system.sh installs slurm-wlm and munge from Debian`;
    if (process.getuid?.() !== 0) return 'a private Slurm cluster needs root (slurmd starts jobs as their user)';
    return undefined;
}

/** A running cluster: the environment its clients need, and how to stop it. */
export interface SlurmCluster {
    /** SLURM_CONF and PATH (with the daemons' sbin) for sbatch, squeue and the rest. */
    env: NodeJS.ProcessEnv;
    folder: string;
    /** The daemons' logs, for a failing test's message. */
    logs(): string;
    stop(): Promise<void>;
}

async function until(what: string, ok: () => boolean, timeoutMs: number, logs: () => string): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!ok()) {
        if (Date.now() > end) throw new Error(`the test's Slurm cluster: ${what} within ${timeoutMs / 1000} s\n${logs()}`);
        await new Promise(r => setTimeout(r, 250));
    }
}

/** Starts munged, slurmctld and slurmd, and waits until the node is idle. */
export async function startSlurmCluster(): Promise<SlurmCluster> {
    const folder = mkdtempSync(join(tmpdir(), 'tenancy-slurm-'));
    const socket = join(folder, 'munge.socket');
    const key = join(folder, 'munge.key');
    writeFileSync(key, randomBytes(1024), { mode: 0o400 });
    for (const dir of ['state', 'spool']) mkdirSync(join(folder, dir));
    const node = hostname().split('.')[0];
    // Ports of its own (by PID), so a cluster of another test run on this machine does not answer.
    const port = 20_000 + (process.pid % 10_000) * 2;
    const conf = join(folder, 'slurm.conf');
    writeFileSync(conf, [
        'ClusterName=tenancytest', `SlurmctldHost=${node}(127.0.0.1)`, `SlurmctldPort=${port}`, `SlurmdPort=${port + 1}`,
        'AuthType=auth/munge', 'CredType=cred/munge', `AuthInfo=socket=${socket}`,
        'ProctrackType=proctrack/linuxproc', 'TaskPlugin=task/none', 'SelectType=select/cons_tres', 'SelectTypeParameters=CR_Core',
        'SlurmUser=root', 'SlurmdUser=root', 'MpiDefault=none', 'ReturnToService=2',
        'JobCompType=jobcomp/none', 'AccountingStorageType=accounting_storage/none',
        `StateSaveLocation=${join(folder, 'state')}`, `SlurmdSpoolDir=${join(folder, 'spool')}`,
        `SlurmctldPidFile=${join(folder, 'slurmctld.pid')}`, `SlurmdPidFile=${join(folder, 'slurmd.pid')}`,
        `SlurmctldLogFile=${join(folder, 'slurmctld.log')}`, `SlurmdLogFile=${join(folder, 'slurmd.log')}`,
        `NodeName=${node} NodeAddr=127.0.0.1 CPUs=${cpus().length} RealMemory=1000 State=UNKNOWN`,
        `PartitionName=main Nodes=${node} Default=YES State=UP MaxTime=INFINITE`, '',
    ].join('\n'));
    const env = { ...process.env, SLURM_CONF: conf, PATH: `${process.env.PATH}:/usr/sbin:/sbin` };
    const children: ChildProcess[] = [];
    const logs = () => ['munged.log', 'slurmctld.log', 'slurmd.log'].map(f => join(folder, f)).filter(existsSync)
        .map(f => `--- ${f}\n${readFileSync(f, 'utf8').split('\n').slice(-15).join('\n')}`).join('\n');
    const start = (command: string, args: string[]) => {
        const child = spawn(command, args, { env, stdio: 'ignore' });
        children.push(child);
        return child;
    };
    const stop = async () => {
        // Our cluster's jobs first (SLURM_CONF points at it), then the daemons in reverse order, each by its PID.
        spawnSync('scancel', ['--user=root'], { env });
        for (const child of [...children].reverse()) {
            if (child.exitCode !== null || child.signalCode !== null) continue;
            const exited = new Promise(r => child.once('exit', r));
            process.kill(child.pid!, 'SIGTERM');
            const timer = setTimeout(() => { if (child.exitCode === null) process.kill(child.pid!, 'SIGKILL'); }, 10_000);
            await exited;
            clearTimeout(timer);
        }
    };
    try {
        start('munged', ['-F', '-f', `--socket=${socket}`, `--key-file=${key}`, `--log-file=${join(folder, 'munged.log')}`,
            `--pid-file=${join(folder, 'munged.pid')}`, `--seed-file=${join(folder, 'munged.seed')}`]);
        await until('munged made its socket', () => existsSync(socket), 10_000, logs);
        start('slurmctld', ['-D', '-i']);
        start('slurmd', ['-D']);
        await until('the node is idle (sinfo)', () => spawnSync('sinfo', ['--noheader', '--format=%T'], { env, encoding: 'utf8' }).stdout?.trim() === 'idle', 60_000, logs);
    } catch (error) {
        await stop();
        throw error;
    }
    return { env, folder, logs, stop };
}
