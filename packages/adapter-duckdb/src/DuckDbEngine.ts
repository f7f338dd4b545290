/**
 * The analytics engine on embedded DuckDB (`@duckdb/node-api`): one
 * database file (or memory), a pool of connections so that queries run in
 * parallel and one can be interrupted alone.
 *
 * @since 0.1.0
 */
import { AnalyticsEngine, SqlCompiler, SqlDialect } from "@analytics/core"
import { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api"
import { Effect, Layer, Pool, Stream } from "effect"
import { createReadStream } from "node:fs"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"

type Row = AnalyticsEngine.Row

/** A DuckDB value as JSON: big integers as numbers while exact, times as UTC text. */
const jsonValue = (value: unknown): Row[string] => {
  if (value === null || value === undefined) return null
  if (typeof value === "bigint") return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString()
  if (value instanceof Date) return SqlCompiler.timeText(value)
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value
  return String(value)
}

const quote = SqlDialect.duckdb.quote
const tableName = (table: ReadonlyArray<string>) => table.map(quote).join(".")
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`

const duckTypes: Record<string, string> = { string: "VARCHAR", number: "DOUBLE", boolean: "BOOLEAN", time: "TIMESTAMP" }

/** `read_csv(…)` or `read_parquet(…)` of an import. */
const reader = (file: AnalyticsEngine.FileImport) => {
  if (file.format === "parquet") return `read_parquet(${literal(file.path)})`
  const types = Object.entries(file.types ?? {})
  const overrides = types.length === 0 ? "" : `, types = {${types.map(([c, t]) => `${literal(c)}: ${literal(duckTypes[t]!)}`).join(", ")}}`
  return `read_csv(${literal(file.path)}, header = true, auto_detect = true${overrides})`
}

/** How the engine is set up. */
export interface Options {
  /** Connections kept open, so many queries run at once (default 8). */
  readonly connections?: number | undefined
}

/** The engine over a DuckDB database: a file path, or `:memory:`. */
export const make = (path: string, options: Options = {}) =>
  Effect.gen(function*() {
    const instance = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => DuckDBInstance.create(path),
        catch: (cause) => new AnalyticsEngine.EngineError({ operation: "open", detail: `DuckDB could not open ${path}`, cause })
      }),
      (db) => Effect.sync(() => db.closeSync())
    )
    // Connections are reused (opening one costs about a millisecond); each runs one query at a time.
    const connections = yield* Pool.make({
      acquire: Effect.acquireRelease(
        Effect.tryPromise({
          try: () => instance.connect(),
          catch: (cause) => new AnalyticsEngine.EngineError({ operation: "connect", detail: "No DuckDB connection", cause })
        }),
        (connection) => Effect.sync(() => connection.closeSync())
      ),
      size: options.connections ?? 8
    })
    /** Runs `f` on a connection of the pool, interrupted in DuckDB when the effect is. */
    const withConnection = <A>(operation: string, f: (connection: DuckDBConnection) => Promise<A>) =>
      Pool.use(connections, (connection) =>
        Effect.tryPromise({
          try: (signal) => {
            signal.addEventListener("abort", () => connection.interrupt(), { once: true })
            return f(connection)
          },
          catch: (cause) => new AnalyticsEngine.EngineError({ operation, detail: cause instanceof Error ? cause.message : String(cause), cause })
        }))
    const columnsOf = (connection: DuckDBConnection, table: ReadonlyArray<string>) =>
      connection.runAndReadAll(`DESCRIBE ${tableName(table)}`).then((reader) =>
        reader.getRowObjectsJS().map((row): AnalyticsEngine.TableColumn => ({
          name: String(row["column_name"]),
          engineType: String(row["column_type"]),
          type: AnalyticsEngine.suggestedType(String(row["column_type"]))
        }))
      )
    return AnalyticsEngine.AnalyticsEngine.of({
      dialect: SqlDialect.duckdb,
      run: (compiled) =>
        withConnection("query", async (connection) => {
          const reader = await connection.runAndReadAll(compiled.sql, [...compiled.params])
          const names = reader.columnNames()
          return reader.getRowsJS().map((values) => {
            const row: Record<string, Row[string]> = {}
            for (let i = 0; i < names.length; i++) row[names[i]!] = jsonValue(values[i])
            return row
          })
        }),
      importFile: (table, file) =>
        withConnection("import", async (connection) => {
          // One statement: readers on other connections see the old table until it commits.
          await connection.run(`CREATE OR REPLACE TABLE ${tableName(table)} AS SELECT * FROM ${reader(file)}`)
          const count = await connection.runAndReadAll(`SELECT COUNT(*) FROM ${tableName(table)}`)
          return { columns: await columnsOf(connection, table), rowCount: Number(count.getRowsJS()[0]![0]) }
        }),
      parquet: (compiled) =>
        Stream.unwrap(Effect.gen(function*() {
          // DuckDB's own writer to a file of ours (zstd, row groups as it sees fit), streamed out, then removed.
          const path = Path.join(Os.tmpdir(), `analytics-export-${crypto.randomUUID()}.parquet`)
          yield* Effect.acquireRelease(
            withConnection("export", (connection) =>
              connection.run(`COPY (${compiled.sql}) TO ${literal(path)} (FORMAT parquet, COMPRESSION zstd)`, [...compiled.params])),
            () => Effect.promise(() => Fs.rm(path, { force: true }))
          )
          // A file stream yields Buffers, which are Uint8Arrays.
          return Stream.fromAsyncIterable<Uint8Array, AnalyticsEngine.EngineError>(
            createReadStream(path),
            (cause) => new AnalyticsEngine.EngineError({ operation: "export", detail: "The Parquet file could not be read", cause })
          )
        })),
      describe: (table) => withConnection("describe", (connection) => columnsOf(connection, table)),
      drop: (table) => withConnection("drop", (connection) => connection.run(`DROP TABLE IF EXISTS ${tableName(table)}`).then(() => undefined))
    })
  })

/** The engine as a layer, the database closed with it. */
export const layer = (path: string, options: Options = {}): Layer.Layer<AnalyticsEngine.AnalyticsEngine, AnalyticsEngine.EngineError> =>
  Layer.effect(AnalyticsEngine.AnalyticsEngine, make(path, options))
