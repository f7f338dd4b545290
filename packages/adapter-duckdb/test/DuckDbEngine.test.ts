/**
 * The DuckDB engine, for real: a CSV file imported into a DuckDB database
 * on disk, semantic queries compiled for DuckDB and run there, answers
 * checked against the same rows summed here by hand.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { AnalyticsEngine, SemanticModel, SemanticQuery, SqlCompiler } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Context, Duration, Effect, Exit, Layer } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const model = SemanticModel.check({
  dimensions: [
    { name: "region", type: "string" },
    { name: "code", type: "string" },
    { name: "ordered_at", type: "time" }
  ],
  measures: [
    { name: "orders", aggregation: "count" },
    { name: "revenue", aggregation: "sum", column: "amount" },
    { name: "per_order", expression: "revenue / orders" }
  ],
  row_level_security: [{ filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }]
}) as SemanticModel.CheckedModel

const regions = ["EU", "US", "APAC"]
/** 3,000 rows: region, code (digits that must stay text), ordered_at, amount. */
const rows = Array.from({ length: 3_000 }, (_, i) => ({
  region: regions[i % 3]!,
  code: String(i % 10).padStart(3, "0"),
  ordered_at: SqlCompiler.timeText(new Date(Date.UTC(2024, 0, 1) + i * 3_600_000)),
  amount: (i % 100) / 4
}))

const withEngine = <A, E>(f: (engine: AnalyticsEngine.AnalyticsEngine["Service"], dir: string) => Effect.Effect<A, E>) =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "duckdb-engine-"))),
      (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
    )
    const engine = Context.get(yield* Layer.build(DuckDbEngine.layer(join(dir, "analytics.duckdb"))), AnalyticsEngine.AnalyticsEngine)
    return yield* f(engine, dir)
  }).pipe(Effect.scoped)

const csv = (dir: string, name: string, data: ReadonlyArray<typeof rows[number]>) => {
  const path = join(dir, name)
  writeFileSync(path, ["region,code,ordered_at,amount", ...data.map((r) => `${r.region},${r.code},${r.ordered_at},${r.amount}`)].join("\n"))
  return path
}

const query = (engine: AnalyticsEngine.AnalyticsEngine["Service"], q: SemanticQuery.Query, attributes: SemanticQuery.SecurityContext["attributes"]) => {
  const plan = SemanticQuery.plan(model, q, { roles: [], attributes }, new Date("2024-06-01T00:00:00Z"))
  assert.notInstanceOf(plan, SemanticQuery.QueryInvalid)
  return engine.run(SqlCompiler.compile(plan as SemanticQuery.Plan, { table: ["sales"] }, engine.dialect))
}

describe("DuckDbEngine", () => {
  it.live("imports a CSV with type overrides and answers semantic queries as the rows say", () =>
    withEngine((engine, dir) =>
      Effect.gen(function*() {
        const { columns, rowCount } = yield* engine.importFile(["sales"], { path: csv(dir, "sales.csv", rows), format: "csv", types: { code: "string" } })
        assert.strictEqual(rowCount, rows.length)
        assert.deepStrictEqual(columns.map((c) => [c.name, c.type]), [["region", "string"], ["code", "string"], ["ordered_at", "time"], ["amount", "number"]])
        const result = yield* query(engine, {
          measures: ["revenue", "orders", "per_order"],
          dimensions: ["region"],
          time_dimensions: [{ dimension: "ordered_at", granularity: "month", date_range: ["2024-01-01", "2024-02-29"] }],
          filters: [{ member: "code", operator: "starts_with", values: ["00"] }]
        }, { region: ["EU", "US"] })
        const expected = new Map<string, { revenue: number; orders: number }>()
        for (const r of rows) {
          if ((r.region !== "EU" && r.region !== "US") || !r.code.startsWith("00") || r.ordered_at >= "2024-03-01") continue
          const key = `${r.region}|${r.ordered_at.slice(0, 7)}-01 00:00:00`
          const e = expected.get(key) ?? { revenue: 0, orders: 0 }
          expected.set(key, { revenue: e.revenue + r.amount, orders: e.orders + 1 })
        }
        assert.strictEqual(result.length, expected.size)
        for (const row of result) {
          const e = expected.get(`${row.region}|${row.ordered_at__month}`)
          assert.isDefined(e, JSON.stringify(row))
          assert.strictEqual(row.orders, e!.orders)
          assert.closeTo(row.revenue as number, e!.revenue, 1e-9)
          assert.closeTo(row.per_order as number, e!.revenue / e!.orders, 1e-9)
        }
        // Ordered by the time dimension first (the default order).
        const months = result.map((r) => r.ordered_at__month as string)
        assert.deepStrictEqual(months, [...months].sort())
        // Another principal, another region; no attribute, no rows.
        assert.deepStrictEqual(yield* query(engine, { measures: ["orders"] }, { region: "APAC" }), [{ orders: 1_000 }])
        assert.deepStrictEqual(yield* query(engine, { measures: ["orders"] }, {}), [{ orders: 0 }])
      })))

  it.live("a re-import replaces the rows whole; a bad file leaves the old ones", () =>
    withEngine((engine, dir) =>
      Effect.gen(function*() {
        yield* engine.importFile(["sales"], { path: csv(dir, "a.csv", rows), format: "csv" })
        yield* engine.importFile(["sales"], { path: csv(dir, "b.csv", rows.slice(0, 30)), format: "csv" })
        assert.deepStrictEqual(yield* query(engine, { measures: ["orders"] }, { region: "EU" }), [{ orders: 10 }])
        const missing = yield* Effect.exit(engine.importFile(["sales"], { path: join(dir, "missing.csv"), format: "csv" }))
        assert.isTrue(Exit.isFailure(missing))
        assert.deepStrictEqual(yield* query(engine, { measures: ["orders"] }, { region: "EU" }), [{ orders: 10 }])
        yield* engine.drop(["sales"])
        const gone = yield* Effect.flip(engine.describe(["sales"]))
        assert.strictEqual(gone._tag, "EngineError")
      })))

  it.live("interrupting a query cancels it in DuckDB", () =>
    withEngine((engine) =>
      Effect.gen(function*() {
        const endless = { sql: "SELECT COUNT(*) AS n FROM range(100000000000) a WHERE a.range % 7 = 3", params: [], bound: [], columns: [] }
        const timedOut = yield* Effect.exit(Effect.timeout(engine.run(endless), Duration.millis(300)))
        assert.isTrue(Exit.isFailure(timedOut))
        // The engine is free for the next query.
        assert.deepStrictEqual(yield* engine.run({ sql: "SELECT 42 AS answer", params: [], bound: [], columns: [] }), [{ answer: 42 }])
      })))
})
