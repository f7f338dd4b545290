/**
 * A member's view of a report and of a dashboard over real HTTP (DuckDB,
 * in-memory stores): the share page's viewer data, computed with the
 * caller's own security context (their row-level security, their grants
 * for view), with `?filters=` as the share page takes them and `pages=`;
 * no server-drawn SVG. Refusals are problems: no grant (403), another
 * tenant's or an unknown id (404), bad filters (400), never a 5xx.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { AnalyticsEngine, EngineScheduler, SqlDialect } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { eventually } from "@analytics/testing"
import { problemCode, start } from "./TestServer.ts"
import * as ExportFixture from "./ExportFixture.ts"

/** Admins and the CFO (an executive role) see every row; any other member only the EU's. */
const rowLevelSecurity = [
  { roles: ["admin", "CFO"], all_rows: true },
  { roles: ["member"], filter: { member: "region", operator: "equals", values: ["EU"] } }
]

/** The totals by region of the fixture's orders (order i is in region i mod 3 and amounts to i + 1). */
const totals: Record<string, number> = { EU: 0, US: 0, APAC: 0 }
for (let i = 0; i < 90; i++) totals[["EU", "US", "APAC"][i % 3]!]! += i + 1

describe("member views", () => {
  it.live("GET /v1/reports/{id}/view and /v1/dashboards/{id}/view: the caller's rows, grants and filters", () =>
    Effect.gen(function*() {
      const fixture = yield* ExportFixture.setup({
        rowLevelSecurity,
        visuals: (d) => [ExportFixture.byRegion(d), { ...ExportFixture.byRegion(d), id: "table", type: "table", encoding: undefined }]
      })
      const { server, ok, admin, reportId, workspaceId } = fixture
      yield* ok("PATCH", `/v1/reports/${reportId}`, {
        filters: [{ name: "region", dimension: "region", title: "Region" }],
        pages: [
          { name: "Overview", visuals: [ExportFixture.byRegion(fixture.datasetId)] },
          { name: "Detail", visuals: [{ ...ExportFixture.byRegion(fixture.datasetId), id: "table", type: "table", encoding: undefined }] }
        ]
      })
      const user = yield* ok("POST", "/v1/users", { email: "eu@example.com", name: "EU", roles: ["member"] })
      const member = (yield* ok("POST", `/v1/users/${user.user_id}/tokens`)).token as string
      const view = (token: string, query = "") => server.request("GET", `/v1/reports/${reportId}/view${query}`, { token })
      const rowsOf = (body: any, page = 0) =>
        Object.fromEntries(body.pages[page].visuals[0].rows.map((r: any) => [r.region, r.total_amount]))

      // Without a grant giving view, a member is refused (the policy's reports.view), though they may list the report.
      const refused = yield* view(member)
      assert.strictEqual(refused.status, 403, refused.text)
      assert.strictEqual(problemCode(refused), "auth/forbidden")

      // An admin sees every row; the viewer's data, as the share page hands it, without any SVG.
      const all = yield* view(admin)
      assert.strictEqual(all.status, 200, all.text)
      assert.deepStrictEqual(all.body.report, { report_id: reportId, name: "Sales overview", description: null })
      assert.deepStrictEqual(all.body.pages.map((p: any) => p.name), ["Overview", "Detail"])
      assert.deepStrictEqual(rowsOf(all.body), totals)
      const chart = all.body.pages[0].visuals[0]
      assert.strictEqual(chart.state, "rows")
      assert.strictEqual(chart.kind, "bar")
      assert.isObject(chart.vega)
      assert.isString(chart.description)
      // Which columns are dimensions, as the share page's data tells them (the contract declares them: a click on a mark in the console tells its region).
      assert.deepStrictEqual(chart.dimensions, ["region"])
      assert.notInclude(all.text, "<svg")
      assert.strictEqual(all.body.pages[1].visuals[0].kind, "table")
      assert.deepStrictEqual(all.body.filters, [{ name: "region", title: "Region", kind: "choice", options: ["APAC", "EU", "US"] }])
      assert.deepStrictEqual(all.body.filter_values, {})
      assert.isNull(all.body.watermark)

      // A member granted view on the workspace sees what their row-level security lets them: the EU's rows, and only the EU offered.
      yield* ok("POST", "/v1/sharing/grants", { subject_type: "workspace", subject_id: workspaceId, principal_type: "user", principal_id: user.user_id, actions: ["view"] })
      const theirs = yield* view(member)
      assert.strictEqual(theirs.status, 200, theirs.text)
      assert.deepStrictEqual(rowsOf(theirs.body), { EU: totals.EU })
      assert.deepStrictEqual(theirs.body.filters[0].options, ["EU"])
      assert.isNull(theirs.body.watermark)

      // The filters' values, as the share page encodes them, and only the pages asked for.
      const us = yield* view(admin, `?filters=${encodeURIComponent(JSON.stringify({ region: ["US"] }))}&pages=Overview`)
      assert.strictEqual(us.status, 200, us.text)
      assert.deepStrictEqual(us.body.pages.map((p: any) => p.name), ["Overview"])
      assert.deepStrictEqual(rowsOf(us.body), { US: totals.US })
      assert.deepStrictEqual(us.body.filter_values, { region: ["US"] })
      const two = yield* view(admin, "?pages=Detail&pages=Overview")
      assert.deepStrictEqual(two.body.pages.map((p: any) => p.name), ["Overview", "Detail"])
      // The member's security holds under any filter: asking for the US shows them nothing of it.
      const theirUs = yield* view(member, `?filters=${encodeURIComponent(JSON.stringify({ region: "US" }))}`)
      assert.strictEqual(theirUs.status, 200, theirUs.text)
      assert.strictEqual(theirUs.body.pages[0].visuals[0].state, "no_rows")
      assert.notInclude(JSON.stringify(theirUs.body.pages), String(totals.US))

      // Bad input is a 400 problem naming the filters, never a 5xx.
      for (const bad of ["{", "[1]", JSON.stringify({ colour: "red" }), JSON.stringify({ region: { nested: true } }), "x".repeat(9000)]) {
        const answer = yield* view(admin, `?filters=${encodeURIComponent(bad)}`)
        assert.strictEqual(answer.status, 400, `${bad.slice(0, 40)}: ${answer.text}`)
        assert.strictEqual(answer.headers.get("content-type"), "application/problem+json")
        assert.strictEqual(problemCode(answer), "request/invalid")
      }

      // Another tenant's report, and an unknown one, are answered alike: 404.
      const other = yield* ExportFixture.provision(server)
      const cross = yield* view(other.admin)
      assert.strictEqual(cross.status, 404, cross.text)
      assert.strictEqual(problemCode(cross), "resource/not-found")
      const unknown = yield* server.request("GET", "/v1/reports/0190a7e2-0000-7000-8000-000000000000/view", { token: member })
      assert.strictEqual(unknown.status, 404, unknown.text)
      assert.strictEqual((yield* server.request("GET", `/v1/reports/${reportId}/view`, {})).status, 401)

      // A dashboard: its tiles in the grid's order, each visual as the viewer draws it, run with the caller's security.
      const dashboard = yield* ok("POST", "/v1/dashboards", {
        workspace_id: workspaceId,
        name: "Executive",
        tiles: [
          { id: "second", report_id: reportId, visual_id: "table", x: 0, y: 6, width: 12, height: 6 },
          { id: "first", report_id: reportId, visual_id: "by_region", x: 0, y: 0, width: 12, height: 6 }
        ]
      })
      const dashboardView = (token: string) => server.request("GET", `/v1/dashboards/${dashboard.dashboard_id}/view`, { token })
      const asAdmin = yield* dashboardView(admin)
      assert.strictEqual(asAdmin.status, 200, asAdmin.text)
      assert.deepStrictEqual(asAdmin.body.tiles.map((t: any) => t.id), ["first", "second"])
      assert.strictEqual(asAdmin.body.tiles[0].visual.kind, "bar")
      assert.isObject(asAdmin.body.tiles[0].visual.vega)
      assert.notInclude(asAdmin.text, "<svg")
      const asMember = yield* dashboardView(member)
      assert.strictEqual(asMember.status, 200, asMember.text)
      assert.deepStrictEqual(asMember.body.tiles[0].visual.rows.map((r: any) => r.region), ["EU"])
      // Another tenant's dashboard is a 404.
      assert.strictEqual((yield* dashboardView(other.admin)).status, 404)

      // A member whose only grant is watermarked sees their own address to tile over the view.
      const marked = yield* ok("POST", "/v1/users", { email: "marked@example.com", name: "Marked", roles: ["member"] })
      const markedToken = (yield* ok("POST", `/v1/users/${marked.user_id}/tokens`)).token as string
      yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "user", principal_id: marked.user_id, actions: ["view"], watermark: true })
      const watermarked = yield* view(markedToken)
      assert.strictEqual(watermarked.status, 200, watermarked.text)
      assert.strictEqual(watermarked.body.watermark, "marked@example.com")
      // Their grant is on the report: the dashboard is not theirs to view.
      const notTheirs = yield* dashboardView(markedToken)
      assert.strictEqual(notTheirs.status, 403, notTheirs.text)
    }).pipe(Effect.scoped), 60_000)

  it.live("a view takes a slot of its workspace's concurrent queries: with every slot held, it is a 429 rate-limit/query-concurrency", () =>
    Effect.gen(function*() {
      // An engine whose queries wait for the test: each dataset query below holds its workspace slot.
      const gate = yield* Deferred.make<void>()
      let started = 0
      const engine = AnalyticsEngine.AnalyticsEngine.of({
        dialect: SqlDialect.duckdb,
        run: () => Effect.andThen(Effect.sync(() => started++), Effect.as(Deferred.await(gate), [{ region: "EU", total_amount: 1 }])),
        importFile: () => Effect.succeed({ columns: [{ name: "region", engineType: "VARCHAR", type: "string" }, { name: "amount", engineType: "DOUBLE", type: "number" }], rowCount: 1 }),
        describe: () => Effect.succeed([]),
        drop: () => Effect.void
      })
      // The engine runs them all at once: only the workspace's slots bound them.
      const scheduler = yield* EngineScheduler.make({ capacity: 16 })
      const server = yield* start(MemoryStores.layer, {
        engines: { upload: Layer.succeed(AnalyticsEngine.AnalyticsEngine, engine) },
        engineScheduler: Layer.succeed(EngineScheduler.EngineScheduler, scheduler)
      })
      // The starter plan runs 4 queries of a workspace at once.
      const { token } = yield* server.tenant("starter")
      const ok = (method: string, path: string, body?: unknown) =>
        Effect.map(server.request(method, path, { token, body }), (r) => {
          assert.isBelow(r.status, 300, r.text)
          return r.body
        })
      const workspace = (yield* ok("POST", "/v1/workspaces", { name: "Sales" })).workspace_id as string
      const dataset = (yield* ok("POST", "/v1/datasets", { workspace_id: workspace, name: "Orders", source: { type: "upload" } })).dataset_id as string
      const loaded = yield* server.request("PUT", `/v1/datasets/${dataset}/data`, { token, body: "region,amount\nEU,1\n", headers: { "content-type": "text/csv" } })
      assert.strictEqual(loaded.status, 200, loaded.text)
      const report = (yield* ok("POST", "/v1/reports", { workspace_id: workspace, name: "R", pages: [{ name: "P", visuals: [ExportFixture.byRegion(dataset)] }] })).report_id as string
      const held = []
      for (let i = 0; i < 4; i++) held.push(yield* Effect.forkChild(server.request("POST", `/v1/datasets/${dataset}/query`, { token, body: { measures: ["total_amount"] } })))
      yield* eventually(Effect.sync(() => started === 4), undefined, { timeoutMillis: 5_000, intervalMillis: 5 })
      const refused = yield* server.request("GET", `/v1/reports/${report}/view`, { token })
      assert.strictEqual(refused.status, 429, refused.text)
      assert.strictEqual(problemCode(refused), "rate-limit/query-concurrency")
      assert.strictEqual(started, 4, "the view ran no query")
      yield* Deferred.succeed(gate, undefined)
      for (const fiber of held) assert.strictEqual((yield* Fiber.join(fiber)).status, 200)
      const served = yield* server.request("GET", `/v1/reports/${report}/view`, { token })
      assert.strictEqual(served.status, 200, served.text)
    }).pipe(Effect.scoped), 60_000)
})
