/**
 * The demo report ("Sales overview", core's SampleReport over the
 * SampleSales model) as a report view, its rows aggregated here from the
 * generated orders as an engine returns them (times as UTC text, revenue
 * rounded to cents), so the documents' tests and a look at the documents
 * need no host.
 */
import { type Report, type ReportViews, SampleReport, SampleSales, SemanticModel, SemanticQuery } from "@analytics/core"

const model = (() => {
  const checked = SemanticModel.check(SampleSales.model)
  if (checked instanceof SemanticModel.ModelInvalid) throw new Error(checked.detail)
  return checked
})()

const orders = (() => {
  const [, ...lines] = SampleSales.csv(6000).split("\n")
  return lines.map((line) => {
    const [, ordered_at, region, product, channel, quantity, revenue] = line.split(",")
    return { ordered_at: ordered_at!, region: region!, product: product!, channel: channel!, quantity: Number(quantity), revenue: Number(revenue) }
  })
})()

type Order = (typeof orders)[number]

const pad = (n: number) => String(n).padStart(2, "0")
const truncate = (at: string, granularity: string): string => {
  const [y, m] = [Number(at.slice(0, 4)), Number(at.slice(5, 7))]
  return `${y}-${pad(granularity === "quarter" ? m - ((m - 1) % 3) : m)}-01 00:00:00`
}

/** A query's rows, grouped and aggregated as an engine would, in its keys' order. */
const rowsOf = (query: Report.Visual["query"], keep: (o: Order) => boolean): Array<Record<string, string | number>> => {
  const dims = (query.dimensions ?? []) as ReadonlyArray<"region" | "product" | "channel">
  const times = query.time_dimensions ?? []
  const groups = new Map<string, { key: Record<string, string>; orders: number; units: number; revenue: number }>()
  for (const o of orders.filter(keep)) {
    const key: Record<string, string> = {}
    for (const d of dims) key[d] = o[d]
    for (const t of times) key[`${t.dimension}__${t.granularity}`] = truncate(o.ordered_at, t.granularity ?? "month")
    const k = JSON.stringify(key)
    const g = groups.get(k) ?? { key, orders: 0, units: 0, revenue: 0 }
    g.orders += 1
    g.units += o.quantity
    g.revenue += o.revenue
    groups.set(k, g)
  }
  const measures: Record<string, (g: { orders: number; units: number; revenue: number }) => number> = {
    orders: (g) => g.orders,
    units: (g) => g.units,
    revenue: (g) => Math.round(g.revenue * 100) / 100,
    average_order: (g) => g.revenue / g.orders
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, g]) => ({
    ...g.key,
    ...Object.fromEntries((query.measures ?? []).map((m) => [m, measures[m]!(g)]))
  }))
}

/** The measure columns' totals as the view gives them for a document (decision 0015, "Totals"): a whole from the query without dimensions. */
const totalsOf = (columns: ReadonlyArray<SemanticQuery.Column>, keep: (o: Order) => boolean): Record<string, ReportViews.ColumnTotal> => {
  const measures = columns.filter((c) => c.kind === "measure")
  const whole = rowsOf({ measures: measures.map((c) => c.member) }, keep)[0] ?? {}
  return Object.fromEntries(measures.map((c): [string, ReportViews.ColumnTotal] => {
    const how = SemanticModel.totallingOf(SampleSales.model, c.member)
    return [c.name, how === "sum" ? { _tag: "Sum" } : how === "min" ? { _tag: "Min" } : how === "max" ? { _tag: "Max" } : { _tag: "Whole", value: whole[c.member] }]
  }))
}

/** The dataset the sample's visuals read. */
const datasetId = "0190c0de-0000-7000-8000-000000000001" as Report.Visual["dataset_id"]

/** The demo report as seen, over the orders `keep` keeps (every order by default). */
export const view = (keep: (o: Order) => boolean = () => true): ReportViews.ReportView => {
  const report = {
    report_id: "0190c0de-0000-7000-8000-000000000002",
    tenant_id: "0190c0de-0000-7000-8000-000000000003",
    workspace_id: "0190c0de-0000-7000-8000-000000000004",
    name: SampleReport.name,
    description: "Revenue, trends, products and their mix in the demo sales",
    pages: SampleReport.pages(datasetId),
    filters: SampleReport.filters,
    settings: { query_timeout_seconds: 30 },
    created_at: new Date(0),
    updated_at: new Date(0)
  } as unknown as Report.Report
  return {
    report,
    pages: report.pages.map((page) => ({
      name: page.name,
      visuals: page.visuals.map((visual): ReportViews.VisualView => {
        const planned = SemanticQuery.plan(model, visual.query, { roles: ["admin"], attributes: {} }, new Date("2026-11-26T00:00:00Z"))
        if (planned instanceof SemanticQuery.QueryInvalid) throw new Error(planned.detail)
        const rows = rowsOf(visual.query, keep)
        return { _tag: "Rows", visual, columns: planned.columns, rows, totals: rows.length < 2 ? undefined : totalsOf(planned.columns, keep) }
      })
    }))
  }
}

/** The demo report's visuals' titles, in its order. */
export const visualTitles = SampleReport.pages(datasetId).flatMap((p) => p.visuals.map((v) => v.title ?? v.id))
