/**
 * The DuckDB engine, for real: a CSV file imported into a DuckDB database
 * on disk, semantic queries compiled for DuckDB and run there, answers
 * checked against the same rows summed here by hand; CSV files streamed
 * from DuckDB's writer read back by csv-parse held to RFC 4180.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { AnalyticsEngine, BlobStore, SemanticModel, SemanticQuery, SqlCompiler } from "@analytics/core"
import { readCsv } from "@analytics/testing"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Stream } from "effect"
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
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

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

/** Labels with every start a spreadsheet runs as a formula, and quotes, commas and line breaks inside. */
const labels = ["=1+2", "+x", "-y", "@z", "\tt", "\rr", 'say "hi", ok', "two\nlines", "plain"]

const exportModel = SemanticModel.check({
  dimensions: [{ name: "id", type: "number" }, { name: "label", type: "string" }, { name: "at", type: "time" }],
  measures: [{ name: "amount", aggregation: "sum", column: "amount" }]
}) as SemanticModel.CheckedModel

/** The export query over `items`: every item, by id (no limit named: every row). */
const exportQuery = (engine: AnalyticsEngine.AnalyticsEngine["Service"], q: SemanticQuery.Query = {}) => {
  const plan = SemanticQuery.plan(exportModel, { dimensions: ["id", "label", "at"], measures: ["amount"], order: [{ member: "id" }], ...q }, { roles: [], attributes: {} }, new Date())
  const compiled = SqlCompiler.compile(plan as SemanticQuery.Plan, { table: ["items"] }, engine.dialect)
  // As `Datasets.csv` does when the query names no limit.
  return q.limit === undefined ? { ...compiled, sql: compiled.sql.replace(/\nLIMIT \d+$/, "") } : compiled
}

