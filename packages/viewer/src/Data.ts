/**
 * What the share and embed pages hand the viewer: the report as its
 * viewer sees it, each visual already planned and formatted on the server
 * (a compiled Vega spec, table cells as text), so the browser needs no
 * vega-lite, no formatter and no model. The same object is the JSON view
 * of a shared report (`Accept: application/json`).
 *
 * @since 0.1.0
 */
import type { SharedViews } from "@analytics/core"

/** A value a report filter may take: one value, several, or a date range `[from, to]`. */
export type FilterValue = string | number | boolean | ReadonlyArray<string | number | boolean>

/** One of the report's filters as a control (core's, imported for its type only: the bundle holds no core). */
export type FilterControl = SharedViews.FilterControl

/** How a visual is shown: its rows, or a message instead of an empty chart. */
export type VisualState = "rows" | "no_rows" | "timed_out" | "hidden" | "unavailable"

/** A table's columns and its cells as text. */
export interface TableData {
  readonly columns: ReadonlyArray<{ readonly title: string; readonly numeric: boolean }>
  readonly cells: ReadonlyArray<ReadonlyArray<string>>
  /** How many rows the visual has (the cells may be the first of them). */
  readonly rows: number
}

/** A visual of the report. */
export interface VisualData {
  readonly id: string
  readonly type: string
  readonly title: string | null
  /** The result columns' names, as the rows key them. */
  readonly columns?: ReadonlyArray<string>
  /** Which of them are dimensions (not measures): what a click on a mark tells of it. */
  readonly dimensions?: ReadonlyArray<string>
  readonly rows?: ReadonlyArray<Readonly<Record<string, unknown>>>
  /** Why it shows no rows, when it cannot be shown. */
  readonly unavailable?: string
  readonly state: VisualState
  /** The message shown instead of the visual, in the viewer's words. */
  readonly message?: string
  /** What is drawn: a chart kind, `table` or `kpi`. */
  readonly kind?: string
  /** A key figure's value, formatted. */
  readonly figure?: string
  /** A long key figure in short (`€52.8M`); `figure` stays the exact value (its tooltip, and what screen readers read). */
  readonly figure_compact?: string
  /** A chart's compiled Vega spec, reading its rows as the data source `rows`. */
  readonly vega?: unknown
  /** A chart's text alternative. */
  readonly description?: string
  /** The rows as a table: the visual itself for a table, the chart's data on demand otherwise. */
  readonly table?: TableData
  /** Where its rows download as CSV, when the share allows it. */
  readonly download_url?: string
}

/** A page of the report. */
export interface PageData {
  readonly name: string
  readonly visuals: ReadonlyArray<VisualData>
}

/** The report as its viewer sees it. */
export interface ReportData {
  readonly report: { readonly report_id: string; readonly name: string; readonly description: string | null }
  readonly pages: ReadonlyArray<PageData>
  /** The report's filters as controls (none when it has none). */
  readonly filters?: ReadonlyArray<FilterControl>
  /** The values its filters are set to in this view. */
  readonly filter_values?: Readonly<Record<string, FilterValue>>
}

/** The id of the page's `<script type="application/json">` element holding the `ReportData`. */
export const dataElementId = "report-data"

/** The width and height a chart is first drawn at on the server: a card of the two-column grid at 1280 px. */
export const chartSize = { width: 536, height: 280 } as const
