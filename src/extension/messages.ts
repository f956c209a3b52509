/**
 * The custom LSP messages of src/protocol as the client's typed vscode-languageclient messages,
 * so that every send and handler in the extension is typed by the message it names.
 */
import { NotificationType, RequestType } from 'vscode-languageclient/node';
import { MeasuredChangedNotification, ResultsChangedNotification, WorkspaceStatusRequest } from '../protocol/messages.js';
import { ReportRequest } from '../protocol/report.js';
import { ComparisonReportRequest } from '../protocol/comparison-report.js';

/** Client → server: results files or the device profile changed on disk. */
export const resultsChanged = new NotificationType<ResultsChangedNotification.Params>(ResultsChangedNotification.method);
/** Server → client: the server reloaded changed results. */
export const measuredChanged = new NotificationType<MeasuredChangedNotification.Params>(MeasuredChangedNotification.method);
/** Client → server: calibration, adapter and last run for the status item. */
export const workspaceStatus = new RequestType<WorkspaceStatusRequest.Params, WorkspaceStatusRequest.Result, void>(WorkspaceStatusRequest.method);
/** Client → server: the report of a workload's latest run. */
export const report = new RequestType<ReportRequest.Params, ReportRequest.Result, void>(ReportRequest.method);
/** Client → server: the latest comparison of a workload's schedules, as the report draws it. */
export const comparisonReport = new RequestType<ComparisonReportRequest.Params, ComparisonReportRequest.Result, void>(ComparisonReportRequest.method);
