/**
 * Port: alerts. Scoped by tenant, except the scheduler's list of every
 * scheduled alert.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { Alert, AlertId } from "./Alert.ts"
import type { StoreError } from "../platform/Errors.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"

/** An alert's position in the newest-first list. */
export const alertKey = (alert: Alert): Keyset => ({ value: alert.created_at.getTime(), id: alert.alert_id })

/** Alerts. */
export class AlertStore extends Context.Service<AlertStore, {
  readonly insert: (alert: Alert) => Effect.Effect<void, StoreError>
  readonly find: (tenantId: TenantId, alertId: AlertId) => Effect.Effect<Alert | undefined, StoreError>
  /** One page of a workspace's alerts, newest first. */
  readonly list: (tenantId: TenantId, workspaceId: WorkspaceId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<Alert>, StoreError>
  readonly update: (alert: Alert) => Effect.Effect<boolean, StoreError>
  readonly remove: (tenantId: TenantId, alertId: AlertId) => Effect.Effect<boolean, StoreError>
  /** The alerts of a dataset checked after its refreshes. */
  readonly listAfterRefresh: (tenantId: TenantId, datasetId: string) => Effect.Effect<ReadonlyArray<Alert>, StoreError>
  /** Every alert with a cron schedule, of every tenant (the scheduler decides which are due). */
  readonly listScheduled: Effect.Effect<ReadonlyArray<Alert>, StoreError>
}>()("@analytics/core/AlertStore") {}
