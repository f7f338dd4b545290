/**
 * The sample sales dataset: a semantic model of orders and a deterministic
 * generator of its rows as CSV. The host's demo (`ANALYTICS_DEMO=1`) loads
 * it, and tests and guides use it, so the model is written once.
 *
 * @since 0.1.0
 */
import type * as SemanticModel from "./SemanticModel.ts"

/** Orders the host's demo generates. */
export const demoRows = 120_000

/** The regions orders come from; each has an executive role "<region> Lead". */
export const regions = ["EU", "US", "APAC", "LATAM"]
const products = ["Starter", "Growth", "Scale", "Add-on", "Support"]
const channels = ["Online", "Partner", "Direct"]

/** The demo orders as CSV: deterministic (a fixed-seed generator), two years from 2025-01-01. */
export const csv = (rows: number = demoRows): string => {
  let seed = 42
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648
  const start = Date.UTC(2025, 0, 1)
  const lines = ["order_id,ordered_at,region,product,channel,quantity,revenue"]
  for (let i = 0; i < rows; i++) {
    const at = new Date(start + Math.floor(random() * 730 * 86_400_000)).toISOString().slice(0, 19).replace("T", " ")
    const product = Math.floor(random() * products.length)
    const quantity = 1 + Math.floor(random() * 9)
    const revenue = Math.round(quantity * (20 + product * 35) * (0.8 + random() * 0.4) * 100) / 100
    lines.push(`${i + 1},${at},${regions[Math.floor(random() * regions.length)]},${products[product]},${channels[Math.floor(random() * channels.length)]},${quantity},${revenue}`)
  }
  return lines.join("\n")
}

/**
 * The model: admins and the CFO see every row; a member of
 * an executive role "EU Lead" (one per region) that region's rows; anyone
 * else their `region` attribute's (an embed's token, an embedding app's user).
 */
export const model: SemanticModel.Model = {
  dimensions: [
    { name: "ordered_at", type: "time", title: "Order date" },
    { name: "region", type: "string", title: "Region" },
    { name: "product", type: "string", title: "Product" },
    { name: "channel", type: "string", title: "Channel" }
  ],
  measures: [
    { name: "orders", aggregation: "count", title: "Orders", format: { type: "number", decimals: 0 } },
    { name: "revenue", aggregation: "sum", column: "revenue", title: "Revenue", format: { type: "currency", currency: "EUR", decimals: 2 } },
    { name: "units", aggregation: "sum", column: "quantity", title: "Units", format: { type: "number", decimals: 0 } },
    { name: "average_order", expression: "revenue / orders", title: "Average order", format: { type: "currency", currency: "EUR", decimals: 2 } }
  ],
  row_level_security: [
    { roles: ["admin", "CFO", "link"], all_rows: true },
    ...regions.map((region) => ({ roles: [`${region} Lead`], filter: { member: "region", operator: "equals" as const, values: [region] } })),
    { filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }
  ]
}
