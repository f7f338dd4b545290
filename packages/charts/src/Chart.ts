/**
 * A visual of a report (docs/guides/reports.md) and the columns of its
 * query become a format-neutral `ChartPlan`, in the model's own words: each
 * column's title, its role (a time, a category, a quantity), the time unit
 * and format of its granularity and the number format its measure declares.
 * Every renderer reads the plan: the share page, embeds, PDF and PNG through
 * `vegaLite`, and PowerPoint and Excel directly.
 *
 * @since 0.1.0
 */
import type { Report, SemanticQuery } from "@analytics/core"
import type { TopLevelSpec } from "vega-lite"
import * as Format from "./Format.ts"
import * as Theme from "./Theme.ts"

/** What a plan's column is: a time (an axis in time), a category, or a quantity (a measure). */
export type Role = "time" | "category" | "quantity"

/** A column of a plan. */
export interface PlanColumn {
  /** The result column's name (the rows' key). */
  readonly field: string
  /** Its title, from the model, or its name made readable. */
  readonly title: string
  readonly role: Role
  /** For a time: Vega-Lite's UTC time unit of its granularity. */
  readonly timeUnit?: ReturnType<typeof Format.timeUnit>
  /** For a time: the d3 time format of its granularity (`%b %Y`). */
  readonly timeFormat?: string
  /** For a quantity: the format its measure declares. */
  readonly numberFormat?: Format.NumberFormat
  /** For a quantity: its axis labels in short (`€1.2M`, not `€1,200,000`), for a chart drawn small (an answer's). */
  readonly compact?: boolean
}

/** The kinds of plan: a table and a key figure are not drawn by Vega; the others are charts. */
export type Kind = "table" | "kpi" | ChartKind

/** The kinds of chart. */
export type ChartKind = "bar" | "stacked_bar" | "line" | "area" | "combo" | "scatter" | "heatmap" | "pie"

/** What every plan carries. */
interface Common {
  /** The visual's title, when it has one. */
  readonly title?: string | undefined
  readonly theme: Theme.Theme
  readonly locale: string
}

/** A plan for a table: its columns, in order. */
export interface TablePlan extends Common {
  readonly kind: "table"
  readonly columns: ReadonlyArray<PlanColumn>
}

/** A plan for a key figure: the one value shown. */
export interface KpiPlan extends Common {
  readonly kind: "kpi"
  readonly value: PlanColumn
}

/**
 * A plan for a chart on two axes: `x`, the measures on `y` (a scatter's `x`
 * is a quantity too), an optional `series` (colour; a heatmap's rows), and
 * how bars are ordered: by value, highest first, or as the engine returned them.
 */
export interface XyPlan extends Common {
  readonly kind: Exclude<ChartKind, "pie">
  readonly x: PlanColumn
  readonly y: ReadonlyArray<PlanColumn>
  readonly series?: PlanColumn | undefined
  readonly order: "value" | "engine"
}

/** A plan for a pie: slices of `value` by `category`. */
export interface PiePlan extends Common {
  readonly kind: "pie"
  readonly category: PlanColumn
  readonly value: PlanColumn
}

/** A plan Vega draws. */
export type DrawnPlan = XyPlan | PiePlan

/** A format-neutral plan of a visual. */
export type ChartPlan = TablePlan | KpiPlan | DrawnPlan

/** A result column, as a query gives it (with its title). */
export type Column = SemanticQuery.Column

/** What a plan is made from. */
export interface ChartInput {
  readonly visual: Report.Visual
  /** The query's result columns, in order. */
  readonly columns: ReadonlyArray<Column>
  readonly theme?: Theme.Theme | undefined
  /** The locale numbers are shown in; en-US when omitted. */
  readonly locale?: string | undefined
  /** Bars by value, highest first, or in the engine's order; by default the engine's when the query orders its rows. */
  readonly order?: "value" | "engine" | undefined
  /** Quantities' axis labels in short (`€1.2M`): an answer's chart; a report's keeps whole numbers. */
  readonly compactAxis?: boolean | undefined
}

