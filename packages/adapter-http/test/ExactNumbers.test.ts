/**
 * Numbers without binary floating-point noise (decision 0013, "Exact
 * numbers and display formats"), over HTTP on a real DuckDB engine: amounts
 * of two decimals, summed as doubles, show noise (the test first checks
 * that they do); uploaded, they are a DECIMAL column, and their sums come
 * back from queries, JSON exports and CSV exports as the exact decimal sums.
 * A measure's display format is accepted, shown in the model and in the
 * answer's columns, and refused when it is not one.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode } from "@analytics/testing/http"
import * as ExportFixture from "./ExportFixture.ts"

const regions = ["EU", "US", "APAC", "LATAM"]

/** 30,000 orders whose revenue is generated as the demo's is: a double rounded to cents, written as JavaScript prints it. */
const orders = (() => {
  let seed = 7
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648
  return Array.from({ length: 30_000 }, (_, i) => ({
    region: regions[i % 4]!,
    revenue: String(Math.round((1 + Math.floor(random() * 9)) * (20 + random() * 140) * 100) / 100)
  }))
})()
const csv = ["region,revenue", ...orders.map((o) => `${o.region},${o.revenue}`)].join("\n")

/** The exact sum of decimal texts of at most two decimals, as the shortest decimal text. */
const exactSum = (amounts: ReadonlyArray<string>) => {
  const cents = amounts.reduce((sum, amount) => {
    const [whole, fraction = ""] = amount.split(".")
    return sum + BigInt(whole!) * 100n + BigInt(fraction.padEnd(2, "0"))
  }, 0n)
  return `${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`.replace(/\.?0+$/, "")
}
const exactTotal = exactSum(orders.map((o) => o.revenue))
const exactByRegion = new Map(regions.map((r) => [r, exactSum(orders.filter((o) => o.region === r).map((o) => o.revenue))]))

/** A decimal text without trailing zeros (DuckDB's CSV writer keeps a DECIMAL's scale: `12.30`). */
const shortest = (text: string) => text.includes(".") ? text.replace(/\.?0+$/, "") : text

const revenueFormat = { type: "currency", currency: "EUR", decimals: 2 }

