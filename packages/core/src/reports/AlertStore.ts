/**
 * Port: alerts. Scoped by tenant, except the scheduler's list of every
 * scheduled alert.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { Alert, AlertId } from "./Alert.ts"
import type { StoreError } from "../platform/Errors.ts"
import type { Keyset } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import * as WorkspaceRecords from "../tenancy/WorkspaceRecords.ts"

/** Alerts: workspace records, and the lists that decide which to check. */
export class AlertStore extends Context.Service<AlertStore, WorkspaceRecords.WorkspaceRecords<Alert, AlertId> & {
  /** The alerts of a dataset checked after its refreshes. */
  readonly listAfterRefresh: (tenantId: TenantId, datasetId: string) => Effect.Effect<ReadonlyArray<Alert>, StoreError>
  /** Every alert with a cron schedule, of every tenant (the scheduler decides which are due). */
  readonly listScheduled: Effect.Effect<ReadonlyArray<Alert>, StoreError>
}>()("@analytics/core/AlertStore") {}

/** Alerts as workspace records. */
export const alerts = WorkspaceRecords.kind({ resource: "alert", id: "alert_id", store: AlertStore })

/** An alert's position in the newest-first list. */
export const alertKey: (alert: Alert) => Keyset = WorkspaceRecords.keyOf(alerts)