/** A result column as a plan's column. */
export const planColumn = (column: Column): PlanColumn => {
  // Query results always title their columns (the model's title, else the name in words); the name is a last resort.
  const title = column.title ?? column.name
  if (column.kind === "measure") {
    return column.format === undefined
      ? { field: column.name, title, role: "quantity" }
      : { field: column.name, title, role: "quantity", numberFormat: column.format }
  }
  if (column.type === "time") {
    return { field: column.name, title, role: "time", timeUnit: Format.timeUnit(column.granularity), timeFormat: Format.timeFormat(column.granularity) }
  }
  return { field: column.name, title, role: "category" }
}

/** The plan of a visual. A chart its encoding cannot fill (no measure, no x) is planned as a table. */
export const plan = (input: ChartInput): ChartPlan => {
  const common: Common = {
    title: input.visual.title,
    theme: input.theme ?? Theme.theme(),
    locale: input.locale ?? Format.defaultLocale
  }
  const all = input.columns.map(planColumn).map((c) => (input.compactAxis === true && c.role === "quantity" ? { ...c, compact: true } : c))
  const byName = new Map(all.map((c) => [c.field, c]))
  const encoding = input.visual.encoding ?? {}
  const quantities = all.filter((c) => c.role === "quantity")
  const others = all.filter((c) => c.role !== "quantity")
  const find = (name: string | undefined) => (name === undefined ? undefined : byName.get(name))
  const table: TablePlan = {
    ...common,
    kind: "table",
    columns: encoding.columns === undefined ? all : encoding.columns.flatMap((n) => byName.get(n) ?? [])
  }
  const order = input.order ?? ((input.visual.query.order ?? []).length > 0 ? "engine" : "value")

  const x = find(encoding.x) ?? others[0]
  const y = encoding.y === undefined ? quantities : encoding.y.flatMap((n) => byName.get(n) ?? [])
  const series = find(encoding.series) ?? (encoding.x === undefined ? others[1] : undefined)
  const xy = (kind: XyPlan["kind"]): XyPlan | undefined =>
    x === undefined || y.length === 0 ? undefined : { ...common, kind, x, y, series, order }

  const wanted = input.visual.type
  /** stacked_bar, combo, scatter and heatmap, when the encoding fills them. */
  const special = (): ChartPlan | undefined => {
    switch (wanted) {
      case "stacked_bar":
        // by series (one measure) or by measure (several)
        return (series === undefined) === (y.length === 1) ? undefined : xy("stacked_bar")
      case "combo":
        return y.length < 2 ? undefined : xy("combo")
      case "scatter": {
        const [sx, sy] = encoding.x !== undefined && x?.role === "quantity" ? [x, y.find((c) => c !== x)] : [quantities[0], quantities[1]]
        return sx === undefined || sy === undefined ? undefined : { ...common, kind: "scatter", x: sx, y: [sy], series: find(encoding.series), order }
      }
      case "heatmap": {
        const value = find(encoding.value) ?? y[0]
        const rows = series ?? others.find((c) => c !== x)
        return x === undefined || value === undefined || rows === undefined ? undefined : { ...common, kind: "heatmap", x, y: [value], series: rows, order }
      }
      default:
        return undefined
    }
  }

  const fromType = (type: Report.VisualType): ChartPlan => {
    switch (type) {
      case "table":
        return table
      case "kpi": {
        const value = find(encoding.value) ?? quantities[0] ?? all[0]
        return value === undefined ? table : { ...common, kind: "kpi", value }
      }
      case "pie": {
        const category = find(encoding.category) ?? x
        const value = find(encoding.value) ?? y[0]
        return category === undefined || value === undefined ? table : { ...common, kind: "pie", category, value }
      }
      case "bar":
      case "line":
      case "area":
        return xy(type) ?? table
      case "stacked_bar":
      case "combo":
        // Bars, when there is nothing to stack or no second measure to draw as a line.
        return xy("bar") ?? table
      default:
        return table
    }
  }
  return special() ?? fromType(wanted)
}

