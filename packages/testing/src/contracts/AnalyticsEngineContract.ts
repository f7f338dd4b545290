/**
 * The analytics engine contract: one suite every `AnalyticsEngine` must pass
 * unchanged (embedded DuckDB, PostgreSQL's uploads). A CSV file is imported
 * with its types inferred (or overridden) and its decimals exact; a re-import
 * replaces the rows whole and a failed one leaves the old; `describe`,
 * `drop` and `listTables` keep to the port; semantic queries compiled by
 * `SqlCompiler` for the engine's dialect answer as the rows say; an
 * interrupted query leaves the engine free; `csv` streams RFC 4180 with CRLF
 * and formulas guarded; `writeFile` writes what `csv` streams, and a Parquet
 * file it wrote imports back. Optional capabilities the engine lacks are
 * skipped, the test's name saying so.
 *
 * @since 0.1.0
 */
import { AnalyticsEngine, BlobStore, SemanticModel, SemanticQuery, SqlCompiler } from "@analytics/core"
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Exit, type Layer } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readCsv } from "../Csv.ts"

/** The optional parts of the port the engine has; the contract checks the engine has exactly these. */
export interface EngineCapabilities {
  readonly csv: boolean
  readonly writeFile: boolean
  readonly listTables: boolean
}

type Engine = AnalyticsEngine.AnalyticsEngine["Service"]

const model = SemanticModel.check({
  dimensions: [
    { name: "region", type: "string" },
    { name: "code", type: "string" },
    { name: "ordered_at", type: "time" }
  ],
  measures: [
    { name: "orders", aggregation: "count" },
    { name: "revenue", aggregation: "sum", column: "amount" }
  ]
}) as SemanticModel.CheckedModel

const regions = ["EU", "US", "APAC"]
/** 1,500 rows: region, code (digits that must stay text), ordered_at (hourly), amount (two decimals). */
const rows = Array.from({ length: 1_500 }, (_, i) => ({
  region: regions[i % 3]!,
  code: String(i % 10).padStart(3, "0"),
  ordered_at: SqlCompiler.timeText(new Date(Date.UTC(2024, 0, 1) + i * 3_600_000)),
  cents: BigInt((i * 7919) % 100_000)
}))
const decimal = (cents: bigint) => `${cents / 100n}.${String(cents % 100n).padStart(2, "0")}`

