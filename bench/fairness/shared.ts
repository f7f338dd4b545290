/** What `run.ts` and `flood.ts` share: the rows, the model, the two tenants' queries, percentiles. */

/** The sales rows' model; tenant admins (the bench's tokens) see every row. */
export const model = {
  dimensions: [
    { name: "region", type: "string" },
    { name: "product", type: "string" },
    { name: "customer", type: "string" },
    { name: "ordered_at", type: "time" }
  ],
  measures: [
    { name: "orders", aggregation: "count" },
    { name: "revenue", aggregation: "sum", column: "amount" },
    { name: "customers", aggregation: "count_distinct", column: "customer" }
  ],
  row_level_security: [{ roles: ["admin"], all_rows: true }]
}

/** Tenant A's query: revenue and orders by region (4 rows), the kind of query a dashboard tile runs. */
export const queryA = { measures: ["revenue", "orders"], dimensions: ["region"] }

/** Tenant B's flood: distinct customers and revenue by product and month (1,200 rows), a heavier query. */
export const queryB = {
  measures: ["revenue", "customers"],
  dimensions: ["product"],
  time_dimensions: [{ dimension: "ordered_at", granularity: "month" }]
}

/** `rows` deterministic sales rows as CSV: 4 regions, 50 products, 20,000 customers, two years. */
export const salesCsv = (rows: number): string => {
  const regions = ["EU", "US", "APAC", "LATAM"]
  const lines = ["region,product,customer,ordered_at,amount"]
  const start = Date.UTC(2024, 0, 1)
  const span = 2 * 365 * 86_400_000
  let seed = 42
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648)
  for (let i = 0; i < rows; i++) {
    const at = new Date(start + (next() % span)).toISOString().slice(0, 19).replace("T", " ")
    lines.push(`${regions[i % 4]},p${next() % 50},c${next() % 20_000},${at},${(next() % 100_000) / 100}`)
  }
  return `${lines.join("\n")}\n`
}

/** The nearest-rank percentile `p` (0 to 1) of `values`, in their unit; NaN for none. */
export const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!
}