/** Rows as a table of text: each column's title, whether it holds numbers (right-aligned), and the cells. */
export interface TextTable {
  readonly columns: ReadonlyArray<{ readonly title: string; readonly numeric: boolean }>
  readonly cells: ReadonlyArray<ReadonlyArray<string>>
}

/** `rows` in `columns` as text, each cell as `Format.text` writes it: a table's, a chart's data on demand, a document's. */
export const textTable = (
  columns: ReadonlyArray<PlanColumn>,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>,
  locale: string = Format.defaultLocale
): TextTable => ({
  columns: columns.map((c) => ({ title: c.title, numeric: c.role === "quantity" })),
  cells: rows.map((row) => columns.map((c) => Format.text(row[c.field], c, { locale })))
})

/** Whether Vega draws the plan (every kind but a table and a key figure). */
export const isDrawn = (p: ChartPlan): p is DrawnPlan => p.kind !== "table" && p.kind !== "kpi"

/** The font charts are drawn in: DejaVu Sans is the one the PDF and PNG exports embed. */
export const font = "DejaVu Sans, system-ui"

const kindName: Record<ChartKind, string> = {
  bar: "Bar chart",
  stacked_bar: "Stacked bar chart",
  line: "Line chart",
  area: "Area chart",
  combo: "Bar and line chart",
  scatter: "Scatter plot",
  heatmap: "Heatmap",
  pie: "Pie chart"
}

const titles = (cs: ReadonlyArray<PlanColumn>) => cs.map((c) => c.title).join(", ")

/** The chart's text alternative: what it shows, by what, in what order. */
export const describe = (p: DrawnPlan): string => {
  const what = p.kind === "pie"
    ? `${kindName.pie} of ${p.value.title} by ${p.category.title}`
    : p.kind === "scatter"
    ? `${kindName.scatter} of ${p.y[0].title} against ${p.x.title}${p.series === undefined ? "" : `, by ${p.series.title}`}`
    : p.kind === "heatmap"
    ? `${kindName.heatmap} of ${p.y[0].title} by ${p.x.title} and ${p.series?.title}`
    : `${kindName[p.kind]} of ${titles(p.y)} by ${p.x.title}${p.series === undefined ? "" : ` and ${p.series.title}`}`
  const sorted = (p.kind === "bar" || p.kind === "stacked_bar") && p.x.role === "category" && p.order === "value" ? `, highest ${p.y[0].title} first` : ""
  return `${p.title === undefined ? "" : `${p.title}: `}${what}${sorted}.`
}

/** The size a chart is drawn at, in CSS pixels; `container` fills its element's width. */
export interface Size {
  readonly width: number | "container"
  readonly height: number
}

/**
 * An encoding channel of a column, with its title and formats. A time is a
 * continuous axis for lines, areas and points, and one band per period for
 * bars and heatmaps (`discrete`), so no bar reads as the next period's.
 */
const channel = (c: PlanColumn, extra: Record<string, unknown> = {}, discrete = false, onX = false): Record<string, unknown> => {
  switch (c.role) {
    case "time":
      return {
        field: c.field,
        type: discrete ? "ordinal" : "temporal",
        timeUnit: c.timeUnit,
        title: c.title,
        axis: { format: c.timeFormat, labelOverlap: true, labelAngle: discrete && onX ? periodLabelAngle : 0, ...(discrete ? {} : { tickCount: continuousTicks }) },
        ...extra
      }
    case "category":
      // level labels, read without turning one's head (a slant makes PDF readers split their words); those that would overlap are left out
      return { field: c.field, type: "nominal", title: c.title, axis: { labelAngle: 0, labelOverlap: true, labelLimit: 120 }, ...extra }
    case "quantity":
      // about one gridline per 50 pixels (80 across, where labels are wider), so a tall card is not ruled like a ledger
      return {
        field: c.field,
        type: "quantitative",
        title: c.title,
        axis: { ...quantityAxis(c), tickCount: { expr: onX ? "ceil(width / 80)" : "ceil(height / 50)" } },
        ...extra
      }
  }
}

