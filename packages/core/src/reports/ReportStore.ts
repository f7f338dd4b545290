/**
 * Port: reports. Every method is scoped by tenant: another tenant's report
 * is a missing one.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { Report, ReportId } from "./Report.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"

/** A report's position in the newest-first list. */
export const reportKey = (report: Report): Keyset => ({ value: report.created_at.getTime(), id: report.report_id })

/** Reports, scoped by tenant. */
export class ReportStore extends Context.Service<ReportStore, {
  readonly insert: (report: Report) => Effect.Effect<void, StoreError>
  readonly find: (tenantId: TenantId, reportId: ReportId) => Effect.Effect<Report | undefined, StoreError>
  /** One page of a workspace's reports, newest first. */
  readonly list: (tenantId: TenantId, workspaceId: WorkspaceId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<Report>, StoreError>
  /** Replaces a report; `false` when there is none. */
  readonly update: (report: Report) => Effect.Effect<boolean, StoreError>
  /** Deletes a report; `false` when there was none in this tenant. */
  readonly remove: (tenantId: TenantId, reportId: ReportId) => Effect.Effect<boolean, StoreError>
}>()("@analytics/core/ReportStore") {}
