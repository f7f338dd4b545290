/**
 * Uploads held in PostgreSQL (decision 0013, "Uploads on the PostgreSQL
 * store"), on a throwaway database: a CSV file is typed as DuckDB types it
 * (the same file is imported into DuckDB beside it), its decimals exact; a
 * Parquet file written by DuckDB reads back as DuckDB reads it; a failed
 * import leaves no table; tables are listed and dropped in their own
 * schema; and the orphan sweep of an engine other hosts load into leaves a
 * young load's table alone.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { MemoryStores } from "@analytics/adapter-memory"
import { AnalyticsEngine, AuditLog, Dataset, Datasets, EventPublisher, Ids, Tenants, Workspaces } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { PgEngine } from "../src/index.ts"
import { databaseUrl, freshDatabase, skippedForNoPostgres, tempDir } from "@analytics/testing/postgres"

type Engine = AnalyticsEngine.AnalyticsEngine["Service"]

/** The uploads engine on a fresh database, and the database's URL. */
const setup = Effect.gen(function*() {
  const url = yield* freshDatabase(databaseUrl)
  const engine = Context.get(yield* Layer.build(PgEngine.layerUploads(Redacted.make(url), { connections: 3 })), AnalyticsEngine.AnalyticsEngine)
  return { url, engine }
})

/** Every row of a table, in the order of its first column, each value as a query of a dimension of its type gives it. */
const rowsOf = (engine: Engine, table: string) =>
  Effect.flatMap(engine.describe([table]), (columns) =>
    engine.run({
      sql: `SELECT * FROM "${table}" ORDER BY 1`,
      params: [],
      bound: [],
      columns: columns.map((c) => ({ name: c.name, member: c.name, kind: "dimension" as const, type: c.type }))
    }))

/** 2,000 orders: integers, amounts of two decimals, a double, times, booleans, text with commas and quotes, some empty cells. */
const ordersCsv = (() => {
  const lines = ["order_id,amount,ratio,ordered_at,day,online,customer"]
  for (let i = 0; i < 2_000; i++) {
    const amount = `${(i * 7919) % 100_000}.${String((i * 37) % 100).padStart(2, "0")}`
    const at = new Date(Date.UTC(2025, 0, 1) + i * 3_600_000).toISOString().slice(0, 19).replace("T", " ")
    lines.push(`${i + 1},${i % 50 === 0 ? "" : amount},${(i / 7).toExponential(3)},${at},${at.slice(0, 10)},${i % 3 === 0},${i % 5 === 0 ? `"Smith, ""Jr"""` : `c${i % 9}`}`)
  }
  return lines.join("\n")
})()

const exactCents = (csv: string) =>
  csv.split("\n").slice(1).map((line) => line.split(",")[1]!).filter((a) => a !== "").reduce((sum, a) => {
    const [whole, fraction] = a.split(".")
    return sum + BigInt(whole!) * 100n + BigInt(fraction!)
  }, 0n)