/**
 * A quantity's axis labels: in its measure's format, or in short (`€1.2M`,
 * `15k`; `B` for billions) when the plan asks, under 1,000 as they are.
 */
const quantityAxis = (c: PlanColumn): Record<string, unknown> => {
  if (c.compact !== true || c.numberFormat?.type === "percent") return { format: Format.d3Format(c.numberFormat, "axis") }
  const symbol = c.numberFormat?.type === "currency" ? "$" : ""
  return {
    format: `${symbol}.2~s`,
    labelExpr: `abs(datum.value) < 1000 ? format(datum.value, '${symbol},.2~f') : replace(datum.label, 'G', 'B')`
  }
}

/**
 * Periods on x (a band each: bars, heatmaps) are labelled upright, the
 * narrowest a label can be, so each quarter's or month's bar keeps its
 * label instead of level labels being thinned to the first and the last;
 * categories are upright too, by Vega-Lite's default. A slant would fit
 * more, but PDF readers then split its words ("AP", "AC"), so searching and
 * copying the document would fail.
 */
const periodLabelAngle = -90

/**
 * On a continuous time axis, a tick per 90 pixels: about a label's width
 * ("Sep 2025") with room around it, so labels are thinned by the axis's
 * own rounder intervals rather than by overlap, which keeps only the ends.
 */
const continuousTicks = { expr: "ceil(width / 90)" }

/** A colour channel of a column, with its legend's title and format. */
const colour = (c: PlanColumn, extra: Record<string, unknown> = {}): Record<string, unknown> => {
  switch (c.role) {
    case "time":
      return { field: c.field, type: "ordinal", timeUnit: c.timeUnit, title: c.title, legend: { format: c.timeFormat }, ...extra }
    case "category":
      return { field: c.field, type: "nominal", title: c.title, ...extra }
    case "quantity":
      return { field: c.field, type: "quantitative", title: c.title, legend: { format: Format.d3Format(c.numberFormat, "axis") }, ...extra }
  }
}

/** A tooltip entry of a column, formatted as labels are. */
const tip = (c: PlanColumn): Record<string, unknown> => {
  switch (c.role) {
    case "time":
      return { field: c.field, type: "temporal", timeUnit: c.timeUnit, format: c.timeFormat, title: c.title }
    case "category":
      return { field: c.field, type: "nominal", title: c.title }
    case "quantity":
      return { field: c.field, type: "quantitative", format: Format.d3Format(c.numberFormat, "label"), title: c.title }
  }
}

const columnsOf = (p: DrawnPlan): ReadonlyArray<PlanColumn> =>
  p.kind === "pie" ? [p.category, p.value] : [p.x, ...p.y, ...(p.series === undefined ? [] : [p.series])]

/** The first currency among the plan's measures: the one Vega's locale writes `$` as. */
const currencyOf = (p: DrawnPlan): string | undefined => {
  for (const c of columnsOf(p)) if (c.numberFormat?.type === "currency") return c.numberFormat.currency
  return undefined
}

/**
 * A plan whose measures in another currency than `currency` are drawn as
 * plain numbers with the currency's code in their title (`Revenue (USD)`):
 * Vega's locale has one currency symbol per chart.
 */
