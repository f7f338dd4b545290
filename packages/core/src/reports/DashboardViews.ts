/**
 * A dashboard as someone sees it: each tile its report visual, run with
 * their row-level security (and the filters they cannot lift), in the
 * grid's order; a tile whose visual left its report says so, and the rest
 * still show. Shared dashboards and a member's view are drawn from this.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { NotFound, type StoreError } from "../platform/Errors.ts"
import type { Dashboard, Tile } from "./Dashboard.ts"
import type { DashboardStore } from "./DashboardStore.ts"
import * as Dashboards from "./Dashboards.ts"
import { findVisual } from "./Report.ts"
import * as Reports from "./Reports.ts"
import * as ReportViews from "./ReportViews.ts"

/** A tile as seen: its visual's rows, or why it shows none (its visual gone from its report: only its tile is left). */
export interface TileView {
  readonly tile: Tile
  readonly view: ReportViews.VisualView | { readonly _tag: "Missing"; readonly detail: string }
}

/** A dashboard as seen: each tile with its visual's rows, in the grid's order. */
export interface DashboardView {
  readonly dashboard: Dashboard
  readonly tiles: ReadonlyArray<TileView>
}

/** What a dashboard's view reads. */
export type Services = ReportViews.Services | DashboardStore

/** Who sees the dashboard. */
export interface Request {
  readonly tenantId: Dashboard["tenant_id"]
  readonly dashboardId: string
  readonly security: ReportViews.Request["security"]
  /** Filters the viewer cannot lift (an embed's locked parameters). */
  readonly locked?: ReadonlyArray<ReportViews.LockedFilter> | undefined
  /** Only a dashboard of this workspace: another's is NotFound. */
  readonly workspaceId?: string | undefined
}

/** What a tile says when its visual is no longer in its report. */
export const missingDetail = "This tile's visual is no longer in its report."

/** Tiles top to bottom, then left to right: the order a reader meets them on the grid. */
export const gridOrder = (tiles: ReadonlyArray<Tile>): ReadonlyArray<Tile> => [...tiles].sort((a, b) => a.y - b.y || a.x - b.x)

/** One tile run as `request` sees it. */
const tileView = (request: Request, tile: Tile): Effect.Effect<TileView, StoreError, Services> =>
  Effect.gen(function*() {
    const report = yield* Reports.get(request.tenantId, tile.report_id).pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))
    const visual = report === undefined ? undefined : findVisual(report, tile.visual_id)?.visual
    if (report === undefined || visual === undefined) return { tile, view: { _tag: "Missing", detail: missingDetail } }
    // The filters the viewer cannot lift are the only filters a tile takes (a dashboard has no filter bar).
    const view = yield* ReportViews.visualView(request.tenantId, report, visual, request.security, [...(request.locked ?? [])])
    return { tile, view }
  })

/** The dashboard as `request` sees it, each tile run for them, four at a time. */
export const render = (request: Request): Effect.Effect<DashboardView, NotFound | StoreError, Services> =>
  Effect.gen(function*() {
    const dashboard = yield* Dashboards.get(request.tenantId, request.dashboardId)
    if (request.workspaceId !== undefined && dashboard.workspace_id !== request.workspaceId) {
      return yield* new NotFound({ resource: "dashboard", id: request.dashboardId })
    }
    const tiles = yield* Effect.forEach(gridOrder(dashboard.tiles), (tile) => tileView(request, tile), { concurrency: 4 })
    return { dashboard, tiles } satisfies DashboardView
  })
