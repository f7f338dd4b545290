/**
 * Port: dashboards, scoped by tenant.
 *
 * @since 0.1.0
 */
import { Context } from "effect"
import type { Dashboard, DashboardId } from "./Dashboard.ts"
import type { Keyset } from "../platform/Pagination.ts"
import * as WorkspaceRecords from "../tenancy/WorkspaceRecords.ts"

/** Dashboards, scoped by tenant: workspace records and nothing more. */
export class DashboardStore extends Context.Service<DashboardStore, WorkspaceRecords.WorkspaceRecords<Dashboard, DashboardId>>()(
  "@analytics/core/DashboardStore"
) {}

/** Dashboards as workspace records. */
export const dashboards = WorkspaceRecords.kind({ resource: "dashboard", id: "dashboard_id", store: DashboardStore })

/** A dashboard's position in the newest-first list. */
export const dashboardKey: (dashboard: Dashboard) => Keyset = WorkspaceRecords.keyOf(dashboards)
