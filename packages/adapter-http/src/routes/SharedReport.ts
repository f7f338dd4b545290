/**
 * A shared report as the viewer's data (`@analytics/viewer`'s
 * `ReportData`): each visual planned by `@analytics/charts` in the model's
 * words, a chart compiled to Vega and drawn as SVG on the server (the
 * page's first paint, which needs no script), tables and key figures as
 * formatted text, and a message instead of an empty chart. The same data
 * is the report's JSON view, its first members as they always were, and
 * a member's view (`GET /v1/reports/{id}/view`, no SVG: the browser draws).
 *
 * @since 0.1.0
 */
import { Chart, Format, Theme } from "@analytics/charts"
import { compile, toSvg } from "@analytics/charts/svg"
import { Report, ReportViews } from "@analytics/core"
import { ViewerData } from "@analytics/viewer"
import { Effect, Schema } from "effect"

/** The most rows a table shows on the page (the rest are in its download, when allowed). */
export const rowsShown = 200

/** From how large a key figure is shown compact: a card is a third of a row at 1280 px and the whole screen at 390 px. */
export const compactFrom = 100_000

/**
 * A key figure in short (`€52.8M`, `1.2K`), where its full digits would
 * crowd its card; `undefined` for a small one, a percent or no number.
 */
export const compactFigure = (value: unknown, column: Format.TextColumn, locale: string): string | undefined => {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN
  if (column.role !== "quantity" || !Number.isFinite(n) || Math.abs(n) < compactFrom || column.numberFormat?.type === "percent") return undefined
  const { minimumFractionDigits: _, maximumFractionDigits: __, ...style } = Format.intlOptions(column.numberFormat)
  return new Intl.NumberFormat(locale, { ...style, notation: "compact", maximumFractionDigits: 1 }).format(n)
}

/** The size charts are first drawn at (the viewer redraws one far from it at once). */
export const chartSize = ViewerData.chartSize

/** A report's data for the viewer, and the SVG of each chart drawn on the server, by visual id. */
export interface SharedReport {
  readonly data: ViewerData.ReportData
  readonly svgs: ReadonlyMap<string, string>
}

/** What else the data carries. */
export interface Options {
  readonly theme: Theme.Theme
  /** The locale numbers are written in. */
  readonly locale: string
  readonly controls: ReadonlyArray<ReportViews.FilterControl>
  readonly values: Readonly<Record<string, ViewerData.FilterValue>>
  /** A visual's CSV, when the share allows rows. */
  readonly downloadUrl?: ((visualId: string) => string) | undefined
  /** Draw the charts' SVG (a page); the JSON view needs none. */
  readonly draw: boolean
  /** Whether the share serves rows as data (`Watermarks.servesRows`); without, see `VisualOptions.rows`. */
  readonly rows?: boolean | undefined
}

/**
 * The report filters' values a view asks for: `?filters=` holding a JSON
 * object, checked against their schema (the share page's encoding, which
 * the console's view takes too); none when absent or empty.
 */
export const filterValues = (given: string | null | undefined): Effect.Effect<Report.ReportFilterValues, ReportViews.FiltersRefused> =>
  Effect.gen(function*() {
    if (given === null || given === undefined || given === "") return {}
    const parsed = yield* Effect.try({
      try: () => JSON.parse(given) as unknown,
      catch: () => new ReportViews.FiltersRefused({ detail: "filters: not JSON; give an object of the report's filters' values" })
    })
    return yield* Schema.decodeUnknownEffect(Report.ReportFilterValues)(parsed).pipe(
      Effect.mapError((error) => new ReportViews.FiltersRefused({ detail: `filters: ${error.message}` }))
    )
  })

/** Why a visual shows nothing, from its view's words. */
const stateOf = (detail: string): ViewerData.VisualState =>
  detail === ReportViews.hiddenDetail ? "hidden" : detail === ReportViews.timedOutDetail ? "timed_out" : "unavailable"

/** The server's drawing made to fit its card: its width the card's, its height in proportion. */
const responsive = (svg: string): string =>
  svg.replace(/^<svg([^>]*?) width="([\d.]+)" height="([\d.]+)"/, (_, attrs: string, w: string, h: string) =>
    `<svg${attrs.replace(/ viewBox="[^"]*"/, "")} viewBox="0 0 ${w} ${h}" width="100%" preserveAspectRatio="xMinYMin meet"`)

