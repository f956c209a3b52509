/**
 * The custom LSP messages of src/protocol as the server's typed vscode-languageserver messages,
 * so that every handler and send in the server is typed by the message it names (the client's
 * are in src/extension/messages.ts, made from the same namespaces). Params are still checked at
 * run time where they arrive: the other end is another process.
 */
import { NotificationType, RequestType } from 'vscode-languageserver';
import { MeasuredChangedNotification, ResultsChangedNotification, WorkspaceStatusRequest } from '../../protocol/messages.js';
import { ReportRequest } from '../../protocol/report.js';
import { ComparisonReportRequest } from '../../protocol/comparison-report.js';

/** Client → server: results files or the device profile changed on disk. */
export const resultsChanged = new NotificationType<Partial<ResultsChangedNotification.Params>>(ResultsChangedNotification.method);
/** Server → client: the server reloaded changed results. */
export const measuredChanged = new NotificationType<MeasuredChangedNotification.Params>(MeasuredChangedNotification.method);
/** Client → server: calibration, adapter and last run for the status item. */
export const workspaceStatus = new RequestType<Partial<WorkspaceStatusRequest.Params>, WorkspaceStatusRequest.Result, void>(WorkspaceStatusRequest.method);
/** Client → server: the report of a workload's latest run. */
export const report = new RequestType<Partial<ReportRequest.Params>, ReportRequest.Result, void>(ReportRequest.method);
/** Client → server: the latest comparison of a workload's schedules, as the report draws it. */
export const comparisonReport = new RequestType<Partial<ComparisonReportRequest.Params>, ComparisonReportRequest.Result, void>(ComparisonReportRequest.method);
