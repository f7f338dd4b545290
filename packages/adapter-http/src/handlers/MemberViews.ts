/**
 * A member's view of a report or dashboard (`GET /v1/reports/{id}/view`,
 * `GET /v1/dashboards/{id}/view`): core's `MemberViews` (the policy's
 * `view`, the caller's row-level security) made into the viewer's data by
 * the share page's builder (`SharedReport`), without server-drawn SVG (the
 * browser draws); the filters' values in the share page's encoding. A
 * view runs its queries in one slot of its workspace's query concurrency,
 * as a single visual's query does.
 *
 * @since 0.1.0
 */
import { Dashboards, DashboardStore, DashboardViews, DatasetStore, Datasets, DirectoryStore, GrantStore, MemberViews, Policy, type Principal, Reports, ReportStore, WorkspaceStore } from "@analytics/core"
import { Format, Theme } from "@analytics/charts"
import type { ViewerData } from "@analytics/viewer"
import { Effect } from "effect"
import { type DomainError, toProblem } from "../edge/DomainProblems.ts"
import * as SharedReport from "../routes/SharedReport.ts"
import * as SharePage from "../routes/SharePage.ts"
import { ServiceInfo } from "../ServiceInfo.ts"
import type { analyticsTools } from "./AnalyticsTools.ts"
import { captured, readingOnce } from "./Handling.ts"

/**
 * A visual with its Vega spec as JSON has it: the compiled spec leaves
 * members `undefined`, which the share page's `JSON.stringify` drops and
 * the contract's JSON schema refuses.
 */
const asJson = (visual: ViewerData.VisualData): ViewerData.VisualData =>
  visual.vega === undefined ? visual : { ...visual, vega: JSON.parse(JSON.stringify(visual.vega)) }

/** A tile whose visual left its report, as the viewer shows it: its message in place of the visual. */
const missingVisual = (visualId: string, detail: string): ViewerData.VisualData => ({
  id: visualId,
  type: "missing",
  title: null,
  state: "unavailable",
  unavailable: detail,
  message: detail
})

/** The two views, over the services they read, in the deployment's colours and locale; `tools`' slots bound their queries. */
export const memberViews = (tools: Effect.Success<typeof analyticsTools>) => Effect.gen(function*() {
  const provide = yield* captured(
    ReportStore.ReportStore,
    DashboardStore.DashboardStore,
    DatasetStore.DatasetStore,
    WorkspaceStore.WorkspaceStore,
    DirectoryStore.DirectoryStore,
    GrantStore.GrantStore,
    Datasets.Engines
  )
  const info = yield* ServiceInfo
  const theme = Theme.theme({ primaryColor: info.branding.primaryColor })
  const locale = info.branding.locale ?? Format.defaultLocale
  const run = <A, E extends DomainError>(effect: Effect.Effect<A, E, MemberViews.Services>) => Effect.mapError(provide(effect), toProblem)

  /** The report as the member sees it, with `filters` (a JSON object of the report's filters' values) and only `pages` when given. */
  const report = (member: Principal.Member, reportId: string, query: { readonly filters?: string | undefined; readonly pages?: string | ReadonlyArray<string> | undefined }) =>
    Effect.gen(function*() {
      const values = yield* Effect.mapError(SharedReport.filterValues(query.filters), toProblem)
      const chosen = query.pages === undefined ? undefined : typeof query.pages === "string" ? [query.pages] : query.pages
      const { workspace_id } = yield* run(Reports.get(member.tenantId, reportId))
      const seen = yield* tools.inSlot(member.tenantId, workspace_id, run(Effect.updateContext(MemberViews.report(member, reportId, values, chosen), readingOnce)))
      const { data } = yield* SharedReport.make(seen.view, { theme, locale, controls: seen.controls, values, draw: false })
      const pages = data.pages.map((page) => ({ ...page, visuals: page.visuals.map(asJson) }))
      // The controls a view-only grant hides, asked of the one policy as the operations themselves ask it.
      const may = (operation: "exports.export" | "comments.create" | "sharing.create") =>
        run(Policy.onSubject(member, operation, reportId).pipe(
          Effect.as(true),
          Effect.catchTags({ Forbidden: () => Effect.succeed(false), ShareExpired: () => Effect.succeed(false), NotFound: () => Effect.succeed(false) })
        ))
      const [download, comment, share] = yield* Effect.all([may("exports.export"), may("comments.create"), may("sharing.create")], { concurrency: 3 })
      const actions = [
        "view" as const,
        ...(download ? ["download" as const] : []),
        ...(comment ? ["comment" as const] : []),
        ...(share ? ["share" as const] : [])
      ]
      return { ...data, pages, watermark: seen.watermark, actions } satisfies ViewerData.ReportData & { readonly watermark: string | null; readonly actions: ReadonlyArray<string> }
    })

  /** The dashboard as the member sees it: each tile's visual planned at its tile's size, as the shared dashboard's page plans it. */
  const dashboard = (member: Principal.Member, dashboardId: string) =>
    Effect.gen(function*() {
      const { workspace_id } = yield* run(Dashboards.get(member.tenantId, dashboardId))
      const seen = yield* tools.inSlot(member.tenantId, workspace_id, run(Effect.updateContext(MemberViews.dashboard(member, dashboardId), readingOnce)))
      const tiles = yield* Effect.forEach(seen.view.tiles, ({ tile, view }: DashboardViews.TileView) =>
        Effect.map(
          view._tag === "Missing"
            ? Effect.succeed(missingVisual(tile.visual_id, view.detail))
            : Effect.map(SharedReport.visual(view, { theme, locale, draw: false, size: SharePage.tileChartSize(tile) }), ({ data }) => asJson(data)),
          (visual) => ({ id: tile.id, report_id: tile.report_id, visual_id: tile.visual_id, x: tile.x, y: tile.y, width: tile.width, height: tile.height, visual })
        ))
      return {
        dashboard: { dashboard_id: seen.view.dashboard.dashboard_id, name: seen.view.dashboard.name },
        tiles,
        watermark: seen.watermark
      }
    })
  return { report, dashboard }
})
