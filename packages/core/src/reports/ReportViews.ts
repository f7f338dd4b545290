/**
 * A report as someone sees it: every page (or those chosen), each visual
 * run with their row-level security and the filters added to its own,
 * four at a time. A visual that cannot be shown (its query timed out, its
 * data is not loaded) says why in words, never with a query or a row, and
 * the rest still show. Shared pages and exported documents are drawn from
 * this.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { Row } from "../datasets/AnalyticsEngine.ts"
import type * as Datasets from "../datasets/Datasets.ts"
import type { DatasetStore } from "../datasets/DatasetStore.ts"
import type { NotFound, StoreError } from "../platform/Errors.ts"
import type { Report, Visual } from "./Report.ts"
import * as Reports from "./Reports.ts"
import type { ReportStore } from "./ReportStore.ts"
import * as ResultCache from "../datasets/ResultCache.ts"
import type { Column, SecurityContext } from "../datasets/SemanticQuery.ts"

/** One visual as seen: its rows and their columns (name, kind, title, format, granularity), or why it shows none. */
export type VisualView =
  | {
    readonly _tag: "Rows"
    readonly visual: Visual
    readonly columns: ReadonlyArray<Column>
    readonly rows: ReadonlyArray<Row>
  }
  | { readonly _tag: "Unavailable"; readonly visual: Visual; readonly detail: string }

/** A report as seen: each page with each visual. */
export interface ReportView {
  readonly report: Report
  readonly pages: ReadonlyArray<{ readonly name: string; readonly visuals: ReadonlyArray<VisualView> }>
}

/** What rendering reads. */
export type Services = ReportStore | DatasetStore | Datasets.Engines

/** Who sees the report, and how much of it. */
export interface Request {
  readonly tenantId: Report["tenant_id"]
  readonly reportId: string
  readonly security: SecurityContext
  /** Added to each visual's own filters: query filters, or values of the report's filters. */
  readonly filters: Reports.ViewFilters
  /** Query filters added besides `filters`, whichever form those take (an embed's locked parameters). */
  readonly locked?: ReadonlyArray<Reports.QueryFilter> | undefined
  /** The pages to show, by name; every page when absent. */
  readonly pages?: ReadonlyArray<string> | undefined
  /** Only this visual (and its page); every visual when absent. */
  readonly visualId?: string | undefined
}

/** What a visual says when the viewer's row-level security leaves them no row of its data. */
export const hiddenDetail = "Nothing here is visible to you."

/** What a visual says when its query, with the view's filters, matches no row. */
export const noRowsDetail = "No rows match."

/** What a visual says when its query ran past the report's timeout. */
export const timedOutDetail = "This visual's query timed out."

/** Whether a visual's rows show nothing: no row, or a key figure over no row (one row without a value). */
export const matchesNoRow = (v: Extract<VisualView, { _tag: "Rows" }>): boolean => {
  if (v.rows.length === 0) return true
  if (v.visual.type !== "kpi" || v.rows.length !== 1) return false
  // A kpi names its `value` (Reports checks it).
  const measure = v.visual.encoding?.value ?? v.columns.find((c) => c.kind === "measure")?.name
  const value = measure === undefined ? undefined : v.rows[0]![measure]
  return measure !== undefined && (value === null || value === undefined || value === "")
}

/** Why a visual shows no rows, in words for its viewer (never a query's text or a row). */
export const unavailable = (error: { readonly _tag: string }): string =>
  error._tag === "QueryTimedOut"
    ? timedOutDetail
    : error._tag === "NotLoaded"
    ? "This data has not been loaded yet."
    : error._tag === "QueryInvalid"
    ? "This visual cannot be shown with the filters of this view."
    : "This visual is not available."

/**
 * Runs one visual of a report as `security` sees it, with `filters` (and
 * `locked`) added to its own: its rows, or why it shows none.
 */
export const visualView = (
  tenantId: Report["tenant_id"],
  report: string | Report,
  visual: Visual,
  security: SecurityContext,
  filters: Reports.ViewFilters,
  locked: ReadonlyArray<Reports.QueryFilter> = []
): Effect.Effect<VisualView, StoreError, Services> =>
  Reports.queryVisual(tenantId, report, visual.id, security, filters, locked).pipe(
    // a view is read to be looked at: the same queries, by many viewers, of data that changes per load
    ResultCache.cached,
    Effect.map((result): VisualView =>
      result.compiled.hidden === true
        ? { _tag: "Unavailable", visual, detail: hiddenDetail }
        : { _tag: "Rows", visual, columns: result.compiled.columns, rows: result.rows }
    ),
    Effect.catch((error: { readonly _tag: string }) =>
      error._tag === "StoreError"
        ? Effect.fail(error as StoreError)
        : Effect.succeed<VisualView>({ _tag: "Unavailable", visual, detail: unavailable(error) }))
  )

/** The report as `request` sees it. */
export const render = (request: Request): Effect.Effect<ReportView, NotFound | StoreError, Services> =>
  Effect.gen(function*() {
    const report = yield* Reports.get(request.tenantId, request.reportId)
    const chosen = report.pages
      .filter((p) => request.pages === undefined || request.pages.includes(p.name))
      .map((p) => ({ name: p.name, visuals: p.visuals.filter((v) => request.visualId === undefined || v.id === request.visualId) }))
      .filter((p) => p.visuals.length > 0 || request.visualId === undefined)
    const pages = yield* Effect.forEach(chosen, (page) =>
      Effect.map(
        Effect.forEach(page.visuals, (visual) => visualView(request.tenantId, report, visual, request.security, request.filters, request.locked), {
          concurrency: 4
        }),
        (visuals) => ({ name: page.name, visuals })
      ))
    return { report, pages }
  })