if (databaseUrl === "") {
  describe.skip(`PgEngine uploads ${skippedForNoPostgres}`, () => {})
} else {
  describe("PgEngine uploads", () => {
    it.live("a CSV file is typed as DuckDB types it, its amounts exact, its sum exact through a dataset's query", () =>
      Effect.gen(function*() {
        const { engine } = yield* setup
        const dir = yield* tempDir("analytics-pg-uploads-")
        const file = Path.join(dir, "orders.csv")
        yield* Effect.promise(() => Fs.writeFile(file, ordersCsv))
        const duck = yield* DuckDbEngine.make(":memory:")
        const expected = yield* duck.importFile(["orders"], { path: file, format: "csv" })
        const imported = yield* engine.importFile(["dataset_orders"], { path: file, format: "csv" })
        assert.strictEqual(imported.rowCount, 2_000)
        assert.deepStrictEqual(imported.columns.map((c) => [c.name, c.type]), expected.columns.map((c) => [c.name, c.type]))
        assert.deepStrictEqual(expected.columns.map((c) => c.engineType), ["BIGINT", "DECIMAL(18,2)", "DOUBLE", "TIMESTAMP", "DATE", "BOOLEAN", "VARCHAR"])
        assert.deepStrictEqual(imported.columns.map((c) => c.engineType), ["bigint", "numeric(18,2)", "double precision", "timestamp without time zone", "date", "boolean", "text"])
        // The same rows, value for value, as DuckDB reads them.
        assert.deepStrictEqual(yield* rowsOf(engine, "dataset_orders"), yield* rowsOf(duck, "orders"))
        // `?types=` reads a column as asked, as on DuckDB.
        const typed = yield* engine.importFile(["dataset_typed"], { path: file, format: "csv", types: { order_id: "string", amount: "number" } })
        assert.deepStrictEqual(typed.columns.slice(0, 2).map((c) => c.engineType), ["text", "double precision"])

        // Through core: a load into a table of its own, queried by name alone (the pool's search_path).
        const stores = yield* Layer.build(MemoryStores.layer)
        const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
          effect.pipe(
            Effect.provideService(Datasets.Engines, { bySource: { upload: engine } }),
            Effect.provide(EventPublisher.EventPublisher.layer),
            Effect.provideContext(stores)
          ) as Effect.Effect<A, E>
        const { tenant } = yield* run(Tenants.provision({ name: "Acme", plan: "growth" }))
        const workspace = yield* run(Workspaces.create(tenant.tenant_id, { name: "Sales" }))
        const dataset = yield* run(Datasets.create(tenant.tenant_id, { workspace_id: workspace.workspace_id, name: "Orders", source: { type: "upload" } }, AuditLog.system))
        const loaded = yield* run(Datasets.load(tenant.tenant_id, dataset.dataset_id, { path: file, format: "csv" }))
        assert.strictEqual(loaded.row_count, 2_000)
        const { rows } = yield* run(Datasets.query(tenant.tenant_id, dataset.dataset_id, { measures: ["total_amount", "count"] }, { roles: [], attributes: {} }))
        const cents = exactCents(ordersCsv)
        assert.strictEqual(String(rows[0]!["total_amount"]), `${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`.replace(/\.?0+$/, ""))
        assert.strictEqual(rows[0]!["count"], 2_000)
        // Its table is the load's, in the uploads schema; deleting the dataset drops it.
        assert.include(yield* engine.listTables!("dataset_"), Dataset.tableOf(loaded)[0]!)
        yield* run(Datasets.remove(tenant.tenant_id, dataset.dataset_id, AuditLog.system))
        assert.notInclude(yield* engine.listTables!("dataset_"), Dataset.tableOf(loaded)[0]!)
      }).pipe(Effect.scoped), { timeout: 60_000 })

    it.live("a Parquet file written by DuckDB reads back as DuckDB reads it; a file that cannot be read leaves no table", () =>
      Effect.gen(function*() {
        const { engine, url } = yield* setup
        const dir = yield* tempDir("analytics-pg-uploads-")
        const csv = Path.join(dir, "orders.csv")
        const parquet = Path.join(dir, "orders.parquet")
        yield* Effect.promise(() => Fs.writeFile(csv, ordersCsv))
        const duck = yield* DuckDbEngine.make(":memory:")
        yield* duck.importFile(["orders"], { path: csv, format: "csv" })
        // More types than a CSV gives, and several row groups.
        yield* duck.writeFile!({
          sql: `SELECT *, CAST(order_id AS INTEGER) AS small, CAST(amount AS DECIMAL(12, 3)) AS wide, [order_id, order_id + 1] AS pair FROM orders ORDER BY order_id`,
          params: [],
          bound: [],
          columns: []
        }, "parquet", parquet)
        const fromDuck = yield* duck.importFile(["from_parquet"], { path: parquet, format: "parquet" })
        const imported = yield* engine.importFile(["dataset_parquet"], { path: parquet, format: "parquet" })
        assert.strictEqual(imported.rowCount, 2_000)
        // A list is JSON text here (DuckDB's BIGINT[] suggests a number, wrongly: it is no dimension either way).
        assert.deepStrictEqual(imported.columns.slice(0, -1).map((c) => [c.name, c.type]), fromDuck.columns.slice(0, -1).map((c) => [c.name, c.type]))
        assert.deepStrictEqual(imported.columns.map((c) => c.engineType), [
          "bigint",
          "numeric(18,2)",
          "double precision",
          "timestamp without time zone",
          "date",
          "boolean",
          "text",
          "integer",
          "numeric(12,3)",
          "text"
        ])
        const withoutPair = ({ pair: _, ...row }: Record<string, unknown>) => row
        const pgRows = yield* rowsOf(engine, "dataset_parquet")
        assert.deepStrictEqual(pgRows.map(withoutPair), (yield* rowsOf(duck, "from_parquet")).map(withoutPair))
        for (const row of pgRows) assert.deepStrictEqual(JSON.parse(String(row["pair"])).map(Number), [row["order_id"], Number(row["order_id"]) + 1])

        // A CSV named Parquet, and a ragged CSV: refused, and no table is left behind.
        const failed = yield* Effect.flip(engine.importFile(["dataset_bad"], { path: csv, format: "parquet" }))
        assert.strictEqual(failed._tag, "EngineError")
        const ragged = Path.join(dir, "ragged.csv")
        yield* Effect.promise(() => Fs.writeFile(ragged, "a,b\n1,2\n3,4,5\n"))
        assert.strictEqual((yield* Effect.flip(engine.importFile(["dataset_bad"], { path: ragged, format: "csv" })))._tag, "EngineError")
        assert.deepStrictEqual(yield* engine.listTables!("dataset_"), ["dataset_parquet"])
        // The tables are in their own schema, none in public.
        const sql = yield* PgClient.make({ url: Redacted.make(url), maxConnections: 1 })
        const schemas = yield* sql<{ schemaname: string }>`SELECT DISTINCT schemaname FROM pg_tables WHERE tablename LIKE 'dataset_%'`
        assert.deepStrictEqual(schemas.map((r) => r.schemaname), [PgEngine.uploadSchema])
        yield* engine.drop(["dataset_parquet"])
        assert.deepStrictEqual(yield* engine.listTables!("dataset_"), [])
      }).pipe(Effect.scoped, Effect.provide(Reactivity.layer)), { timeout: 60_000 })

    it.live("its sessions end a query within a second of losing their client, so a lost cancel request leaves no query running", () =>
      Effect.gen(function*() {
        const { engine } = yield* setup
        const [row] = yield* engine.run({
          sql: "SELECT current_setting('client_connection_check_interval') AS interval",
          params: [],
          bound: [],
          columns: [{ name: "interval", member: "interval", kind: "dimension", type: "string" }]
        })
        assert.strictEqual(row?.["interval"], "1s")
      }).pipe(Effect.scoped))

    it.live("the orphan sweep of an engine other hosts load into drops an old load's table, not a young one", () =>
      Effect.gen(function*() {
        const { engine } = yield* setup
        assert.isTrue(engine.shared)
        const dir = yield* tempDir("analytics-pg-uploads-")
        const file = Path.join(dir, "one.csv")
        yield* Effect.promise(() => Fs.writeFile(file, "a\n1\n"))
        const datasetId = "0".repeat(32)
        const loadAt = (millis: number) => Ids.uuidv7From(millis, new Uint8Array(10).fill(255)).replaceAll("-", "")
        const old = `dataset_${datasetId}_${loadAt(Date.now() - 2 * 3_600_000)}`
        const young = `dataset_${datasetId}_${loadAt(Date.now() - 60_000)}`
        // A load's table name is longer than PostgreSQL's identifiers: it is kept shorter there, and read back whole.
        for (const name of [old, young, `dataset_${"f".repeat(32)}_${"f".repeat(32)}`]) {
          assert.isAtMost(PgEngine.pgUploadTable(name).length, 63)
          assert.strictEqual(PgEngine.uploadTableOf(PgEngine.pgUploadTable(name)), name)
        }
        assert.notStrictEqual(PgEngine.pgUploadTable(old), PgEngine.pgUploadTable(`dataset_${datasetId}_${loadAt(Date.now() - 2 * 3_600_000 + 1)}`))
        for (const table of [old, young]) yield* engine.importFile([table], { path: file, format: "csv" })
        const stores = yield* Layer.build(MemoryStores.layer)
        const dropped = yield* Datasets.sweepOrphanTables.pipe(
          Effect.provideService(Datasets.Engines, { bySource: { upload: engine } }),
          Effect.provideContext(stores)
        )
        assert.deepStrictEqual(dropped, [old])
        assert.deepStrictEqual(yield* engine.listTables!("dataset_"), [young])
        // The same sweep on an engine no other host loads into drops both, as DuckDB's does.
        yield* engine.importFile([old], { path: file, format: "csv" })
        const alone = yield* Datasets.sweepOrphanTables.pipe(
          Effect.provideService(Datasets.Engines, { bySource: { upload: { ...engine, shared: false } } }),
          Effect.provideContext(stores)
        )
        assert.deepStrictEqual([...alone].sort(), [old, young].sort())
      }).pipe(Effect.scoped), { timeout: 60_000 })
  })
}
