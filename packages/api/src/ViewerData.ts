/**
 * A report or dashboard as the viewer's data: the JSON the browser's
 * `<report-viewer>` draws (`@analytics/viewer`'s `ReportData`), each visual
 * planned and formatted on the server (a chart's compiled Vega spec, a
 * table's cells and a key figure as text) and a message in place of a
 * visual that cannot be shown. The share page hands the viewer the same
 * object; the console reads it from `GET /v1/reports/{id}/view`.
 *
 * Typed member by member, except two that stay open on purpose: a chart's
 * `vega` (a compiled Vega 6 specification, which Vega's own JSON Schema
 * describes, far wider than anything this contract should restate) and
 * the values of `rows` (a cell: string, number, boolean or null).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** A value a report filter may take: one value, several, or a date range `[from, to]`. */
export const FilterValueJson = Schema.Union([
  Schema.String,
  Schema.Number,
  Schema.Boolean,
  Schema.Array(Schema.Union([Schema.String, Schema.Number, Schema.Boolean]))
])

/** One of the report's filters as a control. */
export const FilterControlJson = Schema.Struct({
  name: Schema.String.annotate({ description: "What `filters` names it by" }),
  title: Schema.String,
  kind: Schema.Literals(["range", "choice"]).annotate({ description: "A time dimension is a date range `[from, to]`; any other a choice among `options`" }),
  options: Schema.Array(Schema.Union([Schema.String, Schema.Number, Schema.Boolean])).annotate({
    description: "The values the caller may choose among, as their row-level security lets them see (at most 200)"
  }),
  locked: Schema.optional(Schema.Union([Schema.String, Schema.Number, Schema.Boolean]).annotate({ description: "The value it is locked to, which the caller cannot change" }))
})

/** A table's columns and its cells as text. */
export const TableJson = Schema.Struct({
  columns: Schema.Array(Schema.Struct({ title: Schema.String, numeric: Schema.Boolean })),
  cells: Schema.Array(Schema.Array(Schema.String)),
  rows: Schema.Number.annotate({ description: "How many rows the visual has (the cells may be the first 200 of them)" })
})

/** One visual as the viewer draws it. */
export const VisualDataJson = Schema.Struct({
  id: Schema.String,
  type: Schema.String.annotate({ description: "The visual's type (bar, line, table, kpi…); `missing` for a dashboard tile whose visual left its report" }),
  title: Schema.NullOr(Schema.String),
  state: Schema.Literals(["rows", "no_rows", "timed_out", "hidden", "unavailable"]).annotate({
    description: "Whether it has rows to draw, or why not: none match, its query timed out, row-level security hides all, or it cannot be shown"
  }),
  message: Schema.optionalKey(Schema.String.annotate({ description: "The words shown instead of the visual, when it has no rows to draw" })),
  unavailable: Schema.optionalKey(Schema.String),
  columns: Schema.optionalKey(Schema.Array(Schema.String).annotate({ description: "The result columns' names, as `rows` key them" })),
  dimensions: Schema.optionalKey(Schema.Array(Schema.String).annotate({
    description: "Which of `columns` are dimensions (not measures): what a click on a mark tells of it"
  })),
  rows: Schema.optionalKey(Schema.Array(Schema.Record(Schema.String, Schema.Unknown)).annotate({
    description: "The result rows, keyed by column name; each value a string, number, boolean or null"
  })),
  kind: Schema.optionalKey(Schema.String.annotate({ description: "What is drawn: a chart kind, `table` or `kpi`" })),
  figure: Schema.optionalKey(Schema.String.annotate({ description: "A key figure's value, formatted" })),
  figure_compact: Schema.optionalKey(Schema.String.annotate({ description: "A long key figure's value in short (€52.8M), where space is short; `figure` is the exact one" })),
  vega: Schema.optionalKey(Schema.Unknown.annotate({
    description: "A chart's compiled Vega 6 specification, reading the rows as its data source `rows` (open: Vega's own schema describes it)"
  })),
  description: Schema.optionalKey(Schema.String.annotate({ description: "A chart's text alternative" })),
  table: Schema.optionalKey(TableJson),
  download_url: Schema.optionalKey(Schema.String)
})

/** A page of a report: its visuals, in order. */
export const PageDataJson = Schema.Struct({ name: Schema.String, visuals: Schema.Array(VisualDataJson) })

/** A report as the viewer draws it (`@analytics/viewer`'s `ReportData`, the share page's data): its pages, its filters as controls and their values. */
export const ReportDataJson = Schema.Struct({
  report: Schema.Struct({ report_id: Schema.String, name: Schema.String, description: Schema.NullOr(Schema.String) }),
  pages: Schema.Array(PageDataJson),
  filters: Schema.optionalKey(Schema.Array(FilterControlJson)),
  filter_values: Schema.optionalKey(Schema.Record(Schema.String, FilterValueJson).annotate({
    description: "The values the report's filters are set to in this view"
  }))
})

/** A report as the caller sees it: the viewer's `ReportData`, and the watermark to tile over it. */
export const ReportViewJson = Schema.Struct({
  ...ReportDataJson.fields,
  watermark: Schema.NullOr(Schema.String).annotate({
    description: "The text to tile over the view (the caller's address) when their grant is watermarked; null otherwise"
  }),
  actions: Schema.Array(Schema.Literals(["view", "download", "comment", "share"])).annotate({
    description: "What the caller may do on the report now, as the policy decides: always view; download (export), comment and share when a grant gives them " +
      "(tenant admins always). A client hides the controls a grant with only view does not give (decision 0024)."
  })
})

/** A dashboard as the caller sees it: each tile on the 24-column grid with its visual as the viewer draws it. */
export const DashboardViewJson = Schema.Struct({
  dashboard: Schema.Struct({ dashboard_id: Schema.String, name: Schema.String }),
  tiles: Schema.Array(Schema.Struct({
    id: Schema.String,
    report_id: Schema.String,
    visual_id: Schema.String,
    x: Schema.Number,
    y: Schema.Number,
    width: Schema.Number,
    height: Schema.Number,
    visual: VisualDataJson
  })).annotate({ description: "Top to bottom, then left to right" }),
  watermark: Schema.NullOr(Schema.String).annotate({
    description: "The text to tile over the view (the caller's address) when their grant is watermarked; null otherwise"
  })
})
