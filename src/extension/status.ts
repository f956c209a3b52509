/**
 * The language status item of .tenancy files: the adapter, whether the device is calibrated,
 * and the last run; clicking it opens the output channel (the log).
 */
import * as vscode from 'vscode';
import { CommandIds } from '../protocol/commands.js';
import type { WorkspaceStatusResult } from '../protocol/messages.js';

/** Formats the status for the item (pure, so the wording is in one place). */
export function describeStatus(status: WorkspaceStatusResult | undefined, running: string[], probed?: { adapter: string } | { error: string }): { text: string; detail: string; severity: 'info' | 'warning' } {
    if (!status) return { text: 'Tenancy', detail: 'starting…', severity: 'info' };
    // The server knows the profile's and the last run's adapter; before any, what `tenancy devices` found.
    const adapter = status.adapter ?? (probed && 'adapter' in probed ? probed.adapter : probed ? probed.error : 'adapter not yet known');
    const calibration = status.calibrated ? 'calibrated' : 'uncalibrated';
    const parts: string[] = [];
    if (running.length > 0) parts.push(`running ${running.join(', ')}`);
    if (status.lastRun) {
        const when = new Date(status.lastRun.finishedAt);
        const time = Number.isNaN(when.getTime()) ? status.lastRun.finishedAt : when.toLocaleTimeString();
        parts.push(`last run: ${status.lastRun.workload} at ${time} (${status.lastRun.status}${status.lastRun.valid === false ? ', not valid' : ''})`);
        if (status.lastRun.hostWarning) parts.push(`⚠ ${status.lastRun.hostWarning}`);
    } else {
        parts.push('no run yet');
    }
    return {
        text: `${running.length > 0 ? '$(sync~spin)' : '$(pulse)'} ${adapter} · ${calibration}`,
        detail: parts.join(' · '),
        severity: status.calibrated && !(probed && 'error' in probed && !status.adapter) && !status.lastRun?.hostWarning ? 'info' : 'warning',
    };
}

export class TenancyStatus implements vscode.Disposable {
    private readonly item: vscode.LanguageStatusItem;
    private last: WorkspaceStatusResult | undefined;
    private running: string[] = [];
    private probed: { adapter: string } | { error: string } | undefined;

    constructor() {
        this.item = vscode.languages.createLanguageStatusItem('tenancy.status', { language: 'tenancy' });
        this.item.name = 'Tenancy';
        this.item.command = { title: 'Show Log', command: CommandIds.showOutput };
        this.render();
    }

    /** Shows a status from the server. */
    update(status: WorkspaceStatusResult | undefined): void {
        this.last = status;
        this.render();
    }

    /** What `tenancy devices` found. */
    setProbedAdapter(probed: { adapter: string } | { error: string }): void {
        this.probed = probed;
        this.render();
    }

    /** Names of workloads running now. */
    setRunning(workloads: string[]): void {
        this.running = workloads;
        this.render();
    }

    /** The last status shown (tests read it). */
    get current(): WorkspaceStatusResult | undefined {
        return this.last;
    }

    private render(): void {
        const view = describeStatus(this.last, this.running, this.probed);
        this.item.text = view.text;
        this.item.detail = view.detail;
        this.item.severity = view.severity === 'warning' ? vscode.LanguageStatusSeverity.Warning : vscode.LanguageStatusSeverity.Information;
        this.item.busy = this.running.length > 0;
    }

    dispose(): void {
        this.item.dispose();
    }
}
