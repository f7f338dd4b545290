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
import { Duration, Effect } from "effect"
import type { Row } from "../datasets/AnalyticsEngine.ts"
import * as Datasets from "../datasets/Datasets.ts"
import type { DatasetStore } from "../datasets/DatasetStore.ts"
import { type Issue, type NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import type { Report, ReportFilterValues, Visual } from "./Report.ts"
import * as Reports from "./Reports.ts"
import type { ReportStore } from "./ReportStore.ts"
import * as ResultCache from "../datasets/ResultCache.ts"
import * as SemanticModel from "../datasets/SemanticModel.ts"
import * as SemanticQuery from "../datasets/SemanticQuery.ts"
import type { Column, SecurityContext } from "../datasets/SemanticQuery.ts"

/** One visual as seen: its rows and their columns (name, kind, title, format, granularity), or why it shows none. */
export type VisualView =
  | {
    readonly _tag: "Rows"
    readonly visual: Visual
    readonly columns: ReadonlyArray<Column>
    readonly rows: ReadonlyArray<Row>
    /** Each measure column's total, by column name, when the request asked for them (`Request.totals`) and there are rows to total. */
    readonly totals?: Readonly<Record<string, ColumnTotal>> | undefined
  }
  | { readonly _tag: "Unavailable"; readonly visual: Visual; readonly detail: string }

/**
 * A measure column's total under a visual's rows (decision 0015, "Totals"):
 * the rows' sum, least or greatest value, which a document may compute from
 * the rows (`Sum`, `Min`, `Max`, as `SemanticModel.totallingOf` says); the
 * measure over the whole the rows cover, as the engine computes it (`Whole`:
 * an average, a ratio, a distinct count); or none (`None`: the rows are not
 * the whole, cut by a limit or kept by a condition on a measure, or its
 * query failed), never a sum of averages.
 */
export type ColumnTotal =
  | { readonly _tag: "Sum" | "Min" | "Max" }
  | { readonly _tag: "Whole"; readonly value: unknown }
  | { readonly _tag: "None" }

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
  /** Each visual's measure totals (`ColumnTotal`), for a document that prints a total row; a whole costs a query, so off when absent. */
  readonly totals?: boolean | undefined
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

/**
 * The totals of a visual's measure columns as `request` sees it: those the
 * rows' values give (`Sum`, `Min`, `Max`), and the others (`Whole`) from
 * the visual's query without its dimensions, granularities, order and
 * limit (the same filters, date ranges and row-level security), run once
 * for them all. None when its rows are fewer than two or have no measure.
 */
const totalsOf = (request: Request, report: Report, view: Extract<VisualView, { _tag: "Rows" }>) =>
  Effect.gen(function*() {
    const measures = view.columns.filter((c) => c.kind === "measure")
    if (measures.length === 0 || view.rows.length < 2) return undefined
    const { query } = yield* Reports.visualQuery(request.tenantId, report, view.visual.id, request.filters, request.locked)
    const model = (yield* Datasets.get(request.tenantId, view.visual.dataset_id)).model
    const how = new Map(measures.map((c) => [c.name, SemanticModel.totallingOf(model, c.member)]))
    const wholes = measures.filter((c) => how.get(c.name) === "whole")
    const measureNames = new Set(model.measures.map((m) => m.name))
    // A condition on a measure keeps some groups only, and a limit may cut them: the whole is then not what the rows show.
    const keptByMeasure = (query.filters ?? []).some((f) => SemanticModel.conditionsOf(f).some((c) => measureNames.has(c.member)))
    const cut = view.rows.length >= (query.limit ?? SemanticQuery.defaultLimit)
    const ranges = (query.time_dimensions ?? []).flatMap((t) => t.date_range === undefined ? [] : [{ dimension: t.dimension, date_range: t.date_range }])
    const whole = wholes.length === 0 || keptByMeasure || cut ? undefined : yield* Datasets.query(
      request.tenantId,
      view.visual.dataset_id,
      { measures: wholes.map((c) => c.member), ...(query.filters === undefined ? {} : { filters: query.filters }), ...(ranges.length === 0 ? {} : { time_dimensions: ranges }) },
      request.security,
      Duration.seconds(report.settings.query_timeout_seconds)
    ).pipe(
      Effect.map((result) => {
        const row = result.compiled.hidden === true ? undefined : result.rows[0]
        return new Map(result.compiled.columns.map((c) => [c.member, row?.[c.name]]))
      }),
      Effect.catch((error: { readonly _tag: string }) => error._tag === "StoreError" ? Effect.fail(error as StoreError) : Effect.succeed(undefined))
    )
    return Object.fromEntries(measures.map((c): [string, ColumnTotal] => {
      switch (how.get(c.name)) {
        case "sum":
          return [c.name, { _tag: "Sum" }]
        case "min":
          return [c.name, { _tag: "Min" }]
        case "max":
          return [c.name, { _tag: "Max" }]
        default: {
          const value = whole?.get(c.member)
          return [c.name, value === undefined ? { _tag: "None" } : { _tag: "Whole", value }]
        }
      }
    }))
  }).pipe(Effect.catchTag("NotFound", () => Effect.succeed(undefined)))

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
        Effect.forEach(page.visuals, (visual) =>
          Effect.flatMap(visualView(request.tenantId, report, visual, request.security, request.filters, request.locked), (view) =>
            request.totals !== true || view._tag !== "Rows"
              ? Effect.succeed(view)
              : Effect.map(totalsOf(request, report, view), (totals): VisualView => totals === undefined ? view : { ...view, totals })), {
          concurrency: 4
        }),
        (visuals) => ({ name: page.name, visuals })
      ))
    return { report, pages }
  })

