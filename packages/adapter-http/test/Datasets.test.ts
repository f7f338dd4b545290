/**
 * Datasets over real HTTP, on a real DuckDB engine: upload a CSV, describe
 * it, query it as different principals (row-level security by attribute
 * and by executive role, evaluated at each query), and every refusal as a
 * problem that names what is wrong.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { PgEngine } from "@analytics/adapter-postgres"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"
import { PgClient } from "@effect/sql-pg"
import * as Reactivity from "effect/reactivity/Reactivity"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { problemCode, start } from "./TestServer.ts"
import { sessions } from "./SessionAuthenticator.ts"

const regions = ["EU", "US", "APAC"]
const rows = Array.from({ length: 600 }, (_, i) => ({
  region: regions[i % 3]!,
  zip: String(i % 20).padStart(5, "0"),
  day: `2024-0${1 + (i % 3)}-${String(1 + (i % 28)).padStart(2, "0")}`,
  amount: (i % 50) + 0.5
}))
const csv = ["Region,Zip Code,Order Day,Amount", ...rows.map((r) => `${r.region},${r.zip},${r.day},${r.amount}`)].join("\n")

const setup = Effect.gen(function*() {
  let tenant = ""
  const server = yield* start(MemoryStores.layer, {
    engines: { upload: DuckDbEngine.layer(":memory:") },
    maxUploadBytes: 200_000,
    authenticator: sessions(() => tenant)
  })
  const { tenantId, token } = yield* server.tenant()
  tenant = tenantId
  const workspace = (yield* server.request("POST", "/v1/workspaces", { token, body: { name: "Sales" } })).body
  return { server, admin: token, workspaceId: workspace.workspace_id as string }
})

describe("datasets", () => {
  it.live("upload a CSV, describe it, query it over HTTP; row-level security follows executive roles from one query to the next", () =>
    Effect.gen(function*() {
      const { admin, server, workspaceId } = yield* setup
      const hook = yield* server.request("POST", "/v1/webhooks", {
        token: admin,
        body: { url: "https://hooks.example.com/in", events: ["dataset.refresh.started", "dataset.refresh.succeeded", "dataset.refresh.failed"] }
      })
      const created = yield* server.request("POST", "/v1/datasets", { token: admin, body: { workspace_id: workspaceId, name: "Orders", source: { type: "upload" } } })
      assert.strictEqual(created.status, 201, created.text)
      const id = created.body.dataset_id
      assert.deepInclude(created.body, { row_count: null, refreshed_at: null, columns: [] })
      // No rows yet.
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/datasets/${id}/query`, { token: admin, body: { measures: ["count"] } })), "dataset/not-loaded")
      // Upload, the zip codes kept as text.
      const types = encodeURIComponent(JSON.stringify({ "Zip Code": "string" }))
      const loaded = yield* server.request("PUT", `/v1/datasets/${id}/data?types=${types}`, { token: admin, body: csv, headers: { "content-type": "text/csv" } })
      assert.strictEqual(loaded.status, 200, loaded.text)
      assert.strictEqual(loaded.body.row_count, rows.length)
      assert.deepStrictEqual(loaded.body.columns.map((c: any) => [c.name, c.type]), [["Region", "string"], ["Zip Code", "string"], ["Order Day", "time"], ["Amount", "number"]])
      // The load is a refresh, announced to webhooks.
      const deliveries = (yield* server.request("GET", `/v1/webhooks/${hook.body.webhook_id}/deliveries`, { token: admin })).body.data
      assert.deepStrictEqual(deliveries.map((d: any) => d.event_type), ["dataset.refresh.succeeded", "dataset.refresh.started"])
      assert.deepInclude(deliveries[0].event.data, { dataset_id: id, row_count: rows.length })
      assert.strictEqual(deliveries[0].event.workspace_id, workspaceId)
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/datasets/${id}/refresh`, { token: admin })), "dataset/refresh-needs-file")
      // A model was suggested from the columns.
      assert.deepStrictEqual(loaded.body.model.dimensions.map((d: any) => d.name), ["region", "zip_code", "order_day", "amount"])
      assert.deepStrictEqual(loaded.body.model.measures.map((m: any) => m.name), ["count", "total_amount"])
      // Describe it: measures, and row-level security by region attribute, all rows for the CFO.
      const model = {
        dimensions: [
          { name: "region", type: "string", column: "Region" },
          { name: "zip", type: "string", column: "Zip Code" },
          { name: "day", type: "time", column: "Order Day" }
        ],
        measures: [
          { name: "orders", aggregation: "count" },
          { name: "revenue", aggregation: "sum", column: "Amount", title: "Net revenue" },
          { name: "per_order", expression: "revenue / orders" }
        ],
        row_level_security: [
          { roles: ["admin", "CFO"], all_rows: true },
          { filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }
        ]
      }
      const described = yield* server.request("PATCH", `/v1/datasets/${id}`, { token: admin, body: { model } })
      assert.strictEqual(described.status, 200, described.text)
      const query = { measures: ["revenue", "orders"], dimensions: ["region"], time_dimensions: [{ dimension: "day", granularity: "month" }], order: [{ member: "day__month" }, { member: "region" }] }
      const all = yield* server.request("POST", `/v1/datasets/${id}/query`, { token: admin, body: query })
      assert.strictEqual(all.status, 200, all.text)
      const expected = new Map<string, { revenue: number; orders: number }>()
      for (const r of rows) {
        const key = `${r.region}|${r.day.slice(0, 7)}-01 00:00:00`
        const e = expected.get(key) ?? { revenue: 0, orders: 0 }
        expected.set(key, { revenue: e.revenue + r.amount, orders: e.orders + 1 })
      }
      assert.strictEqual(all.body.row_count, expected.size)
      for (const row of all.body.data) {
        const e = expected.get(`${row.region}|${row.day__month}`)!
        assert.strictEqual(row.orders, e.orders)
        assert.closeTo(row.revenue, e.revenue, 1e-9)
      }
      assert.deepStrictEqual(all.body.columns.map((c: any) => c.name), ["region", "day__month", "revenue", "orders"])
      // What a person reads: the model's title where it has one, else the member's name in words.
      assert.deepStrictEqual(all.body.columns.map((c: any) => c.title), ["Region", "Day: Month", "Net revenue", "Orders"])
      // Ada, a directory user without a region: no rows; made CFO: every row, from her next query; removed: none again.
      const ada = (yield* server.request("POST", "/v1/users", { token: admin, body: { email: "ada@example.com", name: "Ada" } })).body
      const adaToken = (yield* server.request("POST", `/v1/users/${ada.user_id}/tokens`, { token: admin })).body.token
      const total = { measures: ["orders"] }
      const ordersOf = (token: string) => Effect.map(server.request("POST", `/v1/datasets/${id}/query`, { token, body: total }), (r) => r.body.data[0]?.orders)
      assert.strictEqual(yield* ordersOf(adaToken), 0)
      const cfo = (yield* server.request("POST", "/v1/executive-roles", { token: admin, body: { name: "CFO" } })).body
      yield* server.request("POST", `/v1/executive-roles/${cfo.role_id}/members`, { token: admin, body: { user_id: ada.user_id } })
      assert.strictEqual(yield* ordersOf(adaToken), rows.length)
      yield* server.request("DELETE", `/v1/executive-roles/${cfo.role_id}/members/${ada.user_id}`, { token: admin })
      assert.strictEqual(yield* ordersOf(adaToken), 0)
      // The dry run shows the SQL and its bound values: the policy's region came from nowhere, so no row.
      const sql = yield* server.request("POST", `/v1/datasets/${id}/sql`, { token: adaToken, body: { measures: ["orders"], filters: [{ member: "zip", operator: "equals", values: ["00007"] }] } })
      assert.strictEqual(sql.body.dialect, "duckdb")
      assert.include(sql.body.sql, "WHERE (1 = 0 AND \"Zip Code\" = $1)")
      assert.deepStrictEqual(sql.body.params, ["00007"])
      // An embedding app's member bound to EU sees EU rows only; another, US rows.
      const member = "session:m-1:EU"
      const byRegion = (token: string) =>
        Effect.map(server.request("POST", `/v1/datasets/${id}/query`, { token, body: { measures: ["orders"], dimensions: ["region"] } }), (r) => r.body.data)
      assert.deepStrictEqual(yield* byRegion(member), [{ region: "EU", orders: rows.filter((r) => r.region === "EU").length }])
      assert.deepStrictEqual(yield* byRegion("session:m-2:US"), [{ region: "US", orders: rows.filter((r) => r.region === "US").length }])
      // A member may list and query, not describe.
      assert.strictEqual((yield* server.request("GET", `/v1/datasets?workspace_id=${workspaceId}`, { token: member })).body.data.length, 1)
      assert.strictEqual(problemCode(yield* server.request("PATCH", `/v1/datasets/${id}`, { token: member, body: { name: "Mine" } })), "auth/forbidden")
      assert.strictEqual(problemCode(yield* server.request("PUT", `/v1/datasets/${id}/data`, { token: member, body: csv, headers: { "content-type": "text/csv" } })), "auth/forbidden")
    }).pipe(Effect.scoped))

  it.live("refusals: bad queries name the member, bad models and files change nothing, other tenants see nothing", () =>
    Effect.gen(function*() {
      const { admin, server, workspaceId } = yield* setup
      const id = (yield* server.request("POST", "/v1/datasets", { token: admin, body: { workspace_id: workspaceId, name: "Orders", source: { type: "upload" } } })).body.dataset_id
      yield* server.request("PUT", `/v1/datasets/${id}/data`, { token: admin, body: csv, headers: { "content-type": "text/csv" } })
      const ask = (body: unknown) => server.request("POST", `/v1/datasets/${id}/query`, { token: admin, body })
      const unknown = yield* ask({ measures: ["profit"] })
      assert.strictEqual(unknown.status, 400)
      assert.strictEqual(problemCode(unknown), "query/invalid")
      assert.strictEqual(unknown.body.member, "profit")
      assert.include(unknown.body.detail, "profit")
      assert.strictEqual(problemCode(yield* ask({ measures: ["count"], filters: [{ member: "region", operator: "gt", values: ["EU"] }] })), "query/invalid")
      assert.strictEqual(problemCode(yield* ask({ measures: ["count"], limit: 0 })), "request/invalid")
      assert.strictEqual(problemCode(yield* ask({ measures: ["count"], filters: [{ member: "region", operator: "like", values: ["EU"] }] })), "request/invalid")
      // A model that does not fit the rows is refused and the old one stays.
      const before = (yield* server.request("GET", `/v1/datasets/${id}`, { token: admin })).body
      const badModels = [
        { dimensions: [{ name: "x", type: "string", column: "Nope" }], measures: [] },
        { dimensions: [], measures: [{ name: "s", aggregation: "sum", column: "Region" }] },
        { dimensions: [], measures: [{ name: "a", expression: "b" }] }
      ]
      for (const model of badModels) {
        assert.strictEqual(problemCode(yield* server.request("PATCH", `/v1/datasets/${id}`, { token: admin, body: { model } })), "dataset/model-invalid", JSON.stringify(model))
      }
      assert.deepStrictEqual((yield* server.request("GET", `/v1/datasets/${id}`, { token: admin })).body, before)
      // Files: wrong type, too large, empty, unreadable; the rows stay as they were.
      assert.strictEqual(problemCode(yield* server.request("PUT", `/v1/datasets/${id}/data`, { token: admin, body: csv, headers: { "content-type": "application/json" } })), "request/unsupported-media-type")
      const huge = "a,b\n" + "1,2\n".repeat(60_000)
      const tooLarge = yield* server.request("PUT", `/v1/datasets/${id}/data`, { token: admin, body: huge, headers: { "content-type": "text/csv" } })
      assert.strictEqual(tooLarge.status, 413)
      assert.strictEqual(problemCode(tooLarge), "dataset/upload-too-large")
      assert.strictEqual(problemCode(yield* server.request("PUT", `/v1/datasets/${id}/data`, { token: admin, body: "", headers: { "content-type": "text/csv" } })), "request/invalid")
      const hook = yield* server.request("POST", "/v1/webhooks", { token: admin, body: { url: "https://hooks.example.com/in", events: ["dataset.refresh.failed"] } })
      const other = yield* server.request("PUT", `/v1/datasets/${id}/data`, { token: admin, body: "x,y\n1,2\n", headers: { "content-type": "text/csv" } })
      assert.strictEqual(problemCode(other), "dataset/model-invalid") // the described model reads columns this file lacks
      assert.strictEqual((yield* ask({ measures: ["count"] })).body.data[0].count, rows.length)
      const failed = (yield* server.request("GET", `/v1/webhooks/${hook.body.webhook_id}/deliveries`, { token: admin })).body.data
      assert.deepStrictEqual(failed.map((d: any) => [d.event_type, d.event.data.error.code]), [["dataset.refresh.failed", "dataset/model-invalid"]])
      // Lists need a workspace of the tenant; another tenant sees nothing.
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/datasets", { token: admin })), "request/invalid")
      const stranger = yield* server.tenant()
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/datasets?workspace_id=${workspaceId}`, { token: stranger.token })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/datasets/${id}`, { token: stranger.token })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/datasets/${id}/query`, { token: stranger.token, body: { measures: ["count"] } })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("POST", "/v1/datasets", { token: stranger.token, body: { workspace_id: workspaceId, name: "X", source: { type: "upload" } } })), "resource/not-found")
      // No PostgreSQL engine here.
      assert.strictEqual(problemCode(yield* server.request("POST", "/v1/datasets", { token: admin, body: { workspace_id: workspaceId, name: "PG", source: { type: "postgres", table: "orders" } } })), "dataset/engine-unavailable")
      // Deleted: gone, rows and all.
      assert.strictEqual((yield* server.request("DELETE", `/v1/datasets/${id}`, { token: admin })).status, 204)
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/datasets/${id}`, { token: admin })), "resource/not-found")
    }).pipe(Effect.scoped))

  it.live("reports and dashboards: visuals checked against their datasets, tiles against their reports; their data follows the viewer's row-level security", () =>
    Effect.gen(function*() {
      const { admin, server, workspaceId } = yield* setup
      const id = (yield* server.request("POST", "/v1/datasets", { token: admin, body: { workspace_id: workspaceId, name: "Orders", source: { type: "upload" } } })).body.dataset_id
      yield* server.request("PUT", `/v1/datasets/${id}/data`, { token: admin, body: csv, headers: { "content-type": "text/csv" } })
      const model = (yield* server.request("GET", `/v1/datasets/${id}`, { token: admin })).body.model
      yield* server.request("PATCH", `/v1/datasets/${id}`, {
        token: admin,
        body: { model: { ...model, row_level_security: [{ roles: ["admin"], all_rows: true }, { filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }] } }
      })
      const pages = [
        {
          name: "Overview",
          visuals: [
            { id: "total", type: "kpi", dataset_id: id, query: { measures: ["total_amount"] }, encoding: { value: "total_amount" } },
            { id: "by_region", type: "bar", dataset_id: id, query: { measures: ["count"], dimensions: ["region"] }, encoding: { x: "region", y: ["count"] } }
          ]
        },
        {
          name: "Trend",
          visuals: [
            { id: "monthly", type: "line", dataset_id: id, query: { measures: ["total_amount"], time_dimensions: [{ dimension: "order_day", granularity: "month" }] }, encoding: { x: "order_day__month", y: ["total_amount"] } },
            { id: "share", type: "pie", dataset_id: id, query: { measures: ["count"], dimensions: ["region"] }, encoding: { category: "region", value: "count" } }
          ]
        }
      ]
      const created = yield* server.request("POST", "/v1/reports", { token: admin, body: { workspace_id: workspaceId, name: "Sales overview", pages, settings: { query_timeout_seconds: 20 } } })
      assert.strictEqual(created.status, 201, created.text)
      const reportId = created.body.report_id
      assert.deepStrictEqual((yield* server.request("GET", `/v1/reports?workspace_id=${workspaceId}`, { token: "session:m-1:EU" })).body.data.map((r: any) => r.name), ["Sales overview"])
      const visual = (token: string, visualId: string, body: unknown = {}) => server.request("POST", `/v1/reports/${reportId}/visuals/${visualId}/query`, { token, body })
      assert.deepStrictEqual((yield* visual(admin, "by_region")).body.data.length, 3)
      assert.deepStrictEqual((yield* visual("session:m-1:EU", "by_region")).body.data, [{ region: "EU", count: 200 }])
      const euTotal = rows.filter((r) => r.region === "EU").reduce((a, r) => a + r.amount, 0)
      assert.closeTo((yield* visual("session:m-1:EU", "total")).body.data[0].total_amount, euTotal, 1e-9)
      // Extra filters narrow a visual; they cannot widen row-level security.
      const narrowed = yield* visual("session:m-1:EU", "by_region", { filters: [{ member: "region", operator: "equals", values: ["US"] }] })
      assert.deepStrictEqual(narrowed.body.data, [])
      assert.strictEqual(problemCode(yield* visual(admin, "nope")), "resource/not-found")
      // Pages that do not hold together are refused, naming the visual.
      const refusals: Array<[unknown, string]> = [
        [[{ name: "A", visuals: [] }, { name: "A", visuals: [] }], "Two pages are named \"A\""],
        [[{ name: "A", visuals: [{ ...pages[0]!.visuals[0], encoding: {} }] }], "Visual \"total\" (page \"A\"): a kpi needs a \"value\" encoding"],
        [[{ name: "A", visuals: [{ ...pages[0]!.visuals[1], encoding: { x: "region", y: ["region"] } }] }], "Visual \"by_region\" (page \"A\"): \"region\" is drawn as a value but is not a measure"],
        [[{ name: "A", visuals: [{ ...pages[0]!.visuals[0], query: { measures: ["profit"] } }] }], "Visual \"total\" (page \"A\"): The model has no measure \"profit\""],
        [[{ name: "A", visuals: [{ id: "two", type: "combo", dataset_id: id, query: { measures: ["count", "total_amount"], dimensions: ["region"] }, encoding: { x: "region", y: ["count"] } }] }], "Visual \"two\" (page \"A\"): a combo needs at least 2 \"y\" measures"],
        [[{ name: "A", visuals: [{ ...pages[0]!.visuals[1], type: "scatter", encoding: { x: "region", y: ["count"] } }] }], "Visual \"by_region\" (page \"A\"): \"region\" is drawn as a value but is not a measure"],
        [[{ name: "A", visuals: [{ ...pages[0]!.visuals[1], type: "heatmap", encoding: { x: "region", value: "count" } }] }], "Visual \"by_region\" (page \"A\"): a heatmap needs a \"series\" encoding"],
        [[{ name: "A", visuals: [{ ...pages[0]!.visuals[0], dataset_id: crypto.randomUUID() }] }], `Visual "total" (page "A"): no dataset`]
      ]
      for (const [badPages, detail] of refusals) {
        const refused = yield* server.request("PATCH", `/v1/reports/${reportId}`, { token: admin, body: { pages: badPages } })
        assert.strictEqual(problemCode(refused), "report/invalid", refused.text)
        assert.include(refused.body.detail, detail)
      }
      // Each kind of chart, its encoding filled as its kind needs.
      const kinds = [
        { id: "stacked", type: "stacked_bar", dataset_id: id, query: { measures: ["count"], dimensions: ["region"], time_dimensions: [{ dimension: "order_day", granularity: "month" }] }, encoding: { x: "order_day__month", y: ["count"], series: "region" } },
        { id: "combo", type: "combo", dataset_id: id, query: { measures: ["count", "total_amount"], dimensions: ["region"] }, encoding: { x: "region", y: ["total_amount", "count"] } },
        { id: "scatter", type: "scatter", dataset_id: id, query: { measures: ["count", "total_amount"], dimensions: ["region"] }, encoding: { x: "count", y: ["total_amount"], series: "region" } },
        { id: "heat", type: "heatmap", dataset_id: id, query: { measures: ["count"], dimensions: ["region"], time_dimensions: [{ dimension: "order_day", granularity: "month" }] }, encoding: { x: "order_day__month", series: "region", value: "count" } }
      ]
      const allKinds = yield* server.request("POST", "/v1/reports", { token: admin, body: { workspace_id: workspaceId, name: "Every kind", pages: [{ name: "Kinds", visuals: kinds }] } })
      assert.strictEqual(allKinds.status, 201, allKinds.text)
      assert.strictEqual((yield* server.request("GET", `/v1/reports/${reportId}`, { token: admin })).body.pages.length, 2)
      assert.strictEqual(problemCode(yield* server.request("PATCH", `/v1/reports/${reportId}`, { token: "session:m-1:EU", body: { name: "Mine" } })), "auth/forbidden")
      assert.strictEqual(problemCode(yield* server.request("PATCH", `/v1/reports/${reportId}`, { token: admin, body: { settings: { query_timeout_seconds: 0 } } })), "request/invalid")
      // A dashboard pins visuals of the report; a tile's data is the visual's, for the viewer.
      const tiles = [
        { id: "total", report_id: reportId, visual_id: "total", x: 0, y: 0, width: 6, height: 4 },
        { id: "regions", report_id: reportId, visual_id: "by_region", x: 6, y: 0, width: 18, height: 8 }
      ]
      const dashboard = yield* server.request("POST", "/v1/dashboards", { token: admin, body: { workspace_id: workspaceId, name: "Executive", tiles } })
      assert.strictEqual(dashboard.status, 201, dashboard.text)
      const tile = (token: string, tileId: string) => server.request("POST", `/v1/dashboards/${dashboard.body.dashboard_id}/tiles/${tileId}/query`, { token, body: {} })
      assert.deepStrictEqual((yield* tile("session:m-1:EU", "regions")).body.data, [{ region: "EU", count: 200 }])
      assert.strictEqual((yield* tile(admin, "regions")).body.data.length, 3)
      assert.strictEqual(problemCode(yield* tile(admin, "nope")), "resource/not-found")
      const badTiles = yield* server.request("PATCH", `/v1/dashboards/${dashboard.body.dashboard_id}`, {
        token: admin,
        body: { tiles: [{ ...tiles[0], visual_id: "missing" }] }
      })
      assert.strictEqual(problemCode(badTiles), "dashboard/invalid")
      assert.include(badTiles.body.detail, "has no visual \"missing\"")
      assert.strictEqual(problemCode(yield* server.request("POST", "/v1/dashboards", { token: admin, body: { workspace_id: workspaceId, name: "X", tiles: [{ ...tiles[0], width: 30 }] } })), "request/invalid")
      assert.deepStrictEqual((yield* server.request("GET", `/v1/dashboards?workspace_id=${workspaceId}`, { token: "session:m-1:EU" })).body.data.map((d: any) => d.name), ["Executive"])
      const stranger = yield* server.tenant()
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/dashboards/${dashboard.body.dashboard_id}`, { token: stranger.token })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/reports/${reportId}`, { token: stranger.token })), "resource/not-found")
      assert.strictEqual((yield* server.request("DELETE", `/v1/reports/${reportId}`, { token: admin })).status, 204)
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/reports/${reportId}`, { token: admin })), "resource/not-found")
    }).pipe(Effect.scoped))

  it.live("alerts: checked after each upload, alert.fire when the condition starts to hold, once, and alert.resolve when it stops", () =>
    Effect.gen(function*() {
      const { admin, server, workspaceId } = yield* setup
      const hook = yield* server.request("POST", "/v1/webhooks", { token: admin, body: { url: "https://hooks.example.com/in", events: ["alert.fire", "alert.resolve"] } })
      const id = (yield* server.request("POST", "/v1/datasets", { token: admin, body: { workspace_id: workspaceId, name: "Orders", source: { type: "upload" } } })).body.dataset_id
      yield* server.request("PUT", `/v1/datasets/${id}/data`, { token: admin, body: csv, headers: { "content-type": "text/csv" } })
      const euTotal = rows.filter((r) => r.region === "EU").reduce((a, r) => a + r.amount, 0)
      const created = yield* server.request("POST", "/v1/alerts", {
        token: admin,
        body: { dataset_id: id, name: "EU revenue low", measure: "total_amount", filters: [{ member: "region", operator: "equals", values: ["EU"] }], condition: "lt", threshold: euTotal / 2 }
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.deepInclude(created.body, { state: "ok", schedule: { after_refresh: true }, workspace_id: workspaceId })
      const alertId = created.body.alert_id
      const events = () =>
        Effect.map(server.request("GET", `/v1/webhooks/${hook.body.webhook_id}/deliveries`, { token: admin }), (r) =>
          r.body.data.map((d: any) => [d.event_type, d.event.data.value]).reverse())
      const upload = (data: ReadonlyArray<typeof rows[number]>) =>
        server.request("PUT", `/v1/datasets/${id}/data`, {
          token: admin,
          body: ["Region,Zip Code,Order Day,Amount", ...data.map((r) => `${r.region},${r.zip},${r.day},${r.amount}`)].join("\n"),
          headers: { "content-type": "text/csv" }
        })
      // A third of the rows: EU revenue drops below half, the alert fires; the same again: no second fire.
      const fewer = rows.slice(0, 200)
      const fewerTotal = fewer.filter((r) => r.region === "EU").reduce((a, r) => a + r.amount, 0)
      yield* upload(fewer)
      yield* upload(fewer)
      assert.deepStrictEqual(yield* events(), [["alert.fire", fewerTotal]])
      assert.deepInclude((yield* server.request("GET", `/v1/alerts/${alertId}`, { token: admin })).body, { state: "firing", last_value: fewerTotal })
      // Every row again: it resolves.
      yield* upload(rows)
      assert.deepStrictEqual(yield* events(), [["alert.fire", fewerTotal], ["alert.resolve", euTotal]])
      // On demand, and refusals.
      const checked = yield* server.request("POST", `/v1/alerts/${alertId}/check`, { token: admin })
      assert.deepInclude(checked.body, { state: "ok", last_value: euTotal })
      assert.strictEqual(problemCode(yield* server.request("POST", "/v1/alerts", { token: admin, body: { dataset_id: id, name: "X", measure: "profit", condition: "gt", threshold: 1 } })), "query/invalid")
      assert.strictEqual(problemCode(yield* server.request("POST", "/v1/alerts", { token: admin, body: { dataset_id: id, name: "X", measure: "count", condition: "gt", threshold: 1, schedule: { after_refresh: false, cron: "every hour" } } })), "request/invalid")
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/alerts/${alertId}/check`, { token: "session:m-1:EU" })), "auth/forbidden")
      assert.strictEqual((yield* server.request("GET", `/v1/alerts?workspace_id=${workspaceId}`, { token: "session:m-1:EU" })).body.data.length, 1)
      assert.strictEqual((yield* server.request("DELETE", `/v1/alerts/${alertId}`, { token: admin })).status, 204)
    }).pipe(Effect.scoped))

  if (databaseUrl === "") {
    it.skip(`a PostgreSQL table as a dataset ${skippedForNoPostgres}`, () => {})
  } else {
    it.live("a PostgreSQL table as a dataset: read in place, refreshed, queried with row-level security", () =>
      Effect.gen(function*() {
        const url = yield* freshDatabase(databaseUrl)
        const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 }).pipe(Effect.provide(Reactivity.layer))
        yield* sql`CREATE SCHEMA sales`
        yield* sql`CREATE TABLE sales.orders AS SELECT (ARRAY['EU','US','APAC'])[1 + i % 3] AS region, (i % 40)::int AS amount,
          timestamp '2024-01-01' + i * interval '1 hour' AS ordered_at FROM generate_series(0, 899) AS i`
        let tenant = ""
        const server = yield* start(MemoryStores.layer, { engines: { postgres: PgEngine.layer(Redacted.make(url)) }, authenticator: sessions(() => tenant) })
        const { tenantId, token: admin } = yield* server.tenant()
        tenant = tenantId
        const workspaceId = (yield* server.request("POST", "/v1/workspaces", { token: admin, body: { name: "Sales" } })).body.workspace_id
        const created = yield* server.request("POST", "/v1/datasets", { token: admin, body: { workspace_id: workspaceId, name: "Orders", source: { type: "postgres", schema: "sales", table: "orders" } } })
        assert.strictEqual(created.status, 201, created.text)
        assert.deepStrictEqual(created.body.columns.map((c: any) => [c.name, c.type]), [["region", "string"], ["amount", "number"], ["ordered_at", "time"]])
        const id = created.body.dataset_id
        const refreshed = yield* server.request("POST", `/v1/datasets/${id}/refresh`, { token: admin })
        assert.strictEqual(refreshed.body.row_count, 900)
        yield* server.request("PATCH", `/v1/datasets/${id}`, {
          token: admin,
          body: { model: { ...created.body.model, row_level_security: [{ roles: ["admin"], all_rows: true }, { filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }] } }
        })
        const total = (token: string) =>
          Effect.map(server.request("POST", `/v1/datasets/${id}/query`, { token, body: { measures: ["count", "total_amount"] } }), (r) => r.body.data[0])
        const sum = (region?: string) => Array.from({ length: 900 }, (_, i) => i).filter((i) => region === undefined || ["EU", "US", "APAC"][i % 3] === region).reduce((a, i) => a + (i % 40), 0)
        assert.deepStrictEqual(yield* total(admin), { count: 900, total_amount: sum() })
        assert.deepStrictEqual(yield* total("session:m-1:US"), { count: 300, total_amount: sum("US") })
        const sqlText = yield* server.request("POST", `/v1/datasets/${id}/sql`, { token: "session:m-1:US", body: { measures: ["count"] } })
        assert.deepStrictEqual([sqlText.body.dialect, sqlText.body.params], ["postgres", ["US"]])
        assert.include(sqlText.body.sql, `FROM "sales"."orders"`)
        assert.strictEqual(problemCode(yield* server.request("POST", "/v1/datasets", { token: admin, body: { workspace_id: workspaceId, name: "X", source: { type: "postgres", table: "missing" } } })), "dataset/source-invalid")
        assert.strictEqual(problemCode(yield* server.request("PUT", `/v1/datasets/${id}/data`, { token: admin, body: "a\n1\n", headers: { "content-type": "text/csv" } })), "dataset/not-uploadable")
      }).pipe(Effect.scoped))
  }
})
