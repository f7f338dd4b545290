/**
 * The demo's visuals (core's SampleSales model) with rows aggregated from
 * its generated orders, as the engines return them: times as UTC text,
 * revenue in EUR. Shared by the tests and the child process that draws the
 * same charts under another time zone.
 */
import { SampleSales, SemanticModel, SemanticQuery, type Report } from "@analytics/core"
import { Chart } from "@analytics/charts"
import { compile, toSvg } from "@analytics/charts/svg"

type Row = Record<string, string | number>

const model = (() => {
  const checked = SemanticModel.check(SampleSales.model)
  if (checked instanceof SemanticModel.ModelInvalid) throw new Error(checked.detail)
  return checked
})()

/** A query's result columns, as the engine reports them. */
export const columnsOf = (query: Report.Visual["query"]): ReadonlyArray<SemanticQuery.Column> => {
  const planned = SemanticQuery.plan(model, query, { roles: ["admin"], attributes: {} }, new Date("2026-11-26T00:00:00Z"))
  if (planned instanceof SemanticQuery.QueryInvalid) throw new Error(planned.detail)
  return planned.columns
}

const orders = (() => {
  const [, ...lines] = SampleSales.csv(4000).split("\n")
  return lines.map((line) => {
    const [, orderedAt, region, product, channel, quantity, revenue] = line.split(",")
    return { orderedAt, region, product, channel, quantity: Number(quantity), revenue: Number(revenue) }
  })
})()

const pad = (n: number) => String(n).padStart(2, "0")
const truncate = (at: string, granularity: "day" | "month" | "quarter"): string => {
  const [y, m, d] = [Number(at.slice(0, 4)), Number(at.slice(5, 7)), Number(at.slice(8, 10))]
  const month = granularity === "quarter" ? m - ((m - 1) % 3) : m
  return `${y}-${pad(month)}-${granularity === "day" ? pad(d) : "01"} 00:00:00`
}

/** Orders grouped by `key`, with revenue (rounded to cents), orders and units, in the key's order. */
const group = (name: string, key: (o: (typeof orders)[number]) => string | undefined): Array<Row> => {
  const groups = new Map<string, { revenue: number; orders: number; units: number }>()
  for (const o of orders) {
    const k = key(o)
    if (k === undefined) continue
    const g = groups.get(k) ?? { revenue: 0, orders: 0, units: 0 }
    g.revenue += o.revenue
    g.orders += 1
    g.units += o.quantity
    groups.set(k, g)
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, g]) => ({ [name]: k, revenue: Math.round(g.revenue * 100) / 100, orders: g.orders, units: g.units }))
}

const visual = (id: string, type: Report.VisualType, query: Report.Visual["query"], encoding: Report.Visual["encoding"] = {}): Report.Visual => ({
  id,
  type,
  title: `The ${id.replace(/_/g, " ")}`,
  dataset_id: "0190c0de-0000-7000-8000-000000000001" as Report.Visual["dataset_id"],
  query,
  encoding
})

/** A demo visual, its columns and rows. */
export interface Case {
  readonly visual: Report.Visual
  readonly columns: ReadonlyArray<Chart.Column>
  readonly rows: ReadonlyArray<Row>
}

const byRegion = group("region", (o) => o.region)
const byChannel = group("channel", (o) => o.channel)
const byMonth = group("ordered_at__month", (o) => truncate(o.orderedAt, "month"))
const byQuarter = group("ordered_at__quarter", (o) => truncate(o.orderedAt, "quarter"))
const firstDaysOfMarch = group("ordered_at__day", (o) => (o.orderedAt.startsWith("2025-03-") && Number(o.orderedAt.slice(8, 10)) <= 10 ? truncate(o.orderedAt, "day") : undefined))
const byMonthAndRegion = byMonth.flatMap((m) =>
  SampleSales.regions.map((region) => ({ ordered_at__month: m.ordered_at__month, region, revenue: Math.round(Number(m.revenue) * (region.length / 14) * 100) / 100, orders: Math.round(Number(m.orders) / 4) }))
)

const month = { dimension: "ordered_at", granularity: "month" } as const

