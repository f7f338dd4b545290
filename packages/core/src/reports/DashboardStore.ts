/**
 * Port: dashboards, scoped by tenant.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { Dashboard, DashboardId } from "./Dashboard.ts"
import type { StoreError } from "../platform/Errors.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"

/** A dashboard's position in the newest-first list. */
export const dashboardKey = (dashboard: Dashboard): Keyset => ({ value: dashboard.created_at.getTime(), id: dashboard.dashboard_id })

/** Dashboards, scoped by tenant. */
export class DashboardStore extends Context.Service<DashboardStore, {
  readonly insert: (dashboard: Dashboard) => Effect.Effect<void, StoreError>
  readonly find: (tenantId: TenantId, dashboardId: DashboardId) => Effect.Effect<Dashboard | undefined, StoreError>
  /** One page of a workspace's dashboards, newest first. */
  readonly list: (tenantId: TenantId, workspaceId: WorkspaceId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<Dashboard>, StoreError>
  readonly update: (dashboard: Dashboard) => Effect.Effect<boolean, StoreError>
  readonly remove: (tenantId: TenantId, dashboardId: DashboardId) => Effect.Effect<boolean, StoreError>
}>()("@analytics/core/DashboardStore") {}
