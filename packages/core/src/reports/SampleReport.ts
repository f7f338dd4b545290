/**
 * The sample sales report, "Sales overview", over a dataset with the
 * `SampleSales` model: a key figure, bars, a line, a pie, a table and
 * every other kind of chart, with the report's filters on region, channel
 * and order date. The host's demo creates it, and tests and benchmarks open
 * the same report.
 *
 * @since 0.1.0
 */
import type { DatasetId } from "../datasets/Dataset.ts"
import type { Page, ReportCreate, ReportFilter } from "./Report.ts"

/** The report's name. */
export const name = "Sales overview"

/** The report's filters: a region, a channel, a period of order dates. */
export const filters: ReadonlyArray<ReportFilter> = [
  { name: "region", dimension: "region", title: "Region" },
  { name: "channel", dimension: "channel", title: "Channel" },
  { name: "period", dimension: "ordered_at", title: "Order date" }
]

/** The report's pages, their visuals reading the dataset `datasetId`. */
export const pages = (datasetId: DatasetId): ReadonlyArray<Page> => {
  const dataset_id = datasetId
  const month = { dimension: "ordered_at", granularity: "month" } as const
  return [
    {
      name: "Overview",
      visuals: [
        { id: "revenue_total", type: "kpi", title: "Revenue", dataset_id, query: { measures: ["revenue"] }, encoding: { value: "revenue" } },
        {
          id: "revenue_by_region",
          type: "bar",
          title: "Revenue by region",
          dataset_id,
          query: { measures: ["revenue"], dimensions: ["region"] },
          encoding: { x: "region", y: ["revenue"] }
        }
      ]
    },
    {
      name: "Trends",
      visuals: [
        {
          id: "revenue_by_month",
          type: "line",
          title: "Revenue by month",
          dataset_id,
          query: { measures: ["revenue"], time_dimensions: [month] },
          encoding: { x: "ordered_at__month", y: ["revenue"] }
        },
        {
          id: "orders_by_channel",
          type: "pie",
          title: "Orders by channel",
          dataset_id,
          query: { measures: ["orders"], dimensions: ["channel"] },
          encoding: { category: "channel", value: "orders" }
        }
      ]
    },
    {
      name: "Products",
      visuals: [{
        id: "products",
        type: "table",
        title: "Products",
        dataset_id,
        query: { measures: ["orders", "units", "revenue", "average_order"], dimensions: ["product"] }
      }]
    },
    {
      name: "Mix",
      visuals: [
        {
          id: "revenue_by_quarter_and_channel",
          type: "stacked_bar",
          title: "Revenue by quarter and channel",
          dataset_id,
          query: { measures: ["revenue"], dimensions: ["channel"], time_dimensions: [{ dimension: "ordered_at", granularity: "quarter" }] },
          encoding: { x: "ordered_at__quarter", y: ["revenue"], series: "channel" }
        },
        {
          id: "revenue_and_orders_by_region",
          type: "combo",
          title: "Revenue and orders by region",
          dataset_id,
          query: { measures: ["revenue", "orders"], dimensions: ["region"] },
          encoding: { x: "region", y: ["revenue", "orders"] }
        },
        {
          id: "units_and_revenue_by_product",
          type: "scatter",
          title: "Units and revenue by product",
          dataset_id,
          query: { measures: ["units", "revenue"], dimensions: ["product"] },
          encoding: { x: "units", y: ["revenue"], series: "product" }
        },
        {
          id: "orders_by_month_and_region",
          type: "heatmap",
          title: "Orders by month and region",
          dataset_id,
          query: { measures: ["orders"], dimensions: ["region"], time_dimensions: [month] },
          encoding: { x: "ordered_at__month", series: "region", value: "orders" }
        }
      ]
    }
  ]
}

/** What creates the report in the workspace `workspaceId` over the dataset `datasetId`. */
export const create = (workspaceId: ReportCreate["workspace_id"], datasetId: DatasetId): ReportCreate => ({
  workspace_id: workspaceId,
  name,
  description: "Revenue, trends, products and their mix in the demo sales",
  pages: pages(datasetId),
  filters
})