/** How one visual is made: its chart's colours, its CSV's URL (when the share allows rows), whether to draw its SVG. */
export interface VisualOptions {
  readonly theme: Theme.Theme
  /** The locale numbers are written in, as in documents. */
  readonly locale: string
  readonly downloadUrl?: ((visualId: string) => string) | undefined
  readonly draw: boolean
  /** The size its chart is drawn at; a report's card's (`chartSize`) unless told. */
  readonly size?: { readonly width: number; readonly height: number } | undefined
  /**
   * Whether the share serves rows as data (`Watermarks.servesRows`; true
   * unless told). Without, a watermarked share: the visual carries no rows
   * and no columns, and a chart or a key figure no table of its data ("Show
   * data"): only what is drawn. A table visual keeps its cells, which are
   * what it draws.
   */
  readonly rows?: boolean | undefined
  /** Amounts in short on the axis (`€1.2M`): an answer's chart (`Chart.ChartInput.compactAxis`). */
  readonly compactAxis?: boolean | undefined
}

/** One visual (a report's, or a dashboard's tile's): its data for the viewer, and its SVG when it is a chart and `draw` is asked. */
export const visual = (v: ReportViews.VisualView, options: VisualOptions): Effect.Effect<{ readonly data: ViewerData.VisualData; readonly svg: string | undefined }> =>
  Effect.gen(function*() {
    const { theme } = options
    const base = { id: v.visual.id, type: v.visual.type, title: v.visual.title ?? null }
    const download = options.downloadUrl === undefined || v._tag !== "Rows" ? {} : { download_url: options.downloadUrl(v.visual.id) }
    if (v._tag === "Unavailable") {
      return { data: { ...base, unavailable: v.detail, state: stateOf(v.detail), message: v.detail } satisfies ViewerData.VisualData, svg: undefined }
    }
    const servesRows = options.rows !== false
    const rows = servesRows ? {
      ...base,
      columns: v.columns.map((c) => c.name),
      dimensions: v.columns.filter((c) => c.kind !== "measure").map((c) => c.name),
      rows: v.rows,
      ...download
    } : base
    if (ReportViews.matchesNoRow(v)) {
      return { data: { ...rows, state: "no_rows", message: ReportViews.noRowsDetail } satisfies ViewerData.VisualData, svg: undefined }
    }
    const plan = Chart.plan({ visual: v.visual, columns: v.columns, theme, locale: options.locale, compactAxis: options.compactAxis })
    const planColumns = v.columns.map(Chart.planColumn)
    const tableColumns = plan.kind === "table" ? plan.columns : planColumns
    const table: ViewerData.TableData = { ...Chart.textTable(tableColumns, v.rows.slice(0, rowsShown), options.locale), rows: v.rows.length }
    if (plan.kind === "kpi") {
      const value = v.rows[0]?.[plan.value.field]
      const figure = Format.text(value, plan.value, { locale: options.locale })
      const short = compactFigure(value, plan.value, options.locale)
      return {
        data: { ...rows, state: "rows", kind: "kpi", figure, ...(short === undefined || short === figure ? {} : { figure_compact: short }), ...(servesRows ? { table } : {}) } satisfies ViewerData.VisualData,
        svg: undefined
      }
    }
    if (!Chart.isDrawn(plan)) return { data: { ...rows, state: "rows", kind: "table", table } satisfies ViewerData.VisualData, svg: undefined }
    const size = options.size ?? chartSize
    const spec = compile(Chart.vegaLite(plan, size))
    const svg = options.draw ? responsive((yield* Effect.promise(() => toSvg(spec, v.rows, size))).svg) : undefined
    return {
      data: { ...rows, state: "rows", kind: plan.kind, vega: spec, description: Chart.describe(plan), ...(servesRows ? { table } : {}) } satisfies ViewerData.VisualData,
      svg
    }
  })

/** The report as its viewer's data, and its charts' SVG when `draw` is asked. */
export const make = (view: ReportViews.ReportView, options: Options): Effect.Effect<SharedReport> =>
  Effect.gen(function*() {
    const { theme } = options
    const svgs = new Map<string, string>()
    const pages = yield* Effect.forEach(view.pages, (page) =>
      Effect.map(
        Effect.forEach(page.visuals, (v) =>
          Effect.map(visual(v, { theme, locale: options.locale, downloadUrl: options.downloadUrl, draw: options.draw, rows: options.rows }), ({ data, svg }) => {
            if (svg !== undefined) svgs.set(v.visual.id, svg)
            return data
          })),
        (visuals) => ({ name: page.name, visuals })
      ))
    return {
      data: {
        report: { report_id: view.report.report_id, name: view.report.name, description: view.report.description },
        pages,
        filters: options.controls,
        filter_values: options.values
      },
      svgs
    }
  })
