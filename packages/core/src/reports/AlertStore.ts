/**
 * Port: alerts. Scoped by tenant, except the scheduler's list of every
 * scheduled alert.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { Alert, AlertCheck, AlertId } from "./Alert.ts"
import type { StoreError } from "../platform/Errors.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import * as WorkspaceRecords from "../tenancy/WorkspaceRecords.ts"

/** Alerts: workspace records, and the lists that decide which to check. */
export class AlertStore extends Context.Service<AlertStore, WorkspaceRecords.WorkspaceRecords<Alert, AlertId> & {
  /** The alerts of a dataset checked after its refreshes. */
  readonly listAfterRefresh: (tenantId: TenantId, datasetId: string) => Effect.Effect<ReadonlyArray<Alert>, StoreError>
  /** Every alert with a cron schedule, of every tenant (the scheduler decides which are due). */
  readonly listScheduled: Effect.Effect<ReadonlyArray<Alert>, StoreError>
  /** Keeps a check in the alert's history (in the check's transaction). */
  readonly insertCheck: (check: AlertCheck) => Effect.Effect<void, StoreError>
  /**
   * One page of an alert's history, newest first by `checked_at` then
   * `check_id` ascending (`Pagination.applyInMemory` order, `checked_at`
   * standing for `created_at`); its tenant's only. Gone with its alert.
   */
  readonly listChecks: (tenantId: TenantId, alertId: string, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<AlertCheck>, StoreError>
}>()("@analytics/core/AlertStore") {}

/** Alerts as workspace records. */
export const alerts = WorkspaceRecords.kind({ resource: "alert", id: "alert_id", store: AlertStore })

/** An alert's position in the newest-first list. */
export const alertKey: (alert: Alert) => Keyset = WorkspaceRecords.keyOf(alerts)
