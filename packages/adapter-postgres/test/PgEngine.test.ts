/**
 * PostgreSQL direct query, for real: semantic queries compiled for
 * PostgreSQL run on a table of a throwaway database, answers checked
 * against the same rows summed here by hand; a streamed CSV read back by
 * csv-parse held to RFC 4180.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { AnalyticsEngine, AuditLog, BlobStore, Datasets, DatasetStore, EventPublisher, Pagination, SemanticModel, SemanticQuery, SqlCompiler, Tenants, Workspaces } from "@analytics/core"
import { readCsv } from "@analytics/testing"
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Exit, Layer, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { TestClock } from "effect/testing"
import { PgEngine } from "../src/index.ts"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"

const model = SemanticModel.check({
  dimensions: [
    { name: "region", type: "string" },
    { name: "product", type: "string", column: "product name" },
    { name: "online", type: "boolean", column: "is_online" },
    { name: "quantity", type: "number" },
    { name: "ordered_at", type: "time" }
  ],
  measures: [
    { name: "orders", aggregation: "count" },
    { name: "revenue", aggregation: "sum", column: "amount" },
    { name: "per_order", expression: "revenue / orders" }
  ],
  row_level_security: [{ filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }]
}) as SemanticModel.CheckedModel

const regions = ["EU", "US", "APAC", null]
const rows = Array.from({ length: 2_000 }, (_, i) => ({
  region: regions[i % 4]!,
  product: i % 3 === 0 ? "Pro Max" : "Basic",
  online: i % 5 === 0,
  quantity: (i % 7) + 1,
  ordered_at: new Date(Date.UTC(2024, 0, 1) + i * 5_400_000),
  amount: i % 40
}))

const setup = Effect.gen(function*() {
  const url = yield* freshDatabase(databaseUrl)
  const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
  yield* sql`CREATE TABLE sales (region text, "product name" text, is_online boolean, quantity integer, ordered_at timestamp, amount integer)`
  for (const r of rows) {
    yield* sql`INSERT INTO sales VALUES (${r.region}, ${r.product}, ${r.online}, ${r.quantity}, ${r.ordered_at}, ${r.amount})`
  }
  return Context.get(yield* Layer.build(PgEngine.layer(Redacted.make(url))), AnalyticsEngine.AnalyticsEngine)
}).pipe(Effect.provide(Reactivity.layer))

const query = (engine: AnalyticsEngine.AnalyticsEngine["Service"], q: SemanticQuery.Query, attributes: SemanticQuery.SecurityContext["attributes"]) => {
  const plan = SemanticQuery.plan(model, q, { roles: [], attributes }, new Date("2024-06-01T00:00:00Z"))
  assert.notInstanceOf(plan, SemanticQuery.QueryInvalid)
  return engine.run(SqlCompiler.compile(plan as SemanticQuery.Plan, { table: ["sales"] }, engine.dialect))
}

/**
 * Core's datasets on memory stores with `engine` as their PostgreSQL
 * engine, a tenant and its workspace "Sales"; `run` runs an operation of
 * core there.
 */
const withDatasets = (engine: AnalyticsEngine.AnalyticsEngine["Service"]) =>
  Effect.gen(function*() {
    const stores = yield* Layer.build(MemoryStores.layer)
    const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
      effect.pipe(
        Effect.provideService(Datasets.Engines, { bySource: { postgres: engine } }),
        Effect.provide(EventPublisher.EventPublisher.layer),
        Effect.provideContext(stores)
      ) as Effect.Effect<A, E>
    const { tenant } = yield* run(Tenants.provision({ name: "Acme", plan: "growth" }))
    const workspace = yield* run(Workspaces.create(tenant.tenant_id, { name: "Sales" }))
    return { run, tenant, workspace }
  })

