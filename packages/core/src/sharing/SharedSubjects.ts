/**
 * What a public link's visitor and an embed's viewer see of a dashboard, a
 * dataset or a workspace (decision 0014: the same primitive for every audience;
 * decision 0014), through the grant `SharedViews` opened for this request:
 *
 * - a dashboard: its tiles in the grid's order (top to bottom, then left to
 *   right), each its report visual run for the viewer;
 * - a dataset: its model (dimensions and measures, titles and formats) and
 *   at most `previewRows` rows of it, every dimension and measure;
 * - a workspace: its reports and dashboards by name, each opened within the
 *   share (one of another workspace is NotFound).
 *
 * Every query runs with the viewer's row-level security (the role `link`,
 * or `embed` with its token's attributes) and an embed's locked filters,
 * exactly as the report share runs them. Exports stay with report shares;
 * a dashboard share downloads its tiles' rows (`SharedViews.download`), a
 * dataset or workspace share nothing (decision 0014).
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import type { Row } from "../datasets/AnalyticsEngine.ts"
import type { Dashboard } from "../reports/Dashboard.ts"
import { dashboardKey, DashboardStore } from "../reports/DashboardStore.ts"
import * as DashboardViews from "../reports/DashboardViews.ts"
import type { Dataset } from "../datasets/Dataset.ts"
import * as Datasets from "../datasets/Datasets.ts"
import type { DatasetStore } from "../datasets/DatasetStore.ts"
import { NotFound, type StoreError } from "../platform/Errors.ts"
import { everyRow } from "../platform/Pagination.ts"
import type { Report } from "../reports/Report.ts"
import * as Reports from "../reports/Reports.ts"
import { reportKey, ReportStore } from "../reports/ReportStore.ts"
import * as ReportViews from "../reports/ReportViews.ts"
import type { Viewer } from "./SharedViews.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"
import { WorkspaceStore } from "../tenancy/WorkspaceStore.ts"

/** The most rows a shared dataset shows. */
export const previewRows = 200

/** What the shared subjects read. */
export type Services = ReportStore | DashboardStore | DatasetStore | WorkspaceStore | Datasets.Engines

/** A store failure stays one; anything else is the words `ReportViews.unavailable` gives. */
const orUnavailable = <A>(effect: Effect.Effect<A, { readonly _tag: string }, Services>) =>
  Effect.catch(effect, (error: { readonly _tag: string }) =>
    error._tag === "StoreError" ? Effect.fail(error as StoreError) : Effect.succeed({ _tag: "Unavailable" as const, detail: ReportViews.unavailable(error) }))

/** A tile as seen (DashboardViews'). */
export type TileView = DashboardViews.TileView

/** A dashboard as seen (DashboardViews'). */
export type DashboardView = DashboardViews.DashboardView

/** Tiles top to bottom, then left to right: the order a reader meets them on the grid. */
export const gridOrder = DashboardViews.gridOrder

/** A dashboard of the workspace `workspaceId` (else NotFound), each tile run for the viewer. */
const dashboardView = (viewer: Viewer, dashboardId: string, workspaceId: WorkspaceId | undefined) =>
  DashboardViews.render({ tenantId: viewer.grant.tenant_id, dashboardId, security: viewer.security, locked: viewer.lockedFilters, workspaceId })

/** The dashboard a dashboard share shares. */
export const dashboard = (viewer: Viewer): Effect.Effect<DashboardView, NotFound | StoreError, Services> =>
  dashboardView(viewer, viewer.grant.subject_id, undefined)

/** A dataset as seen: its model, and its first rows or why there are none. */
export interface DatasetView {
  readonly dataset: Dataset
  readonly preview:
    | { readonly _tag: "Rows"; readonly columns: ReadonlyArray<string>; readonly rows: ReadonlyArray<Row> }
    | { readonly _tag: "Unavailable"; readonly detail: string }
}

/**
 * The dataset a dataset share shares: its model and at most `previewRows`
 * rows of every dimension and measure, with the viewer's row-level
 * security and locked filters.
 */