describe("exact numbers", () => {
  it.live("amounts summed as doubles show noise; uploaded, their sums come back exact from queries and from JSON and CSV exports", () =>
    Effect.gen(function*() {
      // The data does make noise when summed as doubles, as the engines summed such a column before.
      const asDoubles = String(orders.reduce((sum, o) => sum + Number(o.revenue), 0))
      assert.notStrictEqual(asDoubles, exactTotal)

      const { local, server, worker } = yield* ExportFixture.serve()
      const { ok, admin } = yield* ExportFixture.provision(server)
      const workspaceId = (yield* ok("POST", "/v1/workspaces", { name: "Sales" })).workspace_id
      const datasetId = (yield* ok("POST", "/v1/datasets", { workspace_id: workspaceId, name: "Orders", source: { type: "upload" } })).dataset_id
      const loaded = yield* server.request("PUT", `/v1/datasets/${datasetId}/data`, { token: admin, body: csv, headers: { "content-type": "text/csv" } })
      assert.strictEqual(loaded.status, 200, loaded.text)
      assert.deepInclude(loaded.body.columns[1], { name: "revenue", type: "number", engine_type: "DECIMAL(18,2)" })
      yield* ok("PATCH", `/v1/datasets/${datasetId}`, {
        model: {
          dimensions: [{ name: "region", type: "string" }],
          measures: [
            { name: "revenue", aggregation: "sum", column: "revenue", format: revenueFormat },
            { name: "orders", aggregation: "count", format: { type: "number", decimals: 0 } },
            { name: "share", expression: "revenue / 1000000", format: { type: "percent", decimals: 1 } }
          ]
        }
      })
      const model = (yield* ok("GET", `/v1/datasets/${datasetId}`)).model
      assert.deepStrictEqual(model.measures.map((m: any) => m.format), [revenueFormat, { type: "number", decimals: 0 }, { type: "percent", decimals: 1 }])

      const total = yield* ok("POST", `/v1/datasets/${datasetId}/query`, { measures: ["revenue", "orders"] })
      assert.strictEqual(JSON.stringify(total.data[0].revenue), exactTotal)
      assert.deepStrictEqual(total.columns.map((c: any) => c.format), [revenueFormat, { type: "number", decimals: 0 }])
      const byRegion = yield* ok("POST", `/v1/datasets/${datasetId}/query`, { measures: ["revenue"], dimensions: ["region"] })
      assert.deepStrictEqual(new Map(byRegion.data.map((row: any) => [row.region, JSON.stringify(row.revenue)])), exactByRegion)
      assert.isUndefined(byRegion.columns.find((c: any) => c.name === "region").format)

      // Exports of a visual: JSON (the rows as queries give them) and CSV (written by DuckDB).
      const report = yield* ok("POST", "/v1/reports", {
        workspace_id: workspaceId,
        name: "Revenue",
        pages: [{
          name: "Overview",
          visuals: [{
            id: "by_region",
            type: "bar",
            dataset_id: datasetId,
            query: { measures: ["revenue"], dimensions: ["region"], order: [{ member: "region" }] },
            encoding: { x: "region", y: ["revenue"] }
          }]
        }]
      })
      const jobs = {
        json: (yield* ok("POST", `/v1/reports/${report.report_id}/export`, { format: "json", visual_id: "by_region" })).job_id,
        csv: (yield* ok("POST", `/v1/reports/${report.report_id}/export`, { format: "csv", visual_id: "by_region" })).job_id
      }
      assert.strictEqual(yield* worker, 2)
      const fileOf = (jobId: string) => Effect.flatMap(ok("GET", `/v1/jobs/${jobId}/result`), (result) => server.request("GET", local(result.url)))
      const json = JSON.parse((yield* fileOf(jobs.json)).text)
      assert.deepStrictEqual(json.columns.find((c: any) => c.name === "revenue").format, revenueFormat)
      // The file's own text: each amount written as the exact sum.
      const jsonText = (yield* fileOf(jobs.json)).text
      for (const [region, sum] of exactByRegion) assert.include(jsonText, `"region":"${region}","revenue":${sum}}`)
      assert.strictEqual(json.rows.length, 4)
      const lines = (yield* fileOf(jobs.csv)).text.trim().split("\r\n")
      assert.strictEqual(lines[0], "region,revenue")
      assert.deepStrictEqual(new Map(lines.slice(1).map((line) => {
        const [region, revenue] = line.split(",")
        return [region!, shortest(revenue!)]
      })), exactByRegion)
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("a measure's format is one of currency, percent and number, with 0 to 10 decimals and a known currency", () =>
    Effect.gen(function*() {
      const { server } = yield* ExportFixture.serve()
      const { admin, ok } = yield* ExportFixture.provision(server)
      const workspaceId = (yield* ok("POST", "/v1/workspaces", { name: "Sales" })).workspace_id
      const create = (format: unknown) =>
        server.request("POST", "/v1/datasets", {
          token: admin,
          body: {
            workspace_id: workspaceId,
            name: "Orders",
            source: { type: "upload" },
            model: { dimensions: [], measures: [{ name: "revenue", aggregation: "sum", column: "revenue", format }] }
          }
        })
      for (const format of [{ type: "currency", currency: "JPY" }, { type: "percent" }, { type: "number", decimals: 10 }, { type: "currency", currency: "EUR", decimals: 0 }]) {
        const created = yield* create(format)
        assert.strictEqual(created.status, 201, created.text)
        assert.deepStrictEqual(created.body.model.measures[0].format, format)
      }
      assert.strictEqual(problemCode(yield* create({ type: "currency", currency: "XYZ" })), "dataset/model-invalid")
      for (const format of [{ type: "currency", currency: "eur" }, { type: "currency" }, { type: "number", decimals: 11 }, { type: "percent", decimals: 1.5 }, { type: "money" }, "EUR"]) {
        assert.strictEqual(problemCode(yield* create(format)), "request/invalid", JSON.stringify(format))
      }
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
