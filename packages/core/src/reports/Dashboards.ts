/**
 * Use cases on dashboards (decision 0013): tiles checked against their reports'
 * visuals when written; a tile's data is its report visual's, for the
 * viewer, with the report's timeout.
 *
 * @since 0.1.0
 */
import { Clock, Data, Effect } from "effect"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import type { Dashboard, DashboardCreate, DashboardId, DashboardUpdate, Tile } from "./Dashboard.ts"
import { dashboardKey, DashboardStore } from "./DashboardStore.ts"
import { NotFound, orNotFound, type StoreError } from "../platform/Errors.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { type InvalidSort, type NewestFirstRequest, type Page, paginateNewestFirst } from "../platform/Pagination.ts"
import { findVisual } from "./Report.ts"
import * as Reports from "./Reports.ts"
import type { ReportStore } from "./ReportStore.ts"
import type { SecurityContext } from "../datasets/SemanticQuery.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"
import * as Workspaces from "../tenancy/Workspaces.ts"
import type { WorkspaceStore } from "../tenancy/WorkspaceStore.ts"

/** The tiles do not hold together; `detail` says where. */
export class DashboardInvalid extends Data.TaggedError("DashboardInvalid")<{
  readonly detail: string
}> {}

const dashboardNotFound = (id: string) => new NotFound({ resource: "dashboard", id })

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
export const get = (tenantId: TenantId, dashboardId: string): Effect.Effect<Dashboard, NotFound | StoreError, DashboardStore> =>
  Effect.flatMap(DashboardStore, (store) => store.find(tenantId, dashboardId as DashboardId)).pipe(orNotFound("dashboard", dashboardId))

/** Creates a dashboard in a workspace of the tenant. */
export const create = (
  tenantId: TenantId,
  input: DashboardCreate
): Effect.Effect<Dashboard, NotFound | DashboardInvalid | StoreError, DashboardStore | ReportStore | WorkspaceStore> =>
  Effect.gen(function*() {
    yield* Workspaces.ensureExists(tenantId, input.workspace_id)
    const tiles = input.tiles ?? []
    yield* checkTiles(tenantId, input.workspace_id, tiles)
    const now = new Date(yield* Clock.currentTimeMillis)
    const dashboard: Dashboard = {
      dashboard_id: (yield* uuidv7) as DashboardId,
      tenant_id: tenantId,
      workspace_id: input.workspace_id,
      name: input.name,
      tiles,
      created_at: now,
      updated_at: now
    }
    yield* (yield* DashboardStore).insert(dashboard)
    return dashboard
  })

/** One page of a workspace's dashboards, newest first. */
export const list = (
  tenantId: TenantId,
  workspaceId: WorkspaceId,
  request: NewestFirstRequest
): Effect.Effect<Page<Dashboard>, NotFound | StoreError | CursorError | InvalidSort, DashboardStore | WorkspaceStore | CursorCodec> =>
  Effect.gen(function*() {
    yield* Workspaces.ensureExists(tenantId, workspaceId)
    const store = yield* DashboardStore
    return yield* paginateNewestFirst(request, (query) => store.list(tenantId, workspaceId, query), dashboardKey)
  })

/** Renames a dashboard or replaces its tiles (checked again). */
export const update = (
  tenantId: TenantId,
  dashboardId: string,
  change: DashboardUpdate
): Effect.Effect<Dashboard, NotFound | DashboardInvalid | StoreError, DashboardStore | ReportStore> =>
  Effect.gen(function*() {
    const current = yield* get(tenantId, dashboardId)
    if (change.tiles !== undefined) yield* checkTiles(tenantId, current.workspace_id, change.tiles)
    const updated: Dashboard = {
      ...current,
      name: change.name ?? current.name,
      tiles: change.tiles ?? current.tiles,
      updated_at: new Date(yield* Clock.currentTimeMillis)
    }
    if (!(yield* (yield* DashboardStore).update(updated))) return yield* dashboardNotFound(dashboardId)
    return updated
  })

/** Deletes a dashboard. */
export const remove = (tenantId: TenantId, dashboardId: string): Effect.Effect<void, NotFound | StoreError, DashboardStore> =>
  Effect.flatMap(DashboardStore, (store) => store.remove(tenantId, dashboardId as DashboardId)).pipe(
    Effect.flatMap((removed) => removed ? Effect.void : Effect.fail(dashboardNotFound(dashboardId)))
  )

/** A tile's data: its report visual's query, for the viewer, with the report's timeout. */
export const queryTile = (tenantId: TenantId, dashboardId: string, tileId: string, security: SecurityContext) =>
  Effect.gen(function*() {
    const dashboard = yield* get(tenantId, dashboardId)
    const tile = dashboard.tiles.find((t) => t.id === tileId)
    if (tile === undefined) return yield* new NotFound({ resource: "tile", id: tileId })
    return yield* Reports.queryVisual(tenantId, tile.report_id, tile.visual_id, security)
  })
