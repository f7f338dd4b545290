/**
 * What every document draws of a visual, decided once: its chart plan
 * (from `@analytics/charts`, in the model's titles and formats), or the
 * sentence that stands in its place (why it is unavailable, or that no row
 * matches), a key figure's text, or a table's cells as text. PDF, PNG,
 * PowerPoint and Excel each lay this out in their own way.
 *
 * @since 0.1.0
 */
import { Chart, Format, Theme } from "@analytics/charts"
import { compile, toSvg } from "@analytics/charts/svg"
import { type Branding, ReportViews } from "@analytics/core"

/** A visual with its rows. */
export type Rows = Extract<ReportViews.VisualView, { readonly _tag: "Rows" }>

/** A row of a visual's result. */
export type Row = Rows["rows"][number]

/** More rows than a chart can draw legibly: they are shown as a table instead. */
export const maxDrawnRows = 1000

/** What a document shows for a visual. */
export type Shown =
  /** A sentence instead of the visual: why it is unavailable, or that no row matches. */
  | { readonly _tag: "Notice"; readonly text: string }
  /** A key figure, written in its measure's format. */
  | { readonly _tag: "Figure"; readonly plan: Chart.KpiPlan; readonly text: string }
  /** A table: its columns' titles and each cell as text. */
  | { readonly _tag: "Table"; readonly plan: Chart.TablePlan; readonly table: Table }
  /** A chart, drawn from its plan and the rows. */
  | { readonly _tag: "Chart"; readonly plan: Chart.DrawnPlan; readonly rows: ReadonlyArray<Row> }

/** A table as text: titles, which columns are numbers (right-aligned), and the cells. */
export type Table = Chart.TextTable

/** The chart theme of a deployment's branding. */
export const themeOf = (branding: Branding.Branding): Theme.Theme => Theme.theme({ primaryColor: branding.primaryColor })

/** A visual's plan, in the deployment's colours and locale. */
export const planOf = (v: Rows, branding: Branding.Branding): Chart.ChartPlan =>
  Chart.plan({ visual: v.visual, columns: v.columns, theme: themeOf(branding), locale: branding.locale })

/** When a document was made, as a person reads it in its locale: "Nov 26, 2026, 09:00 UTC" in en-US. */
export const generatedText = (at: Date, locale: string): string =>
  `${at.toLocaleString(locale, { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone: "UTC" })} UTC`

/**
 * Lets the process answer its other requests between two visuals: drawing
 * a chart settles its promises as microtasks, so a long document would
 * otherwise hold the event loop for seconds (the API stalls, and clients'
 * kept-alive connections are reset when it wakes).
 */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/** The title a document gives a visual: its own, or its id. */
export const titleOf = (v: ReportViews.VisualView): string => v.visual.title ?? v.visual.id

/** A value as text in a plan's column, in the plan's locale. */
export const cellText = (value: unknown, column: Chart.PlanColumn, locale: string): string => Format.text(value, column, { locale })

/** A table plan's rows as text. */
export const tableOf = (plan: Chart.TablePlan, rows: ReadonlyArray<Row>): Table => Chart.textTable(plan.columns, rows, plan.locale)

/** Every column of a visual's result as a table plan (what a chart too large to draw shows). */
const allColumns = (plan: Chart.ChartPlan, v: Rows): Chart.TablePlan => ({
  kind: "table",
  title: plan.title,
  theme: plan.theme,
  locale: plan.locale,
  columns: v.columns.map(Chart.planColumn)
})

/** What a document shows for a visual. */
export const shown = (v: ReportViews.VisualView, branding: Branding.Branding): Shown => {
  if (v._tag === "Unavailable") return { _tag: "Notice", text: v.detail }
  if (ReportViews.matchesNoRow(v)) return { _tag: "Notice", text: ReportViews.noRowsDetail }
  const plan = planOf(v, branding)
  switch (plan.kind) {
    case "kpi":
      return { _tag: "Figure", plan, text: cellText(v.rows[0]?.[plan.value.field], plan.value, plan.locale) }
    case "table":
      return { _tag: "Table", plan, table: tableOf(plan, v.rows) }
    default:
      return v.rows.length > maxDrawnRows
        ? { _tag: "Table", plan: allColumns(plan, v), table: tableOf(allColumns(plan, v), v.rows) }
        : { _tag: "Chart", plan, rows: v.rows }
  }
}

/**
 * A chart as SVG at `width` × `height` CSS pixels: the same Vega-Lite spec
 * the share page draws, compiled and drawn without a browser.
 */
export const chartSvg = async (plan: Chart.DrawnPlan, rows: ReadonlyArray<Row>, width: number, height: number): Promise<string> => {
  const size = { width: Math.round(width), height: Math.round(height) }
  return (await toSvg(compile(Chart.vegaLite(plan, size)), rows, size)).svg
}