/** Values given to the report's filters that the viewer may not set: a filter it lacks, a bad value, or a locked parameter's dimension. */
export class FiltersRefused extends TaggedFailure("FiltersRefused")<{
  readonly detail: string
}> {
  readonly code = "request/invalid" as const
  /** The `filters` parameter the values came in, saying what its detail says. */
  get issue(): Issue {
    return { path: ["query", "filters"], message: this.detail }
  }
}

/** A filter the viewer cannot lift (an embed's locked parameter): a dimension equal to a value. */
export interface LockedFilter {
  readonly member: string
  readonly operator: "equals"
  readonly values: ReadonlyArray<string | number | boolean>
}

/** Who sees a report with its filters set to values they chose: `Request` with `values` in place of `filters`. */
export interface ValuesRequest extends Omit<Request, "filters" | "locked"> {
  /** Filters the viewer cannot lift. */
  readonly locked?: ReadonlyArray<LockedFilter> | undefined
  /** Values of the report's own filters, by name (none: the report as it is). */
  readonly values: ReportFilterValues
}

/**
 * The report as `request` sees it, its filters set to `values`: each value
 * checked against the report's filters, and one for a dimension `locked`
 * holds refused, not ignored (the viewer shows that control as set).
 */
export const renderWithValues = (request: ValuesRequest): Effect.Effect<ReportView, NotFound | FiltersRefused | StoreError, Services> =>
  Effect.gen(function*() {
    const { values, ...rest } = request
    const given = Object.keys(values)
    if (given.length > 0) {
      const reason = yield* refusedValues(yield* Reports.get(request.tenantId, request.reportId), values, request.locked ?? [])
      if (reason !== undefined) return yield* new FiltersRefused({ detail: reason })
    }
    return yield* render({ ...rest, filters: given.length > 0 ? values : [] })
  })

/**
 * Why a viewer may not set `values` of the report's filters, or `undefined`
 * when they may: each checked against the report's filters, and one for a
 * dimension `locked` holds refused (the viewer shows that control as set);
 * a view's and a shared export's one rule.
 */
export const refusedValues = (report: Report, values: ReportFilterValues, locked: ReadonlyArray<LockedFilter>) =>
  Effect.gen(function*() {
    const held = new Set(locked.map((f) => f.member))
    for (const name of Object.keys(values)) {
      const filter = report.filters.find((f) => f.name === name)
      if (filter !== undefined && held.has(filter.dimension)) return `filters.${name}: set by the embedding app; it cannot be changed here`
    }
    return yield* Reports.checkFilterValues(report, values)
  })

/** One of the report's filters as a viewer's control shows it. */
export interface FilterControl {
  readonly name: string
  readonly title: string
  /** A time dimension is a date range; any other a choice among its values. */
  readonly kind: "range" | "choice"
  /** The values the viewer may choose among (a choice's, as far as `optionsShown`). */
  readonly options: ReadonlyArray<string | number | boolean>
  /** The value the embedding app locked it to, which the viewer cannot change. */
  readonly locked?: string | number | boolean | undefined
}

/** The most values a choice offers. */
export const optionsShown = 200

/**
 * The report's filters as the viewer's controls: each choice's values as
 * the viewer may see them (their row-level security and locked filters
 * applied, so no other tenant's or region's member is offered), a locked
 * one with its value. A filter whose values cannot be read offers none.
 */
export const filterControls = (
  request: Pick<ValuesRequest, "tenantId" | "reportId" | "security" | "locked">
): Effect.Effect<ReadonlyArray<FilterControl>, NotFound | StoreError, Services> =>
  Effect.gen(function*() {
    const report = yield* Reports.get(request.tenantId, request.reportId)
    if (report.filters.length === 0) return []
    const lockedFilters = request.locked ?? []
    const datasets = yield* Reports.datasetsOf(report.tenant_id, report.pages)
    return yield* Effect.forEach(report.filters, (filter) =>
      Effect.gen(function*() {
        const lock = lockedFilters.find((f) => f.member === filter.dimension)
        const dataset = datasets.find((d) => d.model.dimensions.some((dim) => dim.name === filter.dimension))
        const dimension = dataset?.model.dimensions.find((dim) => dim.name === filter.dimension)
        const base = { name: filter.name, title: filter.title ?? filter.name, ...(lock === undefined ? {} : { locked: lock.values[0] }) }
        if (dataset === undefined || dimension?.type === "time") return { ...base, kind: "range" as const, options: [] }
        const options = lock !== undefined ? [] : yield* Datasets.query(
          report.tenant_id,
          dataset.dataset_id,
          {
            dimensions: [filter.dimension],
            order: [{ member: filter.dimension, direction: "asc" }],
            limit: optionsShown,
            // the locked filters this dataset can apply: another's dimension would fail the query
            filters: lockedFilters.filter((f) => dataset.model.dimensions.some((dim) => dim.name === f.member))
          },
          request.security,
          Duration.seconds(report.settings.query_timeout_seconds)
        ).pipe(
          ResultCache.cached,
          Effect.map((result) => result.compiled.hidden === true ? [] : result.rows.flatMap((row) => {
            const value = row[filter.dimension]
            return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? [value] : []
          })),
          Effect.catch((error: { readonly _tag: string }) => error._tag === "StoreError" ? Effect.fail(error as StoreError) : Effect.succeed([]))
        )
        return { ...base, kind: "choice" as const, options }
      }), { concurrency: 3 })
  })
