/**
 * What the share and embed pages hand the viewer: the report as its
 * viewer sees it, each visual already planned and formatted on the server
 * (a compiled Vega spec, table cells as text), so the browser needs no
 * vega-lite, no formatter and no model. The same object is the JSON view
 * of a shared report (`Accept: application/json`).
 *
 * The shapes are the contract's (`@analytics/api`'s `ViewerData`, the JSON
 * schemas the OpenAPI document shows), imported for their types only: the
 * bundle holds no contract and no Effect.
 *
 * @since 0.1.0
 */
import type { Json, ViewerData } from "@analytics/api"

/** A value a report filter may take: one value, several, or a date range `[from, to]`. */
export type FilterValue = Json<typeof ViewerData.FilterValueJson>

/** One of the report's filters as a control. */
export type FilterControl = Json<typeof ViewerData.FilterControlJson>

/** A table's columns and its cells as text; `rows` is how many rows the visual has (the cells may be the first of them). */
export type TableData = Json<typeof ViewerData.TableJson>

/**
 * A visual of the report: its rows (keyed by `columns`, of which
 * `dimensions` are not measures) or the `message` shown instead, what is
 * drawn (`kind`: a chart's compiled `vega` spec, a `table`, a key `figure`)
 * and where its rows download as CSV when the share allows it.
 */
export type VisualData = Json<typeof ViewerData.VisualDataJson>

/** How a visual is shown: its rows, or a message instead of an empty chart. */
export type VisualState = VisualData["state"]

/** A page of the report. */
export type PageData = Json<typeof ViewerData.PageDataJson>

/** The report as its viewer sees it: its pages, its filters as controls (none when it has none) and the values they are set to in this view. */
export type ReportData = Json<typeof ViewerData.ReportDataJson>

/** The id of the page's `<script type="application/json">` element holding the `ReportData`. */
export const dataElementId = "report-data"

/** The width and height a chart is first drawn at on the server: a card of the two-column grid at 1280 px. */
export const chartSize = { width: 536, height: 280 } as const