const createItems = (engine: AnalyticsEngine.AnalyticsEngine["Service"], n: number) =>
  engine.run({
    sql: `CREATE TABLE items AS SELECT range AS id, ([${labels.map((l) => `'${l.replaceAll("'", "''")}'`).join(", ")}])[range % ${labels.length} + 1] AS label,
      TIMESTAMP '2024-01-01' + to_seconds(range) AS at, range / 4 AS amount FROM range(${n})`,
    params: [],
    bound: [],
    columns: []
  })

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

  it.live("an import is written to the database file compressed, not left in the WAL below DuckDB's automatic checkpoint", () =>
    withEngine((engine, dir) =>
      Effect.gen(function*() {
        yield* engine.importFile(["sales"], { path: csv(dir, "sales.csv", rows), format: "csv", types: { code: "string" } })
        const segments = yield* engine.run({
          sql: "SELECT column_name, compression, persistent FROM pragma_storage_info('sales') WHERE segment_type <> 'VALIDITY'",
          params: [],
          bound: [],
          columns: []
        })
        assert.isAbove(segments.length, 0)
        for (const segment of segments) assert.isTrue(segment.persistent, JSON.stringify(segment))
        // Three regions: a dictionary (or smaller), not a string per row.
        const region = segments.filter((s) => s.column_name === "region").map((s) => s.compression)
        assert.notInclude(region, "Uncompressed")
      })))

  it.live("a checkpoint that fails after an import fails the import with its cause", () =>
    withEngine((engine, dir) =>
      Effect.gen(function*() {
        // DuckDB's own fault injection: every checkpoint fails.
        yield* engine.run({ sql: "SET GLOBAL debug_checkpoint_abort = 'before_header'", params: [], bound: [], columns: [] })
        const error = yield* Effect.flip(engine.importFile(["sales"], { path: csv(dir, "sales.csv", rows), format: "csv" }))
        assert.strictEqual(error._tag, "EngineError")
        assert.include(error.detail, "checkpoint_abort")
      })))

  it.live("lists the tables whose names start with a prefix, views and other schemas aside, a quote in the prefix taken as text", () =>
    withEngine((engine, dir) =>
      Effect.gen(function*() {
        const file = { path: csv(dir, "few.csv", rows.slice(0, 3)), format: "csv" as const }
        for (const name of ["dataset_b", "dataset_a", "datasets", "other", "it's"]) yield* engine.importFile([name], file)
        const sql = (text: string) => engine.run({ sql: text, params: [], bound: [], columns: [] })
        yield* sql("CREATE VIEW dataset_view AS SELECT * FROM other")
        yield* sql("CREATE SCHEMA side")
        yield* sql("CREATE TABLE side.dataset_c AS SELECT * FROM other")
        assert.deepStrictEqual(yield* engine.listTables!("dataset_"), ["dataset_a", "dataset_b"])
        assert.deepStrictEqual(yield* engine.listTables!("it'"), ["it's"])
        yield* engine.drop(["dataset_a"])
        assert.deepStrictEqual(yield* engine.listTables!("dataset_"), ["dataset_b"])
      })))

  it.live("streams a CSV of every row past the old 50,000-row bound, in order, formulas guarded, RFC 4180", () =>
    withEngine((engine) =>
      Effect.gen(function*() {
        const n = 120_000
        yield* createItems(engine, n)
        const records = readCsv(text(yield* BlobStore.collect(engine.csv!(exportQuery(engine)))))
        assert.deepStrictEqual(records[0], ["id", "label", "at", "amount"])
        assert.strictEqual(records.length, n + 1)
        for (let i = 0; i < n; i++) {
          const [id, label, at, amount] = records[i + 1]!
          const raw = labels[i % labels.length]!
          assert.strictEqual(id, String(i))
          assert.strictEqual(label, /^[=+\-@\t\r]/.test(raw) ? `'${raw}` : raw)
          assert.strictEqual(at, SqlCompiler.timeText(new Date(Date.UTC(2024, 0, 1) + i * 1000)))
          assert.strictEqual(Number(amount), i / 4)
        }
        // A limit the query names still applies.
        const limited = readCsv(text(yield* BlobStore.collect(engine.csv!(exportQuery(engine, { limit: 5 })))))
        assert.deepStrictEqual(limited.slice(1).map((r) => r[0]), ["0", "1", "2", "3", "4"])
        // No rows: the header alone.
        assert.deepStrictEqual(readCsv(text(yield* BlobStore.collect(engine.csv!(exportQuery(engine, { filters: [{ member: "id", operator: "lt", values: [0] }] }))))), [["id", "label", "at", "amount"]])
      })))

  it.live("a CSV stream read in part, or failing in DuckDB, ends its statement and leaves no pipe behind", () =>
    withEngine((engine) =>
      Effect.gen(function*() {
        yield* createItems(engine, 2_000_000)
        const pipes = () => readdirSync(tmpdir()).filter((f) => f.startsWith("analytics-export-")).length
        const before = pipes()
        // The first chunks only: DuckDB is stopped mid-file.
        const head = yield* Stream.runCollect(Stream.take(engine.csv!(exportQuery(engine)), 2))
        assert.strictEqual(head.length, 2)
        assert.isTrue(head.map(text).join("").startsWith("id,label,at,amount\r\n"))
        assert.strictEqual(pipes(), before)
        // A statement DuckDB refuses fails the stream (never a short file taken for a whole one).
        const refused = yield* Effect.flip(Stream.runDrain(engine.csv!({ ...exportQuery(engine), sql: "SELECT nope FROM items" })))
        assert.strictEqual(refused._tag, "EngineError")
        assert.match(refused.detail, /nope/)
        // The engine, its connections and the file system are as before.
        assert.deepStrictEqual(yield* engine.run({ sql: "SELECT COUNT(*)::INTEGER AS n FROM items", params: [], bound: [], columns: [] }), [{ n: 2_000_000 }])
        assert.strictEqual(pipes(), before)
      })))
})
