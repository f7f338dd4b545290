/**
 * An alert's history over real HTTP (memory, PGlite, PostgreSQL): each check,
 * after a refresh or asked for, is kept with what it measured against which
 * rule and whether it fired or resolved the alert; newest first, paginated,
 * for members of the tenant only, and gone with the alert. Editing an
 * alert's measure is checked against its dataset.
 */
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode } from "@analytics/testing/http"
import { onEveryStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

onEveryStore("an alert's history", (stores) => {
  it.live("checks and firings are kept, newest first; a measure edited; another tenant sees none; gone with the alert", () =>
    Effect.gen(function*() {
      const { server } = yield* ExportFixture.serve({ stores: stores() })
      const { token } = yield* server.tenant()
      const ok = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
        Effect.map(server.request(method, path, { token, body, headers }), (r) => {
          assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
          return r.body
        })
      const workspace = yield* ok("POST", "/v1/workspaces", { name: "Sales" })
      const dataset = yield* ok("POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Orders", source: { type: "upload" } })
      const upload = (csv: string) => ok("PUT", `/v1/datasets/${dataset.dataset_id}/data`, csv, { "content-type": "text/csv" })
      yield* upload("region,amount\nEU,10\nUS,20")
      const alert = yield* ok("POST", "/v1/alerts", { dataset_id: dataset.dataset_id, name: "Big", measure: "total_amount", condition: "gt", threshold: 100 })
      assert.deepStrictEqual((yield* ok("GET", `/v1/alerts/${alert.alert_id}/history`)).data, [])

      // A refresh above the threshold fires it; the next stays firing; asking resolves it after a smaller upload.
      yield* upload("region,amount\nEU,100\nUS,200")
      yield* Effect.sleep("2 millis")
      yield* ok("POST", `/v1/alerts/${alert.alert_id}/check`)
      yield* Effect.sleep("2 millis")
      yield* ok("PATCH", `/v1/alerts/${alert.alert_id}`, { threshold: 500 })
      yield* ok("POST", `/v1/alerts/${alert.alert_id}/check`)
      const history = yield* ok("GET", `/v1/alerts/${alert.alert_id}/history`)
      assert.deepStrictEqual(history.data.map((c: any) => [c.trigger, c.value, c.threshold, c.state, c.transition]), [
        ["manual", 300, 500, "ok", "resolved"],
        ["manual", 300, 100, "firing", null],
        ["refresh", 300, 100, "firing", "fired"]
      ])
      const [last] = history.data
      assert.deepInclude(last, { measure: "total_amount", condition: "gt" })
      assert.isFalse(Number.isNaN(Date.parse(last.checked_at)))
      assert.notProperty(last, "tenant_id")

      // Paginated as every list (decision 0003).
      const page = yield* ok("GET", `/v1/alerts/${alert.alert_id}/history?limit=2`)
      assert.strictEqual(page.data.length, 2)
      const next = yield* ok("GET", `/v1/alerts/${alert.alert_id}/history?limit=2&cursor=${encodeURIComponent(page.page.next_cursor)}`)
      assert.deepStrictEqual(next.data.map((c: any) => c.transition), ["fired"])

      // The measure can be changed, and is checked against the dataset.
      assert.strictEqual(problemCode(yield* server.request("PATCH", `/v1/alerts/${alert.alert_id}`, { token, body: { measure: "profit" } })), "query/invalid")
      const changed = yield* ok("PATCH", `/v1/alerts/${alert.alert_id}`, { measure: "count" })
      assert.strictEqual(changed.measure, "count")
      const counted = yield* ok("POST", `/v1/alerts/${alert.alert_id}/check`)
      assert.strictEqual(counted.last_value, 2)

      // A member reads it; another tenant's id is unknown; a bad id is a problem; gone with the alert.
      const member = yield* ok("POST", "/v1/users", { email: "m@example.com", name: "M" })
      const memberToken = (yield* ok("POST", `/v1/users/${member.user_id}/tokens`)).token
      assert.strictEqual((yield* server.request("GET", `/v1/alerts/${alert.alert_id}/history`, { token: memberToken })).body.data.length, 4)
      const stranger = yield* server.tenant()
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/alerts/${alert.alert_id}/history`, { token: stranger.token })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/alerts/${alert.alert_id}/history?limit=0`, { token })), "request/invalid")
      yield* ok("DELETE", `/v1/alerts/${alert.alert_id}`)
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/alerts/${alert.alert_id}/history`, { token })), "resource/not-found")
    }).pipe(Effect.scoped), 60_000)
})