/** A percent measure the sample model does not have: the online share of orders, 1 decimal. */
export const onlineShare: Chart.Column = { name: "online_share", member: "online_share", kind: "measure", type: "number", format: { type: "percent", decimals: 1 }, title: "Online share" }
/** Revenue in another currency than the model's: a chart holds one currency symbol. */
export const revenueUsd: Chart.Column = { name: "revenue_usd", member: "revenue_usd", kind: "measure", type: "number", format: { type: "currency", currency: "USD", decimals: 2 }, title: "Revenue usd" }
const shareByRegion = SampleSales.regions.map((region, i) => ({ region, online_share: [0.125, 0.5, 0.375, 0.2][i] }))

/** Every demo visual, and the new kinds drawn from an explicit plan option. */
export const cases: Record<string, Case> = {
  kpi: { visual: visual("revenue_total", "kpi", { measures: ["revenue"] }, { value: "revenue" }), columns: columnsOf({ measures: ["revenue"] }), rows: [{ revenue: 20000 }] },
  bar: { visual: visual("revenue_by_region", "bar", { measures: ["revenue"], dimensions: ["region"] }, { x: "region", y: ["revenue"] }), columns: columnsOf({ measures: ["revenue"], dimensions: ["region"] }), rows: byRegion },
  line: { visual: visual("revenue_by_month", "line", { measures: ["revenue"], time_dimensions: [month] }, { x: "ordered_at__month", y: ["revenue"] }), columns: columnsOf({ measures: ["revenue"], time_dimensions: [month] }), rows: byMonth },
  area: { visual: visual("units_by_month", "area", { measures: ["units"], time_dimensions: [month] }, { x: "ordered_at__month", y: ["units"] }), columns: columnsOf({ measures: ["units"], time_dimensions: [month] }), rows: byMonth },
  pie: { visual: visual("orders_by_channel", "pie", { measures: ["orders"], dimensions: ["channel"] }, { category: "channel", value: "orders" }), columns: columnsOf({ measures: ["orders"], dimensions: ["channel"] }), rows: byChannel },
  table: { visual: visual("products", "table", { measures: ["revenue", "orders"], dimensions: ["region"] }), columns: columnsOf({ measures: ["revenue", "orders"], dimensions: ["region"] }), rows: byRegion },
  quarterly_bar: {
    visual: visual("revenue_by_quarter", "bar", { measures: ["revenue"], time_dimensions: [{ dimension: "ordered_at", granularity: "quarter" }] }, { x: "ordered_at__quarter", y: ["revenue"] }),
    columns: columnsOf({ measures: ["revenue"], time_dimensions: [{ dimension: "ordered_at", granularity: "quarter" }] }),
    rows: byQuarter
  },
  daily_bar: {
    visual: visual("orders_by_day", "bar", { measures: ["orders"], time_dimensions: [{ dimension: "ordered_at", granularity: "day" }] }, { x: "ordered_at__day", y: ["orders"] }),
    columns: columnsOf({ measures: ["orders"], time_dimensions: [{ dimension: "ordered_at", granularity: "day" }] }),
    rows: firstDaysOfMarch
  },
  percent_bar: { visual: visual("online_share_by_region", "bar", { dimensions: ["region"] }, { x: "region", y: ["online_share"] }), columns: [...columnsOf({ dimensions: ["region"] }), onlineShare], rows: shareByRegion },
  pie_by_quarter: {
    visual: visual("orders_by_quarter", "pie", { measures: ["orders"], time_dimensions: [{ dimension: "ordered_at", granularity: "quarter" }] }, { category: "ordered_at__quarter", value: "orders" }),
    columns: columnsOf({ measures: ["orders"], time_dimensions: [{ dimension: "ordered_at", granularity: "quarter" }] }),
    rows: byQuarter
  },
  two_currencies: {
    visual: visual("revenue_in_two_currencies", "bar", { measures: ["revenue"], dimensions: ["region"] }, { x: "region", y: ["revenue", "revenue_usd"] }),
    columns: [...columnsOf({ measures: ["revenue"], dimensions: ["region"] }), revenueUsd],
    rows: byRegion.map((r) => ({ ...r, revenue_usd: Math.round(Number(r.revenue) * 108) / 100 }))
  },
  grouped_bar: {
    visual: visual("revenue_by_channel_and_region", "bar", { measures: ["revenue"], dimensions: ["channel", "region"] }, { x: "channel", y: ["revenue"], series: "region" }),
    columns: columnsOf({ measures: ["revenue"], dimensions: ["channel", "region"] }),
    rows: byChannel.flatMap((c) => SampleSales.regions.map((region) => ({ channel: c.channel, region, revenue: Math.round(Number(c.revenue) * (region.length / 14) * 100) / 100 })))
  },
  series_area: {
    visual: visual("revenue_by_month_and_region_area", "area", { measures: ["revenue"], dimensions: ["region"], time_dimensions: [month] }, { x: "ordered_at__month", y: ["revenue"], series: "region" }),
    columns: columnsOf({ measures: ["revenue"], dimensions: ["region"], time_dimensions: [month] }),
    rows: byMonthAndRegion
  },
  combo_by_region: {
    visual: visual("revenue_and_orders_by_region", "combo", { measures: ["revenue", "orders"], dimensions: ["region"] }, { x: "region", y: ["revenue", "orders"] }),
    columns: columnsOf({ measures: ["revenue", "orders"], dimensions: ["region"] }),
    rows: byRegion
  },
  two_measures: {
    visual: visual("orders_and_units_by_month", "line", { measures: ["orders", "units"], time_dimensions: [month] }, { x: "ordered_at__month", y: ["orders", "units"] }),
    columns: columnsOf({ measures: ["orders", "units"], time_dimensions: [month] }),
    rows: byMonth
  },
  series_line: {
    visual: visual("revenue_by_month_and_region", "line", { measures: ["revenue"], dimensions: ["region"], time_dimensions: [month] }, { x: "ordered_at__month", y: ["revenue"], series: "region" }),
    columns: columnsOf({ measures: ["revenue"], dimensions: ["region"], time_dimensions: [month] }),
    rows: byMonthAndRegion
  },
  stacked_bar: {
    visual: visual("revenue_by_month_stacked", "stacked_bar", { measures: ["revenue"], dimensions: ["region"], time_dimensions: [month] }, { x: "ordered_at__month", y: ["revenue"], series: "region" }),
    columns: columnsOf({ measures: ["revenue"], dimensions: ["region"], time_dimensions: [month] }),
    rows: byMonthAndRegion
  },
  combo: {
    visual: visual("revenue_and_orders_by_month", "combo", { measures: ["revenue", "orders"], time_dimensions: [month] }, { x: "ordered_at__month", y: ["revenue", "orders"] }),
    columns: columnsOf({ measures: ["revenue", "orders"], time_dimensions: [month] }),
    rows: byMonth
  },
  scatter: {
    visual: visual("orders_against_revenue", "scatter", { measures: ["orders", "revenue"], dimensions: ["region"] }, { x: "orders", y: ["revenue"], series: "region" }),
    columns: columnsOf({ measures: ["orders", "revenue"], dimensions: ["region"] }),
    rows: byRegion
  },
  heatmap: {
    visual: visual("revenue_by_month_and_region_heat", "heatmap", { measures: ["revenue"], dimensions: ["region"], time_dimensions: [month] }, { x: "ordered_at__month", series: "region", value: "revenue" }),
    columns: columnsOf({ measures: ["revenue"], dimensions: ["region"], time_dimensions: [month] }),
    rows: byMonthAndRegion
  }
}

/** The chart size the tests draw at. */
export const size = { width: 640, height: 320 }

/** A case's plan. */
export const planOf = (c: Case): Chart.ChartPlan => Chart.plan({ visual: c.visual, columns: c.columns })

/** A case drawn as SVG. */
export const draw = async (c: Case) => {
  const p = planOf(c)
  if (!Chart.isDrawn(p)) throw new Error(`${c.visual.id} is a ${p.kind}, not a chart`)
  return toSvg(compile(Chart.vegaLite(p, size)), c.rows)
}

/** The text of an SVG's visible `<text>` elements, in order (vega keeps labels it thins out for overlap, at opacity 0). */
export const labels = (svg: string): Array<string> =>
  [...svg.matchAll(/<text([^>]*)>([^<]*)<\/text>/g)].filter((m) => !m[1].includes("opacity=\"0\"")).map((m) => m[2].replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&#39;/g, "'").replace(/&quot;/g, "\""))
