/**
 * Deleting a dataset in use, over HTTP on every store: while a report has a
 * visual of it, a dashboard a tile of such a report, or an alert watches
 * it, `DELETE /v1/datasets/{id}` is 409 `dataset/in-use` (problem+json)
 * naming each by id and name, and nothing changes (the dataset, its rows,
 * the report, no `dataset.deleted` audit entry). Another dataset of the
 * workspace is not held by them; once they are deleted the dataset is
 * deleted (204). The refusal is declared in the OpenAPI document.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode, start } from "./TestServer.ts"
import { onEveryStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

const csv = "region,amount\nEU,1\nUS,2\nEU,4\n"

onEveryStore("a dataset in use is not deleted", (stores) => {
  it.live("409 dataset/in-use naming its reports, dashboards and alerts, nothing changed; deleted once they are gone", () =>
    Effect.gen(function*() {
      const server = yield* start(stores(), { engines: { upload: DuckDbEngine.layer(":memory:") } })
      const { token } = yield* server.tenant()
      const ok = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
        Effect.flatMap(server.request(method, path, { token, body, ...(headers === undefined ? {} : { headers }) }), (r) =>
          r.status >= 400 ? Effect.die(new Error(`${method} ${path}: ${r.status} ${r.text}`)) : Effect.succeed(r.body))
      const workspace = yield* ok("POST", "/v1/workspaces", { name: "Sales" })
      const dataset = yield* ok("POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Orders", source: { type: "upload" } })
      yield* ok("PUT", `/v1/datasets/${dataset.dataset_id}/data`, csv, { "content-type": "text/csv" })
      const other = yield* ok("POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Unused", source: { type: "upload" } })
      const report = yield* ok("POST", "/v1/reports", {
        workspace_id: workspace.workspace_id,
        name: "Sales overview",
        pages: [{ name: "Overview", visuals: [ExportFixture.byRegion(dataset.dataset_id)] }]
      })
      const dashboard = yield* ok("POST", "/v1/dashboards", {
        workspace_id: workspace.workspace_id,
        name: "Executive",
        tiles: [{ id: "regions", report_id: report.report_id, visual_id: "by_region", x: 0, y: 0, width: 12, height: 6 }]
      })
      // A dashboard without a tile of that report is not named.
      yield* ok("POST", "/v1/dashboards", { workspace_id: workspace.workspace_id, name: "Empty", tiles: [] })
      const alert = yield* ok("POST", "/v1/alerts", { dataset_id: dataset.dataset_id, name: "Big", measure: "total_amount", condition: "gt", threshold: 10 })

      const refused = yield* server.request("DELETE", `/v1/datasets/${dataset.dataset_id}`, { token })
      assert.strictEqual(refused.status, 409, refused.text)
      assert.strictEqual(refused.headers.get("content-type"), "application/problem+json")
      assert.strictEqual(problemCode(refused), "dataset/in-use")
      assert.deepStrictEqual(refused.body.reports, [{ report_id: report.report_id, name: "Sales overview" }])
      assert.deepStrictEqual(refused.body.dashboards, [{ dashboard_id: dashboard.dashboard_id, name: "Executive" }])
      assert.deepStrictEqual(refused.body.alerts, [{ alert_id: alert.alert_id, name: "Big" }])
      assert.include(refused.body.detail, "\"Sales overview\"")
      assert.include(refused.body.detail, "Nothing was deleted")

      // Nothing changed: the dataset and its rows, the report's visual, no audit entry of a deletion.
      assert.strictEqual((yield* ok("GET", `/v1/datasets/${dataset.dataset_id}`)).row_count, 3)
      const query = yield* ok("POST", `/v1/reports/${report.report_id}/visuals/by_region/query`, {})
      assert.deepStrictEqual(query.data.map((r: any) => r.region), ["EU", "US"])
      const log = yield* ok("GET", "/v1/audit-log?action=dataset.deleted")
      assert.strictEqual(log.data.length, 0)

      // Another dataset of the workspace is not held by them.
      const freed = yield* server.request("DELETE", `/v1/datasets/${other.dataset_id}`, { token })
      assert.strictEqual(freed.status, 204, freed.text)

      // Each use taken away in turn: named no more; once none is left, the dataset is deleted.
      yield* ok("DELETE", `/v1/dashboards/${dashboard.dashboard_id}`)
      const withoutDashboard = yield* server.request("DELETE", `/v1/datasets/${dataset.dataset_id}`, { token })
      assert.strictEqual(problemCode(withoutDashboard), "dataset/in-use")
      assert.deepStrictEqual(withoutDashboard.body.dashboards, [])
      assert.strictEqual(withoutDashboard.body.reports.length, 1)
      yield* ok("DELETE", `/v1/reports/${report.report_id}`)
      const alertOnly = yield* server.request("DELETE", `/v1/datasets/${dataset.dataset_id}`, { token })
      assert.strictEqual(problemCode(alertOnly), "dataset/in-use")
      assert.deepStrictEqual([alertOnly.body.reports, alertOnly.body.alerts.map((a: any) => a.name)], [[], ["Big"]])
      yield* ok("DELETE", `/v1/alerts/${alert.alert_id}`)
      const deleted = yield* server.request("DELETE", `/v1/datasets/${dataset.dataset_id}`, { token })
      assert.strictEqual(deleted.status, 204, deleted.text)
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/datasets/${dataset.dataset_id}`, { token })), "resource/not-found")

      // The OpenAPI document declares the refusal on the operation.
      const document = yield* server.request("GET", "/v1/openapi.json", { token })
      const responses = document.body.paths["/v1/datasets/{id}"].delete.responses
      assert.property(responses, "409")
      assert.include(JSON.stringify(responses["409"]), "DatasetInUse")
    }).pipe(Effect.scoped), 60_000)
})
