/**
 * The total row of an Excel export (decision 0015, "Totals"), over HTTP on
 * a real DuckDB engine, on every store: under a products table like the
 * demo's, a summable measure's total is a live SUM of its rows, a maximum's
 * a MAX, and an average's or a ratio's (average order = revenue / orders)
 * is the measure over every row, as the engine computes it, never the sum
 * of the products' averages. Rows cut by a limit are not the whole: their
 * averages have no total, their sums still add up.
 */
import { Documents } from "@analytics/adapter-documents"
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import JSZip from "jszip"
import { onEveryStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

const products = ["Add-on", "Basic", "Enterprise", "Pro"]

/** The product of each of seven orders in turn: some products sell more often than others, so their averages weigh differently. */
const mix = [0, 0, 0, 1, 1, 2, 3]

/** 60 orders: a quantity, and a revenue of cents that grows with the product. */
const orders = Array.from({ length: 60 }, (_, i) => ({
  product: products[mix[i % 7]!]!,
  quantity: 1 + ((i * 7) % 5),
  revenue: ((mix[i % 7]! + 1) ** 2 * 37.5 + ((i * 13) % 50) + 0.25).toFixed(2)
}))
const csv = ["product,quantity,revenue", ...orders.map((o) => `${o.product},${o.quantity},${o.revenue}`)].join("\n")
const totalRevenue = orders.reduce((sum, o) => sum + Number(o.revenue), 0)
const totalUnits = orders.reduce((sum, o) => sum + o.quantity, 0)

const measures = ["orders", "units", "revenue", "average_order", "average_quantity", "biggest_order"]
const euros = { type: "currency", currency: "EUR", decimals: 2 }

/** A worksheet's rows: each cell's column letter, value and formula. */
const cells = (xml: string) =>
  [...xml.matchAll(/<row [^>]*>(.*?)<\/row>/gs)].map((row) =>
    [...row[1]!.matchAll(/<c r="([A-Z]+)\d+"[^>]*?(?:\/>|>(.*?)<\/c>)/gs)].map(([, column, body]) => ({
      column: column!,
      value: /<v>([^<]*)<\/v>/.exec(body ?? "")?.[1] ?? /<t[^>]*>([^<]*)<\/t>/.exec(body ?? "")?.[1],
      formula: /<f>([^<]*)<\/f>/.exec(body ?? "")?.[1]
    }))
  )

onEveryStore("the total row of an Excel export", (stores) => {
  it.live("sums add up, a maximum is the greatest, an average is over every row (not a sum of averages); rows cut by a limit total no average", () =>
    Effect.gen(function*() {
      const { local, server, worker } = yield* ExportFixture.serve({ stores: stores(), renderers: Documents.layer })
      const { admin, ok } = yield* ExportFixture.provision(server)
      const workspaceId = (yield* ok("POST", "/v1/workspaces", { name: "Sales" })).workspace_id
      const datasetId = (yield* ok("POST", "/v1/datasets", { workspace_id: workspaceId, name: "Orders", source: { type: "upload" } })).dataset_id
      const loaded = yield* server.request("PUT", `/v1/datasets/${datasetId}/data`, { token: admin, body: csv, headers: { "content-type": "text/csv" } })
      assert.strictEqual(loaded.status, 200, loaded.text)
      yield* ok("PATCH", `/v1/datasets/${datasetId}`, {
        model: {
          dimensions: [{ name: "product", type: "string" }],
          measures: [
            { name: "orders", aggregation: "count", title: "Orders", format: { type: "number", decimals: 0 } },
            { name: "units", aggregation: "sum", column: "quantity", title: "Units" },
            { name: "revenue", aggregation: "sum", column: "revenue", title: "Revenue", format: euros },
            { name: "average_order", expression: "revenue / orders", title: "Average order", format: euros },
            { name: "average_quantity", aggregation: "avg", column: "quantity", title: "Average quantity" },
            { name: "biggest_order", aggregation: "max", column: "revenue", title: "Biggest order", format: euros }
          ]
        }
      })
      const table = (id: string, query: object) => ({ id, type: "table", title: id, dataset_id: datasetId, query: { measures, dimensions: ["product"], ...query } })
      const report = yield* ok("POST", "/v1/reports", {
        workspace_id: workspaceId,
        name: "Products",
        pages: [{ name: "Overview", visuals: [table("products", { order: [{ member: "product" }] }), table("top_two", { order: [{ member: "revenue", direction: "desc" }], limit: 2 })] }]
      })
      const job = yield* ok("POST", `/v1/reports/${report.report_id}/export`, { format: "xlsx" })
      assert.strictEqual(yield* worker, 1)
      const result = yield* ok("GET", `/v1/jobs/${job.job_id}/result`)
      const bytes = yield* Effect.promise(() => fetch(`${server.url}${local(result.url)}`).then((r) => r.arrayBuffer()))
      const zip = yield* Effect.promise(() => JSZip.loadAsync(bytes))
      const sheet = (n: number) => Effect.map(Effect.promise(() => zip.file(`xl/worksheets/sheet${n}.xml`)!.async("string")), cells)

      // Every product: the header, four rows, the total.
      const all = yield* sheet(2)
      assert.deepStrictEqual(all[0]!.map((c) => c.value), ["Product", "Orders", "Units", "Revenue", "Average order", "Average quantity", "Biggest order"])
      assert.deepStrictEqual(all.slice(1, -1).map((row) => row[0]!.value), products)
      const total = all.at(-1)!
      assert.strictEqual(total[0]!.value, "Total")
      const at = (column: string) => total.find((c) => c.column === column)
      assert.deepStrictEqual([at("B")!.formula, Number(at("B")!.value)], ["SUM(B2:B5)", orders.length])
      assert.deepStrictEqual([at("C")!.formula, Number(at("C")!.value)], ["SUM(C2:C5)", totalUnits])
      assert.strictEqual(at("D")!.formula, "SUM(D2:D5)")
      assert.closeTo(Number(at("D")!.value), totalRevenue, 0.001)
      // revenue / orders over every order, not the sum (nor the mean) of the products' averages
      const averages = all.slice(1, -1).map((row) => Number(row[4]!.value))
      assert.isUndefined(at("E")!.formula)
      assert.closeTo(Number(at("E")!.value), totalRevenue / orders.length, 1e-6)
      assert.notStrictEqual(Number(at("E")!.value).toFixed(2), averages.reduce((a, b) => a + b, 0).toFixed(2))
      assert.notStrictEqual(Number(at("E")!.value).toFixed(2), (averages.reduce((a, b) => a + b, 0) / averages.length).toFixed(2))
      assert.isUndefined(at("F")!.formula)
      assert.closeTo(Number(at("F")!.value), totalUnits / orders.length, 1e-6)
      assert.strictEqual(at("G")!.formula, "MAX(G2:G5)")
      assert.closeTo(Number(at("G")!.value), Math.max(...orders.map((o) => Number(o.revenue))), 0.001)

      // The two products of most revenue: their sums add up; the whole is not theirs, so no average.
      const top = yield* sheet(3)
      assert.strictEqual(top.length, 4)
      const topTotal = top.at(-1)!
      const topAt = (column: string) => topTotal.find((c) => c.column === column)
      assert.strictEqual(topAt("D")!.formula, "SUM(D2:D3)")
      assert.closeTo(Number(topAt("D")!.value), Number(top[1]![3]!.value) + Number(top[2]![3]!.value), 0.001)
      assert.isUndefined(topAt("E")?.value, "no average over rows a limit cut")
      assert.isUndefined(topAt("F")?.value)
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