/** Labels with every start a spreadsheet runs as a formula, and quotes, commas and line breaks inside. */
const labels = ["=1+2", "+x", "-y", "@z", "say \"hi\", ok", "two\nlines", "plain"]
const quoted = (text: string) => /[",\n]/.test(text) ? `"${text.replaceAll("\"", "\"\"")}"` : text
const guarded = (text: string) => /^[=+\-@\t\r]/.test(text) ? `'${text}` : text

const itemsModel = SemanticModel.check({
  dimensions: [{ name: "id", type: "number" }, { name: "label", type: "string" }],
  measures: [{ name: "amount", aggregation: "sum", column: "amount" }]
}) as SemanticModel.CheckedModel

/** A fresh name, so tests on one shared engine never meet. */
const fresh = (name: string) => `${name}_${Math.random().toString(36).slice(2, 10)}`

/** A directory removed when the scope closes. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "engine-contract-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const salesCsv = (dir: string, name: string, data: ReadonlyArray<typeof rows[number]>) => {
  const path = join(dir, name)
  writeFileSync(path, ["region,code,ordered_at,amount", ...data.map((r) => `${r.region},${r.code},${r.ordered_at},${decimal(r.cents)}`)].join("\n"))
  return path
}

const itemsCsv = (dir: string, n: number) => {
  const path = join(dir, "items.csv")
  const lines = ["id,label,amount"]
  for (let i = 0; i < n; i++) lines.push(`${i},${quoted(labels[i % labels.length]!)},${decimal(BigInt(i * 25))}`)
  writeFileSync(path, lines.join("\n"))
  return path
}

const compile = (engine: Engine, checked: SemanticModel.CheckedModel, table: string, q: SemanticQuery.Query) => {
  const plan = SemanticQuery.plan(checked, q, { roles: [], attributes: {} }, new Date("2024-06-01T00:00:00Z"), { everyRow: q.limit === undefined })
  assert.notInstanceOf(plan, SemanticQuery.QueryInvalid)
  return SqlCompiler.compile(plan as SemanticQuery.Plan, { table: engine.sqlName?.([table]) ?? [table] }, engine.dialect)
}

const countOf = (engine: Engine, table: string) =>
  Effect.map(engine.run(compile(engine, model, table, { measures: ["orders"] })), (result) => Number(result[0]?.orders))

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

const skipped = (present: boolean, title: string, what: string) => present ? title : `${title} (skipped: the engine has no ${what})`

/** Registers the contract suite for one analytics engine, whose optional capabilities are `capabilities`. */
export const analyticsEngineContract = <E>(name: string, engineLayer: Layer.Layer<AnalyticsEngine.AnalyticsEngine, E>, capabilities: EngineCapabilities): void => {
  describe(`analytics engine contract: ${name}`, () => {
    layer(engineLayer, { timeout: "120 seconds", excludeTestServices: true })((it) => {
      /** A case the engine runs, or skips (its name saying so) when it lacks the capability. */
      const when = (present: boolean) => present ? it.effect : it.effect.skip
      it.effect("has exactly the optional capabilities it declares", () =>
        Effect.gen(function*() {
          const engine = yield* AnalyticsEngine.AnalyticsEngine
          assert.strictEqual(engine.csv !== undefined, capabilities.csv, "csv")
          assert.strictEqual(engine.writeFile !== undefined, capabilities.writeFile, "writeFile")
          assert.strictEqual(engine.listTables !== undefined, capabilities.listTables, "listTables")
        }))

      it.effect("imports a CSV file: types inferred or overridden, every row, decimals exact; describe gives the same columns", () =>
        Effect.scoped(Effect.gen(function*() {
          const engine = yield* AnalyticsEngine.AnalyticsEngine
          const dir = yield* tempDir
          const table = fresh("sales")
          const path = salesCsv(dir, "sales.csv", rows)
          const inferred = yield* engine.importFile([table], { path, format: "csv" })
          assert.strictEqual(inferred.rowCount, rows.length)
          // (Digits with leading zeros are left out: DuckDB infers text, PostgreSQL's uploads a number.)
          assert.deepStrictEqual(inferred.columns.filter((c) => c.name !== "code").map((c) => [c.name, c.type]), [["region", "string"], ["ordered_at", "time"], ["amount", "number"]])
          // A type asked for wins over the inferred one.
          const imported = yield* engine.importFile([table], { path, format: "csv", types: { code: "string", amount: "string" } })
          assert.strictEqual(imported.rowCount, rows.length)
          assert.deepStrictEqual(imported.columns.map((c) => [c.name, c.type]), [["region", "string"], ["code", "string"], ["ordered_at", "time"], ["amount", "string"]])
          assert.deepStrictEqual(yield* engine.describe([table]), imported.columns)
          yield* engine.importFile([table], { path, format: "csv", types: { code: "string" } })
          const codes = yield* engine.run(compile(engine, model, table, { dimensions: ["code"], order: [{ member: "code" }], limit: 3 }))
          assert.deepStrictEqual(codes, [{ code: "000" }, { code: "001" }, { code: "002" }])
          // The sum of every amount, to the cent.
          const total = rows.reduce((sum, r) => sum + r.cents, 0n)
          assert.deepStrictEqual(yield* engine.run(compile(engine, model, table, { measures: ["revenue"] })), [{ revenue: AnalyticsEngine.exactNumber(decimal(total)) }])
          yield* engine.drop([table])
        })))

      it.effect("runs compiled semantic queries as the rows say: group by, filters with bound values, time truncation, order, limit", () =>
        Effect.scoped(Effect.gen(function*() {
          const engine = yield* AnalyticsEngine.AnalyticsEngine
          const dir = yield* tempDir
          const table = fresh("sales")
          yield* engine.importFile([table], { path: salesCsv(dir, "sales.csv", rows), format: "csv", types: { code: "string" } })
          const query: SemanticQuery.Query = {
            measures: ["revenue", "orders"],
            dimensions: ["region"],
            time_dimensions: [{ dimension: "ordered_at", granularity: "month", date_range: ["2024-01-01", "2024-02-29"] }],
            filters: [{ member: "code", operator: "starts_with", values: ["00"] }, { member: "region", operator: "equals", values: ["EU", "US"] }]
          }
          const compiled = compile(engine, model, table, query)
          assert.isAbove(compiled.params.length, 0, "the filters' values are bound")
          assert.notInclude(compiled.sql, "'00")
          const expected = new Map<string, { revenue: bigint; orders: number }>()
          for (const r of rows) {
            if ((r.region !== "EU" && r.region !== "US") || !r.code.startsWith("00") || r.ordered_at >= "2024-03-01") continue
            const key = `${r.region}|${r.ordered_at.slice(0, 7)}-01 00:00:00`
            const e = expected.get(key) ?? { revenue: 0n, orders: 0 }
            expected.set(key, { revenue: e.revenue + r.cents, orders: e.orders + 1 })
          }
          const result = yield* engine.run(compiled)
          assert.isAbove(expected.size, 2)
          assert.deepStrictEqual(
            [...result].sort((a, b) => `${a.region}|${a.ordered_at__month}`.localeCompare(`${b.region}|${b.ordered_at__month}`)),
            [...expected].sort(([a], [b]) => a.localeCompare(b)).map(([key, e]) => ({
              region: key.split("|")[0]!,
              ordered_at__month: key.split("|")[1]!,
              revenue: AnalyticsEngine.exactNumber(decimal(e.revenue)),
              orders: e.orders
            }))
          )
          // Ordered by the time dimension first (the default order).
          const months = result.map((r) => r.ordered_at__month as string)
          assert.deepStrictEqual(months, [...months].sort())
          // An order named, and a limit.
          const top = yield* engine.run(compile(engine, model, table, { ...query, order: [{ member: "revenue", direction: "desc" }], limit: 2 }))
          const byRevenue = [...expected.values()].map((e) => e.revenue).sort((a, b) => a > b ? -1 : a < b ? 1 : 0)
          assert.notStrictEqual(byRevenue[1], byRevenue[2], "no tie at the limit")
          assert.deepStrictEqual(top.map((r) => r.revenue), byRevenue.slice(0, 2).map((c) => AnalyticsEngine.exactNumber(decimal(c))))
          yield* engine.drop([table])
        })))

      it.effect("a re-import replaces the rows whole; a file that cannot be read fails with EngineError and leaves the old rows", () =>
        Effect.scoped(Effect.gen(function*() {
          const engine = yield* AnalyticsEngine.AnalyticsEngine
          const dir = yield* tempDir
          const table = fresh("sales")
          yield* engine.importFile([table], { path: salesCsv(dir, "a.csv", rows), format: "csv" })
          assert.strictEqual(yield* countOf(engine, table), rows.length)
          const again = yield* engine.importFile([table], { path: salesCsv(dir, "b.csv", rows.slice(0, 30)), format: "csv" })
          assert.strictEqual(again.rowCount, 30)
          assert.strictEqual(yield* countOf(engine, table), 30)
          const missing = yield* Effect.flip(engine.importFile([table], { path: join(dir, "missing.csv"), format: "csv" }))
          assert.strictEqual(missing._tag, "EngineError")
          // A CSV file read as Parquet.
          const notParquet = yield* Effect.flip(engine.importFile([table], { path: join(dir, "a.csv"), format: "parquet" }))
          assert.strictEqual(notParquet._tag, "EngineError")
          assert.strictEqual(yield* countOf(engine, table), 30)
          assert.deepStrictEqual((yield* engine.describe([table])).map((c) => c.name), ["region", "code", "ordered_at", "amount"])
          yield* engine.drop([table])
        })))

      it.effect("drop forgets a table (describe and queries then fail with EngineError) and may be repeated", () =>
        Effect.scoped(Effect.gen(function*() {
          const engine = yield* AnalyticsEngine.AnalyticsEngine
          const dir = yield* tempDir
          const table = fresh("sales")
          yield* engine.importFile([table], { path: salesCsv(dir, "few.csv", rows.slice(0, 3)), format: "csv" })
          yield* engine.drop([table])
          assert.strictEqual((yield* Effect.flip(engine.describe([table])))._tag, "EngineError")
          assert.strictEqual((yield* Effect.flip(countOf(engine, table)))._tag, "EngineError")
          yield* engine.drop([table])
          assert.strictEqual((yield* Effect.flip(engine.describe([fresh("never")])))._tag, "EngineError")
        })))

      when(capabilities.listTables)(skipped(capabilities.listTables, "lists the tables whose names start with a prefix, sorted, `_` in the prefix taken as text", "listTables"), () =>
        Effect.scoped(Effect.gen(function*() {
          const engine = yield* AnalyticsEngine.AnalyticsEngine
          const dir = yield* tempDir
          const prefix = fresh("lt")
          const file = { path: salesCsv(dir, "few.csv", rows.slice(0, 3)), format: "csv" as const }
          for (const t of [`${prefix}_b`, `${prefix}_a`, `${prefix}s`, `${prefix}xa`]) yield* engine.importFile([t], file)
          assert.deepStrictEqual(yield* engine.listTables!(`${prefix}_`), [`${prefix}_a`, `${prefix}_b`])
          assert.deepStrictEqual(yield* engine.listTables!(prefix), [`${prefix}_a`, `${prefix}_b`, `${prefix}s`, `${prefix}xa`])
          yield* engine.drop([`${prefix}_a`])
          assert.deepStrictEqual(yield* engine.listTables!(`${prefix}_`), [`${prefix}_b`])
          for (const t of [`${prefix}_b`, `${prefix}s`, `${prefix}xa`]) yield* engine.drop([t])
          assert.deepStrictEqual(yield* engine.listTables!(prefix), [])
        })))

      it.effect("interrupting a running query ends it, and the engine answers the next one", () =>
        Effect.scoped(Effect.gen(function*() {
          const engine = yield* AnalyticsEngine.AnalyticsEngine
          const dir = yield* tempDir
          const table = fresh("sales")
          yield* engine.importFile([table], { path: salesCsv(dir, "sales.csv", rows), format: "csv" })
          const name = (engine.sqlName?.([table]) ?? [table]).map((part) => `"${part}"`).join(".")
          // 1,500^4 rows: hours of work, unless cancelled.
          const endless = {
            sql: `SELECT COUNT(*) AS n FROM ${name} a, ${name} b, ${name} c, ${name} d WHERE a.amount + b.amount + c.amount + d.amount < 0`,
            params: [],
            bound: [],
            columns: []
          }
          const started = Date.now()
          const timedOut = yield* Effect.exit(Effect.timeout(engine.run(endless), Duration.millis(300)))
          assert.isTrue(Exit.isFailure(timedOut))
          assert.isBelow(Date.now() - started, 10_000, "the interruption waited for the query")
          assert.strictEqual(yield* countOf(engine, table), rows.length)
          yield* engine.drop([table])
        })))

      when(capabilities.csv)(skipped(capabilities.csv, "streams a CSV: RFC 4180, CRLF, a header of the compiled columns, formulas guarded, every row in order, a named limit kept", "csv stream"), () =>
        Effect.scoped(Effect.gen(function*() {
          const engine = yield* AnalyticsEngine.AnalyticsEngine
          const dir = yield* tempDir
          const table = fresh("items")
          const n = 5_000
          yield* engine.importFile([table], { path: itemsCsv(dir, n), format: "csv" })
          const all = compile(engine, itemsModel, table, { dimensions: ["id", "label"], measures: ["amount"], order: [{ member: "id" }] })
          const file = text(yield* BlobStore.collect(engine.csv!(all)))
          assert.isTrue(file.startsWith("id,label,amount\r\n"))
          const records = readCsv(file)
          assert.deepStrictEqual(records[0], ["id", "label", "amount"])
          assert.strictEqual(records.length, n + 1)
          for (let i = 0; i < n; i++) {
            const [id, label, amount] = records[i + 1]!
            assert.strictEqual(id, String(i))
            assert.strictEqual(label, guarded(labels[i % labels.length]!))
            assert.strictEqual(Number(amount), i / 4)
          }
          const limited = readCsv(text(yield* BlobStore.collect(engine.csv!(compile(engine, itemsModel, table, { dimensions: ["id"], order: [{ member: "id" }], limit: 3 })))))
          assert.deepStrictEqual(limited, [["id"], ["0"], ["1"], ["2"]])
          const none = compile(engine, itemsModel, table, { dimensions: ["id", "label"], filters: [{ member: "id", operator: "lt", values: [0] }] })
          assert.deepStrictEqual(readCsv(text(yield* BlobStore.collect(engine.csv!(none)))), [["id", "label"]])
          yield* engine.drop([table])
        })))

      when(capabilities.writeFile)(skipped(capabilities.writeFile, "writeFile writes the CSV file csv streams, and a Parquet file that imports back with the same rows", "writeFile"), () =>
        Effect.scoped(Effect.gen(function*() {
          const engine = yield* AnalyticsEngine.AnalyticsEngine
          const dir = yield* tempDir
          const table = fresh("items")
          yield* engine.importFile([table], { path: itemsCsv(dir, 500), format: "csv" })
          const all = compile(engine, itemsModel, table, { dimensions: ["id", "label"], measures: ["amount"], order: [{ member: "id" }] })
          const csvPath = join(dir, "out.csv")
          yield* engine.writeFile!(all, "csv", csvPath)
          const written = readFileSync(csvPath, "utf8")
          const records = readCsv(written)
          assert.strictEqual(records.length, 501)
          assert.deepStrictEqual(records[6], ["5", guarded(labels[5]!), String(5 / 4)])
          if (capabilities.csv) assert.strictEqual(written, text(yield* BlobStore.collect(engine.csv!(all))))
          const parquetPath = join(dir, "out.parquet")
          yield* engine.writeFile!(all, "parquet", parquetPath)
          const back = fresh("back")
          const imported = yield* engine.importFile([back], { path: parquetPath, format: "parquet" })
          assert.strictEqual(imported.rowCount, 500)
          assert.deepStrictEqual(imported.columns.map((c) => [c.name, c.type]), [["id", "number"], ["label", "string"], ["amount", "number"]])
          const again = compile(engine, itemsModel, back, { dimensions: ["id", "label"], measures: ["amount"], order: [{ member: "id" }] })
          assert.deepStrictEqual(yield* engine.run(again), yield* engine.run(all))
          yield* engine.drop([table])
          yield* engine.drop([back])
        })))

      it.effect("a query of a table that does not exist, or a statement the engine refuses, fails with EngineError", () =>
        Effect.gen(function*() {
          const engine = yield* AnalyticsEngine.AnalyticsEngine
          const missing = yield* Effect.flip(countOf(engine, fresh("nothing")))
          assert.strictEqual(missing._tag, "EngineError")
          assert.strictEqual((yield* Effect.flip(engine.run({ sql: "SELECT nope FROM", params: [], bound: [], columns: [] })))._tag, "EngineError")
          if (capabilities.csv) {
            const refused = yield* Effect.flip(BlobStore.collect(engine.csv!({ ...compile(engine, model, fresh("nothing"), { measures: ["orders"] }) })))
            assert.strictEqual(refused._tag, "EngineError")
          }
        }))
    })
  })
}
