/**
 * Use cases on dashboards (decision 0013): tiles checked against their reports'
 * visuals when written; a tile's data is its report visual's, for the
 * viewer, with the report's timeout.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import type { Dashboard, DashboardCreate, DashboardUpdate, Tile } from "./Dashboard.ts"
import { dashboards, type DashboardStore } from "./DashboardStore.ts"
import { NotFound, TaggedFailure } from "../platform/Errors.ts"
import { findVisual } from "./Report.ts"
import * as Reports from "./Reports.ts"
import type { ReportStore } from "./ReportStore.ts"
import type { SecurityContext } from "../datasets/SemanticQuery.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"
import * as WorkspaceRecordUseCases from "../tenancy/WorkspaceRecordUseCases.ts"
import type { WorkspaceStore } from "../tenancy/WorkspaceStore.ts"

/** The tiles do not hold together; `detail` says where. */
export class DashboardInvalid extends TaggedFailure("DashboardInvalid")<{
  readonly detail: string
}> {
  readonly code = "dashboard/invalid" as const
}

/** Tile ids unique, each pointing at an existing visual of a report of the dashboard's workspace. */
const checkTiles = (tenantId: TenantId, workspaceId: WorkspaceId, tiles: ReadonlyArray<Tile>) =>
  Effect.gen(function*() {
    const ids = new Set<string>()
    for (const tile of tiles) {
      if (ids.has(tile.id)) return yield* new DashboardInvalid({ detail: `Two tiles have the id "${tile.id}"` })
      ids.add(tile.id)
      const report = yield* Reports.get(tenantId, tile.report_id).pipe(
        Effect.catchTag("NotFound", () => Effect.fail(new DashboardInvalid({ detail: `Tile "${tile.id}": no report ${tile.report_id}` })))
      )
      if (report.workspace_id !== workspaceId) return yield* new DashboardInvalid({ detail: `Tile "${tile.id}": report ${tile.report_id} is in another workspace` })
      if (findVisual(report, tile.visual_id) === undefined) {
        return yield* new DashboardInvalid({ detail: `Tile "${tile.id}": report ${tile.report_id} has no visual "${tile.visual_id}"` })
      }
    }
  })

/** A dashboard of the tenant, or NotFound. */
export const get: WorkspaceRecordUseCases.Get<Dashboard, DashboardStore> = (tenantId, dashboardId) =>
  WorkspaceRecordUseCases.get(dashboards, tenantId, dashboardId)

/** A dashboard as its audit entries show it: its name and tiles. */
export const shown: AuditLog.Shown<Dashboard> = {
  type: "dashboard",
  id: (d) => d.dashboard_id,
  workspace: (d) => d.workspace_id,
  detail: (d) => ({ dashboard_id: d.dashboard_id, name: d.name, tiles: d.tiles })
}

/** Creates a dashboard in a workspace of the tenant (`dashboard.created`). */
export const create: WorkspaceRecordUseCases.Create<
  DashboardCreate,
  Dashboard,
  NotFound | DashboardInvalid,
  DashboardStore | ReportStore | WorkspaceStore | AuditLog.Recording,
  [by: AuditLog.Actor]
> = (tenantId, input, by) =>
  AuditLog.created(tenantId, shown, by, WorkspaceRecordUseCases.createIn(dashboards, tenantId, input.workspace_id, () => {
    const tiles = input.tiles ?? []
    return Effect.as(checkTiles(tenantId, input.workspace_id, tiles), { name: input.name, tiles })
  }))

/** One page of a workspace's dashboards, newest first. */
export const list: WorkspaceRecordUseCases.List<Dashboard, DashboardStore> = (tenantId, workspaceId, request) =>
  WorkspaceRecordUseCases.list(dashboards, tenantId, workspaceId, request)

/** Renames a dashboard or replaces its tiles (checked again); `dashboard.updated`. */
export const update: WorkspaceRecordUseCases.Update<DashboardUpdate, Dashboard, DashboardInvalid, DashboardStore | ReportStore | AuditLog.Recording, [by: AuditLog.Actor]> = (
  tenantId,
  dashboardId,
  change,
  by
) =>
  AuditLog.updated(tenantId, shown, by, get(tenantId, dashboardId), (found) => WorkspaceRecordUseCases.update(dashboards, dashboardId, Effect.succeed(found), (current) =>
    Effect.as(change.tiles === undefined ? Effect.void : checkTiles(tenantId, current.workspace_id, change.tiles), {
      ...current,
      name: change.name ?? current.name,
      tiles: change.tiles ?? current.tiles
    })))

/** Deletes a dashboard (`dashboard.deleted`). */
export const remove: WorkspaceRecordUseCases.Remove<DashboardStore | AuditLog.Recording, [by: AuditLog.Actor]> = (tenantId, dashboardId, by) =>
  Effect.asVoid(AuditLog.deleted(tenantId, shown, by, get(tenantId, dashboardId), () => WorkspaceRecordUseCases.remove(dashboards, tenantId, dashboardId)))

/** A tile's data: its report visual's query, for the viewer, with the report's timeout. */
export const queryTile = (tenantId: TenantId, dashboardId: string, tileId: string, security: SecurityContext) =>
  Effect.gen(function*() {
    const dashboard = yield* get(tenantId, dashboardId)
    const tile = dashboard.tiles.find((t) => t.id === tileId)
    if (tile === undefined) return yield* new NotFound({ resource: "tile", id: tileId })
    return yield* Reports.queryVisual(tenantId, tile.report_id, tile.visual_id, security)
  })
