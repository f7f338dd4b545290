/**
 * A report's filters over real HTTP (decision 0013): defined on the report,
 * bound to a dimension of its visuals' datasets, given values by name in an
 * export request (`{"region": "EU"}`, a list for several values, a date
 * range for a time dimension) and applied to every visual they concern;
 * the richer list of query filters still works; the PDF's cover names them.
 * On the in-memory stores, PGlite and PostgreSQL.
 */
import { Documents } from "@analytics/adapter-documents"
import { Poppler } from "@analytics/testing/documents"
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode } from "@analytics/testing/http"
import { onEveryStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

const regions = ["EU", "US", "APAC"]
/** 90 orders: order i (from 0) is in region i mod 3, amounts to i + 1, and was placed 4i days after 1 January 2025. */
const rows = Array.from({ length: 90 }, (_, i) => ({
  region: regions[i % 3]!,
  amount: i + 1,
  ordered_at: new Date(Date.UTC(2025, 0, 1) + i * 4 * 86_400_000).toISOString().slice(0, 10)
}))
const csv = ["region,amount,ordered_at", ...rows.map((r) => `${r.region},${r.amount},${r.ordered_at}`)].join("\n")

/** The expected CSV of amounts by region over the rows kept. */
const byRegion = (keep: (row: (typeof rows)[number]) => boolean) => {
  const totals = new Map<string, number>()
  for (const row of rows.filter(keep)) totals.set(row.region, (totals.get(row.region) ?? 0) + row.amount)
  const lines = [...totals].sort(([a], [b]) => a < b ? -1 : 1).map(([region, total]) => `${region},${total}`)
  return ["region,total_amount", ...lines].join("\r\n") + "\r\n"
}

onEveryStore("report filters", (stores) => {
  it.live("defined on the report, given by name in an export, applied to the visuals they concern; refused when unknown or ill-typed", () =>
    Effect.gen(function*() {
      const fixture = yield* ExportFixture.serve({ stores: stores(), renderers: Documents.layer })
      const { ok, admin } = yield* ExportFixture.provision(fixture.server)
      const { local, server, worker } = fixture
      const workspace = (yield* ok("POST", "/v1/workspaces", { name: "Sales" })).workspace_id as string
      const dataset = (yield* ok("POST", "/v1/datasets", { workspace_id: workspace, name: "Orders", source: { type: "upload" } })).dataset_id as string
      const loaded = yield* server.request("PUT", `/v1/datasets/${dataset}/data`, { token: admin, body: csv, headers: { "content-type": "text/csv" } })
      assert.strictEqual(loaded.status, 200, loaded.text)
      const model = (yield* ok("GET", `/v1/datasets/${dataset}`)).model
      assert.strictEqual(model.dimensions.find((d: any) => d.name === "ordered_at")?.type, "time")
      const visual = ExportFixture.byRegion(dataset)
      const filters = [{ name: "region", dimension: "region", title: "Region" }, { name: "period", dimension: "ordered_at", title: "Ordered" }]

      // A filter must filter something, and be named once.
      const unbound = yield* server.request("POST", "/v1/reports", {
        token: admin,
        body: { workspace_id: workspace, name: "R", pages: [{ name: "P", visuals: [visual] }], filters: [{ name: "x", dimension: "colour" }] }
      })
      assert.strictEqual(problemCode(unbound), "report/invalid", unbound.text)
      assert.include(unbound.body.detail, "colour")
      const twice = yield* server.request("POST", "/v1/reports", {
        token: admin,
        body: { workspace_id: workspace, name: "R", pages: [{ name: "P", visuals: [visual] }], filters: [filters[0], filters[0]] }
      })
      assert.strictEqual(problemCode(twice), "report/invalid", twice.text)

      const report = yield* ok("POST", "/v1/reports", { workspace_id: workspace, name: "Sales overview", pages: [{ name: "Overview", visuals: [visual] }], filters })
      assert.deepStrictEqual(report.filters, filters)
      assert.deepStrictEqual((yield* ok("GET", `/v1/reports/${report.report_id}`)).filters, filters)

      /** Exports the visual as CSV with `body`'s filters and reads the file back. */
      const exported = (extra: object) =>
        Effect.gen(function*() {
          const job = yield* ok("POST", `/v1/reports/${report.report_id}/export`, { format: "csv", visual_id: "by_region", ...extra })
          assert.strictEqual(yield* worker, 1)
          const settled = yield* ok("GET", `/v1/jobs/${job.job_id}`)
          assert.strictEqual(settled.status, "succeeded", JSON.stringify(settled.error))
          const result = yield* ok("GET", `/v1/jobs/${job.job_id}/result`)
          return yield* Effect.promise(() => fetch(`${server.url}${local(result.url)}`).then((r) => r.text()))
        })
      assert.strictEqual(yield* exported({ filters: { region: "EU" } }), byRegion((r) => r.region === "EU"))
      assert.strictEqual(
        yield* exported({ filters: { region: ["EU", "US"], period: ["2025-01-01", "2025-03-31"] } }),
        byRegion((r) => r.region !== "APAC" && r.ordered_at <= "2025-03-31")
      )
      assert.strictEqual(yield* exported({ filters: { period: "2025" } }), byRegion((r) => r.ordered_at < "2026-01-01"))
      // The richer form: query filters, added as they are.
      assert.strictEqual(
        yield* exported({ filters: [{ member: "amount", operator: "gt", values: [80] }] }),
        byRegion((r) => r.amount > 80)
      )

      // Refused before any job: an unknown filter, a time filter given a number.
      const refused = (filtersOf: unknown) =>
        server.request("POST", `/v1/reports/${report.report_id}/export`, { token: admin, body: { format: "csv", visual_id: "by_region", filters: filtersOf } })
      const unknown = yield* refused({ colour: "red" })
      assert.strictEqual(problemCode(unknown), "export/invalid")
      assert.include(unknown.body.detail, "colour")
      assert.include(unknown.body.detail, "region, period")
      const wrongType = yield* refused({ period: 5 })
      assert.strictEqual(problemCode(wrongType), "export/invalid")
      assert.include(wrongType.body.detail, "period")
      assert.strictEqual(problemCode(yield* refused("EU")), "request/invalid")
      assert.strictEqual(yield* worker, 0)

      // The PDF's cover names them with their titles.
      if (Poppler.available) {
        const job = yield* ok("POST", `/v1/reports/${report.report_id}/export`, { format: "pdf", filters: { region: ["EU", "APAC"], period: "2025" } })
        assert.strictEqual(yield* worker, 1)
        const result = yield* ok("GET", `/v1/jobs/${job.job_id}/result`)
        const bytes = yield* Effect.promise(() => fetch(`${server.url}${local(result.url)}`).then((r) => r.arrayBuffer()))
        const pdf = Poppler.read(new Uint8Array(bytes))
        assert.include(pdf.text, "Region: EU, APAC")
        assert.include(pdf.text, "Ordered: 2025")
      }
    }).pipe(Effect.scoped), 120_000)
})
