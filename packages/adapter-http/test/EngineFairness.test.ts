/**
 * The engine's fair share over real HTTP (decision 0013): with one engine slot,
 * a tenant's query goes before another tenant's queued flood, and a query
 * that gets no turn within its timeout is answered 429
 * `rate-limit/query-concurrency` with `Retry-After`. The engine is a fake
 * whose queries run until the test lets them end, so the order is seen
 * exactly; the clock is the TestClock.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { AnalyticsEngine, EngineScheduler, SqlDialect } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { eventually } from "@analytics/testing"
import { problemCode, start } from "./TestServer.ts"

/** An engine whose queries each wait for the test to open their gate; `started` in the order the engine got them. */
const gatedEngine = () => {
  const started: Array<{ readonly sql: string; readonly gate: Deferred.Deferred<void> }> = []
  const engine = AnalyticsEngine.AnalyticsEngine.of({
    dialect: SqlDialect.duckdb,
    run: (compiled) =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<void>()
        started.push({ sql: compiled.sql, gate })
        yield* Deferred.await(gate)
        return [{ orders: 1 }]
      }),
    importFile: () => Effect.succeed({ columns: [{ name: "region", engineType: "VARCHAR", type: "string" }], rowCount: 1 }),
    describe: () => Effect.succeed([{ name: "region", engineType: "VARCHAR", type: "string" }]),
    drop: () => Effect.void
  })
  return { engine, started }
}

/** Waits, in real time, until `check` holds (requests travel over a socket). */
const waitUntil = (check: () => Effect.Effect<boolean> | boolean) =>
  eventually(Effect.suspend(() => {
    const result = check()
    return typeof result === "boolean" ? Effect.succeed(result) : result
  }), undefined, { timeoutMillis: 5_000, intervalMillis: 5 })

const model = {
  dimensions: [{ name: "region", type: "string" }],
  measures: [{ name: "orders", aggregation: "count" }],
  row_level_security: [{ roles: ["admin"], all_rows: true }]
}

describe("engine fair share over HTTP", () => {
  it.effect("a tenant's query goes before another's queued flood; no turn within the timeout is a 429 with Retry-After", () =>
    Effect.gen(function*() {
      const { engine, started } = gatedEngine()
      const scheduler = yield* EngineScheduler.make({ capacity: 1 })
      const server = yield* start(MemoryStores.layer, {
        engines: { upload: Layer.succeed(AnalyticsEngine.AnalyticsEngine, engine) },
        engineScheduler: Layer.succeed(EngineScheduler.EngineScheduler, scheduler)
      })
      const tenantWithDataset = Effect.gen(function*() {
        const { token } = yield* server.tenant("scale")
        const workspace = (yield* server.request("POST", "/v1/workspaces", { token, body: { name: "Sales" } })).body
        const dataset = (yield* server.request("POST", "/v1/datasets", {
          token,
          body: { workspace_id: workspace.workspace_id, name: "Orders", source: { type: "upload" }, model }
        })).body
        const loaded = yield* server.request("PUT", `/v1/datasets/${dataset.dataset_id}/data`, { token, body: "region\nEU\n", headers: { "content-type": "text/csv" } })
        assert.strictEqual(loaded.status, 200, loaded.text)
        const table = (dataset.dataset_id as string).replaceAll("-", "")
        const query = Effect.forkChild(server.request("POST", `/v1/datasets/${dataset.dataset_id}/query`, { token, body: { measures: ["orders"] } }))
        return { table, query }
      })
      const a = yield* tenantWithDataset
      const b = yield* tenantWithDataset
      const waiting = () => Effect.map(scheduler.usage, (usage) => usage.waiting)

      // B floods: its first query holds the engine, two more wait. Each is sent only once the one before it is in
      // the scheduler: requests on separate connections reach the server in any order (under load B3 can overtake B2,
      // and then B3 runs and times out while B2 is the one refused), and within a tenant the queue is first come, first served.
      const b1 = yield* b.query
      yield* waitUntil(() => started.length === 1)
      const b2 = yield* b.query
      yield* waitUntil(() => Effect.map(waiting(), (n) => n === 1))
      const b3 = yield* b.query
      yield* waitUntil(() => Effect.map(waiting(), (n) => n === 2))
      // A asks after B's queued queries, and is served first.
      const a1 = yield* a.query
      yield* waitUntil(() => Effect.map(waiting(), (n) => n === 3))
      yield* Deferred.succeed(started[0]!.gate, undefined)
      assert.strictEqual((yield* Fiber.join(b1)).status, 200)
      yield* waitUntil(() => started.length === 2)
      assert.include(started[1]!.sql, a.table, "A's query had the engine next")
      yield* Deferred.succeed(started[1]!.gate, undefined)
      const answered = yield* Fiber.join(a1)
      assert.strictEqual(answered.status, 200, answered.text)
      assert.deepStrictEqual(answered.body.data, [{ orders: 1 }])
      // Then B's, in B's order: B2 runs, B3 waits its turn; the 60 s timeout passes for both.
      yield* waitUntil(() => started.length === 3)
      assert.include(started[2]!.sql, b.table)
      yield* TestClock.adjust("60 seconds")
      const timedOut = yield* Fiber.join(b2)
      assert.strictEqual(problemCode(timedOut), "query/timed-out", "B2 ran past its timeout")
      const refused = yield* Fiber.join(b3)
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(problemCode(refused), "rate-limit/query-concurrency", "B3 never had a turn")
      assert.strictEqual(refused.headers.get("retry-after"), "1")
      assert.match(refused.body.detail, /no turn for this query within 60 s/)
      assert.strictEqual(started.length, 3, "B3 never reached the engine")
      assert.deepStrictEqual(yield* scheduler.usage, { running: 0, waiting: 0, tenants: {} })
    }))
})