const oneCurrency = (p: DrawnPlan, currency: string | undefined): DrawnPlan => {
  const plain = (c: PlanColumn): PlanColumn => {
    const f = c.numberFormat
    if (f?.type !== "currency" || f.currency === currency) return c
    const decimals = f.decimals ?? new Intl.NumberFormat("en-US", { style: "currency", currency: f.currency }).resolvedOptions().maximumFractionDigits ?? 2
    return { ...c, title: `${c.title} (${f.currency})`, numberFormat: { type: "number", decimals } }
  }
  return p.kind === "pie"
    ? { ...p, category: plain(p.category), value: plain(p.value) }
    : { ...p, x: plain(p.x), y: p.y.map(plain), series: p.series === undefined ? undefined : plain(p.series) }
}

/**
 * A Vega-Lite spec of a drawn plan. Its data is the named source `rows`
 * (the query's rows as they come: times as UTC text, parsed in UTC), so
 * one spec serves every set of rows; titles, formats, colours and the text
 * alternative (`description`) come from the plan.
 */
export const vegaLite = (drawn: DrawnPlan, size: Size): TopLevelSpec => {
  const currency = currencyOf(drawn)
  const p = oneCurrency(drawn, currency)
  const parse: Record<string, string> = {}
  for (const c of columnsOf(p)) parse[c.field] = c.role === "time" ? Format.timeParse : c.role === "quantity" ? "number" : "string"
  const { theme } = p
  const base = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    description: describe(p),
    data: { name: "rows", format: { parse } },
    width: size.width,
    height: size.height,
    autosize: { type: "fit", contains: "padding" },
    background: theme.background,
    // What a page in dark mode swaps: each colour of the first list for the one in the same place of the second.
    usermeta: { darkColors: { from: [...theme.palette, theme.light], to: [...theme.dark.palette, theme.dark.light] } },
    config: {
      font,
      locale: { number: Format.numberLocale(currency, p.locale) },
      range: { category: [...theme.palette], heatmap: [theme.light, theme.accent] },
      mark: { color: theme.accent },
      view: { stroke: null },
      axis: { labelColor: theme.mutedText, titleColor: theme.text, labelFontSize: 11, titleFontSize: 12, titleFontWeight: "normal" },
      legend: { labelColor: theme.mutedText, titleColor: theme.text }
    }
  }
  const spec = (() => {
    switch (p.kind) {
      case "pie": {
        // a ring, each slice labelled with its share just outside it
        // the radii follow the plot (the width may be the container's), leaving room for the labels
        const outer = "max(40, min(width, height) / 2 - 24)"
        return {
          transform: [
            { joinaggregate: [{ op: "sum", field: p.value.field, as: "share_total" }] },
            { calculate: `datum[${JSON.stringify(p.value.field)}] / datum.share_total`, as: "share" }
          ],
          encoding: {
            theta: { field: p.value.field, type: "quantitative", stack: true, title: p.value.title },
            color: colour(p.category, { sort: { field: p.value.field, order: "descending" } }),
            order: { field: p.value.field, type: "quantitative", sort: "descending" },
            tooltip: [tip(p.category), tip(p.value), { field: "share", type: "quantitative", title: "Share", format: ".1%" }]
          },
          layer: [
            { mark: { type: "arc", outerRadius: { expr: outer }, innerRadius: { expr: `${outer} * 0.55` }, stroke: theme.background, strokeWidth: 1 } },
            { mark: { type: "text", radius: { expr: `${outer} + 14` }, fill: theme.text, fontSize: 11 }, encoding: { text: { field: "share", type: "quantitative", format: ".0%" } } }
          ]
        }
      }
      case "scatter":
        return {
          mark: { type: "point", filled: true, size: 60 },
          encoding: {
            // points sit where the data is, not squeezed into a corner by a zero baseline
            x: channel(p.x, { scale: { zero: false, nice: true, padding: 16 } }, false, true),
            y: channel(p.y[0], { scale: { zero: false, nice: true, padding: 16 } }),
            ...(p.series === undefined ? {} : { color: colour(p.series) }),
            tooltip: columnsOf(p).map(tip)
          }
        }
      case "heatmap":
        return {
          mark: { type: "rect" },
          encoding: {
            x: channel(p.x, {}, true, true),
            y: channel(p.series!, {}, true),
            color: colour(p.y[0]),
            tooltip: columnsOf(p).map(tip)
          }
        }
      case "combo": {
        const [bars, ...lines] = p.y
        const sameFormat = lines.every((l) => JSON.stringify(l.numberFormat) === JSON.stringify(bars.numberFormat))
        const titles = p.y.map((c) => c.title)
        const legendOf = (c: PlanColumn) => ({
          datum: c.title,
          type: "nominal",
          scale: { domain: titles, range: titles.map((_, i) => theme.palette[i % theme.palette.length]) },
          legend: { title: null, orient: "bottom" }
        })
        return {
          // by the bars' measure: a sort by "-y" would differ between the layers
          encoding: {
            x: channel(p.x, p.x.role === "category" ? { sort: p.order === "value" ? { field: bars.field, op: "sum", order: "descending" } : null } : {}, true, true)
          },
          layer: [
            { mark: { type: "bar" }, encoding: { y: channel(bars), color: legendOf(bars), tooltip: [tip(p.x), tip(bars)] } },
            ...lines.map((l) => ({
              // the points in the line's colour too: in the accent they would vanish on the bars
              mark: { type: "line", point: true },
              encoding: { y: channel(l), color: legendOf(l), tooltip: [tip(p.x), tip(l)] }
            }))
          ],
          // one legend names the bars' measure and each line's, in the palette's order
          ...(sameFormat ? { resolve: { scale: { color: "shared" } } } : { resolve: { scale: { y: "independent", color: "shared" } } })
        }
      }
      default:
        return xySpec(p)
    }
  })()
  return { ...base, ...spec } as unknown as TopLevelSpec
}