if (databaseUrl === "") {
  describe.skip(`PgEngine ${skippedForNoPostgres}`, () => {})
} else {
  describe("PgEngine", () => {
    it.live("runs compiled queries on PostgreSQL as the rows say: filters, row-level security, derived measures", () =>
      Effect.gen(function*() {
        const engine = yield* setup
        const result = yield* query(engine, {
          measures: ["revenue", "orders", "per_order"],
          dimensions: ["region"],
          time_dimensions: [{ dimension: "ordered_at", granularity: "week", date_range: ["2024-01-01", "2024-01-31"] }],
          filters: [
            { or: [{ member: "product", operator: "contains", values: ["pro"] }, { member: "online", operator: "equals", values: [true] }] },
            { member: "quantity", operator: "gte", values: [2.5] }
          ]
        }, { region: ["EU", "US"] })
        const monday = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() - ((d.getUTCDay() + 6) % 7)))
        const expected = new Map<string, { revenue: number; orders: number }>()
        for (const r of rows) {
          if (r.region !== "EU" && r.region !== "US") continue
          if (r.ordered_at >= new Date("2024-02-01T00:00:00Z")) continue
          if (!(r.product.toLowerCase().includes("pro") || r.online) || r.quantity < 2.5) continue
          const key = `${r.region}|${SqlCompiler.timeText(monday(r.ordered_at))}`
          const e = expected.get(key) ?? { revenue: 0, orders: 0 }
          expected.set(key, { revenue: e.revenue + r.amount, orders: e.orders + 1 })
        }
        assert.strictEqual(result.length, expected.size)
        for (const row of result) {
          const e = expected.get(`${row.region}|${row.ordered_at__week}`)
          assert.isDefined(e, JSON.stringify(row))
          assert.strictEqual(row.orders, e!.orders)
          assert.strictEqual(row.revenue, e!.revenue)
          assert.closeTo(row.per_order as number, e!.revenue / e!.orders, 1e-9)
        }
        assert.deepStrictEqual(yield* query(engine, { measures: ["orders"] }, { region: "APAC" }), [{ orders: 500 }])
        assert.deepStrictEqual(yield* query(engine, { measures: ["orders"] }, {}), [{ orders: 0 }])
        const columns = yield* engine.describe(["sales"])
        assert.deepStrictEqual(columns.map((c) => [c.name, c.type]), [["region", "string"], ["product name", "string"], ["is_online", "boolean"], ["quantity", "number"], ["ordered_at", "time"], ["amount", "number"]])
        assert.strictEqual((yield* Effect.flip(engine.describe(["nothing"]))).detail, "No table or view nothing")
        assert.strictEqual((yield* Effect.flip(engine.importFile(["sales"], { path: "/x.csv", format: "csv" })))._tag, "EngineError")
      }).pipe(Effect.scoped))

    it.live("interrupting a query cancels it on the server", () =>
      Effect.gen(function*() {
        const engine = yield* setup
        const sleeping = { sql: "SELECT pg_sleep(30) AS slept", params: [], bound: [], columns: [] }
        assert.isTrue(Exit.isFailure(yield* Effect.exit(Effect.timeout(engine.run(sleeping), Duration.millis(300)))))
        assert.deepStrictEqual(yield* engine.run({ sql: "SELECT 42 AS answer", params: [], bound: [], columns: [] }), [{ answer: 42 }])
      }).pipe(Effect.scoped))

    it.live("a query's timeout is its statement_timeout on the server, for that statement only", () =>
      Effect.gen(function*() {
        const engine = yield* setup
        const run = (text: string, timeout?: Duration.Input) => engine.run({ sql: text, params: [], bound: [], columns: [] }, { timeout })
        assert.deepStrictEqual(yield* run("SELECT current_setting('statement_timeout') AS t", Duration.seconds(90)), [{ t: "90s" }])
        // The server ends it (no interruption here), however long the client would have waited.
        const stopped = yield* Effect.flip(run("SELECT pg_sleep(30) AS slept", Duration.millis(300)))
        assert.strictEqual(stopped.detail, "PostgreSQL stopped the query at its statement timeout (300 ms)")
        assert.deepStrictEqual(yield* run("SELECT current_setting('statement_timeout') AS t"), [{ t: "0" }])
      }).pipe(Effect.scoped))

    it.effect("a scheduled PostgreSQL dataset is refreshed when its cron time comes, once", () =>
      Effect.gen(function*() {
        const engine = yield* setup
        const { run, tenant, workspace } = yield* withDatasets(engine)
        const dataset = yield* run(Datasets.create(tenant.tenant_id, {
          workspace_id: workspace.workspace_id,
          name: "Orders",
          source: { type: "postgres", table: "sales" },
          refresh_cron: "0 * * * *"
        }, AuditLog.system))
        assert.strictEqual(dataset.row_count, null)
        assert.deepStrictEqual(yield* run(Datasets.refreshDue), [])
        yield* TestClock.adjust(Duration.hours(1))
        const [refreshed] = yield* run(Datasets.refreshDue)
        assert.strictEqual(refreshed?.row_count, rows.length)
        // Done for this hour.
        assert.deepStrictEqual(yield* run(Datasets.refreshDue), [])
        assert.isTrue(refreshed!.refreshed_at! > dataset.refreshed_at!)
        // Its refresh log holds the scheduler's refresh, which nobody asked for; a manual one names who asked.
        yield* TestClock.adjust(Duration.seconds(1))
        yield* run(Datasets.refresh(tenant.tenant_id, dataset.dataset_id, { trigger: "manual", requested_by: { type: "user", id: "u-7" } }))
        const page = { take: 10, sort: { field: "created_at", direction: "desc" }, after: undefined, createdAtOrBefore: Pagination.endOfTime } as const
        const log = yield* run(Effect.flatMap(DatasetStore.DatasetStore, (store) => store.listRefreshes(tenant.tenant_id, dataset.dataset_id, page)))
        assert.deepStrictEqual(
          log.map((r) => [r.trigger, r.requested_by, r.status, r.row_count]),
          [["manual", { type: "user", id: "u-7" }, "succeeded", rows.length], ["schedule", null, "succeeded", rows.length]]
        )
      }).pipe(Effect.scoped))

    it.live("streams a CSV of every row of a dataset's query past the old 50,000-row bound, formulas guarded; a named limit still applies", () =>
      Effect.gen(function*() {
        const engine = yield* setup
        const labels = ["=1+2", "+x", "-y", "@z", "\tt", 'say "hi", ok', "two\nlines", "plain"]
        const n = 60_000
        yield* engine.run({
          sql: `CREATE TABLE items AS SELECT i AS id, (ARRAY[${labels.map((l) => `'${l.replaceAll("'", "''")}'`).join(", ")}])[i % ${labels.length} + 1] AS label,
            TIMESTAMP '2024-01-01' + i * INTERVAL '1 second' AS at, i * 0.25 AS amount FROM generate_series(0, ${n - 1}) AS i`,
          params: [],
          bound: [],
          columns: []
        })
        const { run, tenant, workspace } = yield* withDatasets(engine)
        const dataset = yield* run(Datasets.create(tenant.tenant_id, {
          workspace_id: workspace.workspace_id,
          name: "Items",
          source: { type: "postgres", table: "items" },
          model: {
            dimensions: [{ name: "id", type: "number" }, { name: "label", type: "string" }, { name: "at", type: "time" }],
            measures: [{ name: "amount", aggregation: "sum", column: "amount" }]
          }
        }, AuditLog.system))
        const csvOf = (q: SemanticQuery.Query) =>
          Effect.flatMap(
            run(Datasets.csv(tenant.tenant_id, dataset.dataset_id, { dimensions: ["id", "label", "at"], measures: ["amount"], order: [{ member: "id" }], ...q }, { roles: [], attributes: {} })),
            (body) => Effect.map(BlobStore.collect(body!), (bytes) => readCsv(new TextDecoder().decode(bytes)))
          )
        const records = yield* csvOf({})
        assert.deepStrictEqual(records[0], ["id", "label", "at", "amount"])
        assert.strictEqual(records.length, n + 1)
        for (let i = 0; i < n; i++) {
          const raw = labels[i % labels.length]!
          assert.deepStrictEqual(records[i + 1], [
            String(i),
            /^[=+\-@\t\r]/.test(raw) ? `'${raw}` : raw,
            SqlCompiler.timeText(new Date(Date.UTC(2024, 0, 1) + i * 1000)),
            String(i * 0.25)
          ])
        }
        assert.deepStrictEqual((yield* csvOf({ limit: 3 })).map((r) => r[0]), ["id", "0", "1", "2"])
      }).pipe(Effect.scoped))
  })
}