export const dataset = (viewer: Viewer): Effect.Effect<DatasetView, NotFound | StoreError, Services> =>
  Effect.gen(function*() {
    const tenantId = viewer.grant.tenant_id
    const found = yield* Datasets.get(tenantId, viewer.grant.subject_id)
    const dimensions = found.model.dimensions.map((d) => d.name)
    const measures = found.model.measures.map((m) => m.name)
    if (dimensions.length === 0 && measures.length === 0) {
      return { dataset: found, preview: { _tag: "Unavailable", detail: "This dataset has no dimension or measure yet." } } satisfies DatasetView
    }
    const preview = yield* orUnavailable(Datasets.query(tenantId, found.dataset_id, {
      dimensions,
      measures,
      filters: [...viewer.lockedFilters],
      order: dimensions.map((member) => ({ member })),
      limit: previewRows
    }, viewer.security).pipe(
      Effect.map((result) => ({ _tag: "Rows" as const, columns: result.compiled.columns.map((c) => c.name), rows: result.rows }))
    ))
    return { dataset: found, preview }
  })

/** A workspace as seen: its reports and dashboards, by name. */
export interface WorkspaceView {
  readonly workspace: { readonly workspace_id: string; readonly name: string }
  readonly reports: ReadonlyArray<Pick<Report, "report_id" | "name" | "description">>
  readonly dashboards: ReadonlyArray<Pick<Dashboard, "dashboard_id" | "name">>
}

const byName = <A extends { readonly name: string }>(items: ReadonlyArray<A>) => [...items].sort((a, b) => a.name.localeCompare(b.name))

/** The workspace a workspace share shares: what it holds, listed. */
export const workspace = (viewer: Viewer): Effect.Effect<WorkspaceView, NotFound | StoreError, Services> =>
  Effect.gen(function*() {
    const tenantId = viewer.grant.tenant_id
    const workspaceId = viewer.grant.subject_id as WorkspaceId
    const found = yield* (yield* WorkspaceStore).find(tenantId, workspaceId)
    if (found === undefined) return yield* new NotFound({ resource: "workspace", id: workspaceId })
    const now = new Date(yield* Clock.currentTimeMillis)
    const reportStore = yield* ReportStore
    const dashboardStore = yield* DashboardStore
    const reports = yield* everyRow((query) => reportStore.list(tenantId, workspaceId, query), reportKey, now)
    const dashboards = yield* everyRow((query) => dashboardStore.list(tenantId, workspaceId, query), dashboardKey, now)
    return {
      workspace: { workspace_id: found.workspace_id, name: found.name },
      reports: byName(reports).map(({ description, name, report_id }) => ({ report_id, name, description })),
      dashboards: byName(dashboards).map(({ dashboard_id, name }) => ({ dashboard_id, name }))
    }
  })

/** Refuses what is not a workspace share: the paths within one are NotFound through any other. */
const workspaceOf = (viewer: Viewer, resource: string, id: string) =>
  viewer.grant.subject_type === "workspace"
    ? Effect.succeed(viewer.grant.subject_id as WorkspaceId)
    : Effect.fail(new NotFound({ resource, id }))

/**
 * A report of a shared workspace as its viewer sees it: the viewer of
 * that report alone (so its page is drawn as a report share's is), without
 * `download` (exports and downloads stay with report shares, decision
 * 0014). A report of another workspace is NotFound.
 */
export const reportWithin = (viewer: Viewer, reportId: string): Effect.Effect<Viewer, NotFound | StoreError, ReportStore> =>
  Effect.gen(function*() {
    const workspaceId = yield* workspaceOf(viewer, "report", reportId)
    const report = yield* Reports.get(viewer.grant.tenant_id, reportId)
    if (report.workspace_id !== workspaceId) return yield* new NotFound({ resource: "report", id: reportId })
    return {
      ...viewer,
      grant: { ...viewer.grant, subject_type: "report", subject_id: report.report_id, actions: viewer.grant.actions.filter((a) => a !== "download") }
    }
  })

/** A dashboard of a shared workspace, each tile run for the viewer; one of another workspace is NotFound. */
export const dashboardWithin = (viewer: Viewer, dashboardId: string): Effect.Effect<DashboardView, NotFound | StoreError, Services> =>
  Effect.flatMap(workspaceOf(viewer, "dashboard", dashboardId), (workspaceId) => dashboardView(viewer, dashboardId, workspaceId))