/** bar, stacked_bar, line and area: one measure (coloured by series) or several (folded, coloured by measure). */
const xySpec = (p: XyPlan): Record<string, unknown> => {
  const isBar = p.kind === "bar" || p.kind === "stacked_bar"
  const mark = isBar ? { type: "bar" } : p.kind === "line" ? { type: "line", point: true } : { type: "area", line: true, opacity: 0.85 }
  const xSort = p.x.role === "category" ? (isBar && p.order === "value" ? { sort: "-y" } : { sort: null }) : {}
  if (p.y.length === 1) {
    const [y] = p.y
    const series = p.series
    return {
      mark,
      encoding: {
        x: channel(p.x, xSort, isBar, true),
        y: channel(y, p.kind === "area" && series !== undefined ? { stack: "zero" } : {}),
        ...(series === undefined ? {} : { color: colour(series) }),
        ...(series !== undefined && p.kind === "bar" ? { xOffset: { field: series.field, type: "nominal" } } : {}),
        tooltip: columnsOf(p).map(tip)
      }
    }
  }
  // several measures: one row per (x, measure), the measure's title as its name
  const named = p.y.reduceRight((otherwise, c) => `datum.measure_field === ${JSON.stringify(c.field)} ? ${JSON.stringify(c.title)} : ${otherwise}`, "datum.measure_field")
  const [first] = p.y
  return {
    transform: [
      { fold: p.y.map((c) => c.field), as: ["measure_field", "measure_value"] },
      { calculate: named, as: "measure" }
    ],
    mark,
    encoding: {
      x: channel(p.x, xSort, isBar, true),
      y: { field: "measure_value", type: "quantitative", title: titles(p.y), axis: quantityAxis(first), ...(p.kind === "area" ? { stack: "zero" } : {}) },
      color: { field: "measure", type: "nominal", title: null, sort: p.y.map((c) => c.title) },
      ...(p.kind === "bar" ? { xOffset: { field: "measure", type: "nominal", sort: p.y.map((c) => c.title) } } : {}),
      // a folded row keeps its other fields: each measure in its own format
      tooltip: [tip(p.x), ...p.y.map(tip)]
    }
  }
}
