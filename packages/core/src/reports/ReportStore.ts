/**
 * Port: reports. Every method is scoped by tenant: another tenant's report
 * is a missing one.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Keyset } from "../platform/Pagination.ts"
import type { Report, ReportId } from "./Report.ts"
import * as WorkspaceRecords from "../tenancy/WorkspaceRecords.ts"

/** Reports, scoped by tenant: workspace records and nothing more. */
export class ReportStore extends Context.Service<ReportStore, WorkspaceRecords.WorkspaceRecords<Report, ReportId>>()("@analytics/core/ReportStore") {}

/** Reports as workspace records. */
export const reports = WorkspaceRecords.kind({ resource: "report", id: "report_id", store: ReportStore })

/** A report's position in the newest-first list. */
export const reportKey: (report: Report) => Keyset = WorkspaceRecords.keyOf(reports)
