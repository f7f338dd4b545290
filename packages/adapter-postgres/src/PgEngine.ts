/**
 * The analytics engine as PostgreSQL direct query: datasets are tables or
 * views of a PostgreSQL the operator points at, read in place (no import).
 * Interrupting a query cancels it on the server (`@effect/sql-pg` sends
 * the cancel request). CSV files are made here from the rows as the server
 * streams them (the client pauses reading while the file's reader waits),
 * since the client has no `COPY … TO STDOUT`.
 *
 * A query run with a timeout also carries it to the server as its
 * `statement_timeout` (`SET LOCAL`, in a transaction of its own), so it
 * ends there even when the cancel request is lost (a host that dies, a
 * network cut).
 *
 * The same engine also holds uploads (`makeUploads`, `layerUploads`): on the
 * PostgreSQL store, every host loads uploaded files into tables of a schema
 * of their own, `analytics_uploads`, one table per load as DuckDB has them,
 * so any number of hosts serve the same rows (decision 0013, "Uploads on the
 * PostgreSQL store").
 *
 * @since 0.1.0
 */
import { AnalyticsEngine, Csv, SqlCompiler, SqlDialect } from "@analytics/core"
import { PgClient } from "@effect/sql-pg"
import { Clock, Duration, Effect, Layer, type Redacted, Schedule, Stream } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient } from "effect/sql"
import * as PgImport from "./PgImport.ts"

type Row = AnalyticsEngine.Row

/**
 * A PostgreSQL value as JSON: numeric and bigint text as numbers while a
 * JSON number carries them exactly, else as their exact text
 * (`AnalyticsEngine.exactNumber`); times as UTC text.
 */
const jsonValue = (value: unknown, type: string | undefined): Row[string] => {
  if (value === null || value === undefined) return null
  if (value instanceof Date) return SqlCompiler.timeText(value)
  // A DATE is read as its text; a time is given as every time is.
  if (typeof value === "string" && type === "time" && /^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value} 00:00:00`
  if (typeof value === "string" && type === "number") {
    if (/^\s*[+-]?(\d+\.?\d*|\.\d+)\s*$/.test(value)) return AnalyticsEngine.exactNumber(value)
    const n = Number(value)
    return Number.isFinite(n) ? n : value
  }
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value
  return JSON.stringify(value)
}

const failure = (operation: string) => (cause: unknown) =>
  new AnalyticsEngine.EngineError({ operation, detail: cause instanceof Error ? cause.message : String(cause), cause })

/** The `code` of an error, or of the error it wraps (a SqlError wraps the server's). */
const codeOf = (error: unknown): string | undefined => {
  for (let e = error, depth = 0; typeof e === "object" && e !== null && depth < 4; e = (e as { readonly cause?: unknown }).cause, depth++) {
    const code = (e as { readonly code?: unknown }).code
    if (typeof code === "string") return code
  }
  return undefined
}

/**
 * An import's failure, in words without the file's contents when the CSV
 * reader's or the server's message quotes the values it could not read
 * (`invalid input syntax for type bigint: "…"`, a data exception, class 22;
 * decision 0013): the code and line stay; the original is not kept, even as
 * the cause, so no log can write it. Other failures keep their message.
 */
const importFailure = (cause: unknown): AnalyticsEngine.EngineError => {
  const code = codeOf(cause)
  const lines = (cause as { readonly lines?: unknown } | null)?.lines
  if (code !== undefined && /^(CSV_|INVALID_)/.test(code)) {
    const where = typeof lines === "number" ? `Line ${lines} of the file` : "The file"
    return new AnalyticsEngine.EngineError({ operation: "import", detail: `${where} cannot be read as CSV (${code})` })
  }
  if (code !== undefined && /^22[0-9A-Z]{3}$/.test(code)) {
    return new AnalyticsEngine.EngineError({ operation: "import", detail: `A value of the file does not fit its column's type (PostgreSQL ${code})` })
  }
  return failure("import")(cause)
}

/** The engine over the SqlClient in context (a PostgreSQL connection pool). */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const refused = (operation: string) =>
    Effect.fail(new AnalyticsEngine.EngineError({ operation, detail: "PostgreSQL direct query reads tables in place; it neither imports nor drops them" }))
  /** A row's values as JSON, by the compiled columns' types. */
  const converter = (compiled: SqlCompiler.Compiled) => {
    const types = new Map(compiled.columns.map((c) => [c.name, c.type]))
    return (row: Record<string, unknown>) => {
      const out: Record<string, Row[string]> = {}
      for (const key in row) out[key] = jsonValue(row[key], types.get(key))
      return out
    }
  }
  return AnalyticsEngine.AnalyticsEngine.of({
    dialect: SqlDialect.postgres,
    run: (compiled, options) => {
      const convert = converter(compiled)
      const query = sql.unsafe<Record<string, unknown>>(compiled.sql, [...compiled.params])
      const millis = options?.timeout === undefined ? Number.POSITIVE_INFINITY : Math.ceil(Duration.toMillis(options.timeout))
      // The server's own bound, for this statement only (`set_config(…, true)` is `SET LOCAL`).
      const bounded = Number.isFinite(millis) && millis > 0
        ? sql.withTransaction(Effect.andThen(sql`SELECT set_config('statement_timeout', ${`${millis}ms`}, true)`, query))
        : query
      return bounded.pipe(
        Effect.map((rows) => rows.map(convert)),
        Effect.mapError((cause) =>
          (cause as { readonly reason?: { readonly _tag?: string } }).reason?._tag === "StatementTimeoutError"
            ? new AnalyticsEngine.EngineError({ operation: "query", detail: `PostgreSQL stopped the query at its statement timeout (${millis} ms)`, cause })
            : failure("query")(cause)
        )
      )
    },
    csv: (compiled) =>
      Csv.stream(
        compiled.columns.map((c) => c.name),
        sql.unsafe<Record<string, unknown>>(compiled.sql, [...compiled.params]).stream.pipe(
          Stream.map(converter(compiled)),
          Stream.mapError(failure("export"))
        )
      ),
    describe: (table) => {
      const [schema, name] = table.length === 1 ? ["public", table[0]!] : [table[0]!, table[1]!]
      return sql<{ column_name: string; data_type: string }>`SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = ${schema} AND table_name = ${name} ORDER BY ordinal_position`.pipe(
        Effect.mapError(failure("describe")),
        Effect.flatMap((rows) =>
          rows.length === 0
            ? Effect.fail(new AnalyticsEngine.EngineError({ operation: "describe", detail: `No table or view ${table.join(".")}` }))
            : Effect.succeed(rows.map((r) => ({ name: r.column_name, engineType: r.data_type, type: AnalyticsEngine.suggestedType(r.data_type) })))
        )
      )
    },
    importFile: () => refused("import"),
    drop: () => refused("drop")
  })
})

/** The engine on the PostgreSQL at `url`, through a pool of its own. */
export const layer = (url: Redacted.Redacted<string>): Layer.Layer<AnalyticsEngine.AnalyticsEngine, AnalyticsEngine.EngineError> =>
  Layer.effect(
    AnalyticsEngine.AnalyticsEngine,
    Effect.gen(function*() {
      const client = yield* PgClient.make({ url }).pipe(Effect.mapError(failure("connect")))
      return yield* Effect.provideService(make, SqlClient.SqlClient, client)
    })
  ).pipe(
    // The pool's timers measure real time, even under a TestClock.
    Layer.provide(Layer.mergeAll(Reactivity.layer, Layer.succeed(Clock.Clock, Clock.Clock.defaultValue())))
  )

/** The schema uploaded files are loaded into, a table per load (`dataset_<id>_<load id>`). */
export const uploadSchema = "analytics_uploads"

/** A 128-bit hexadecimal id in 25 base-36 digits, and back. */
const base36 = (hex: string) => BigInt(`0x${hex}`).toString(36).padStart(25, "0")
const fromBase36 = (digits: string) => {
  let n = 0n
  for (const digit of digits) n = n * 36n + BigInt(Number.parseInt(digit, 36))
  return n.toString(16).padStart(32, "0")
}

/**
 * The name of an upload's table in PostgreSQL, whose identifiers have at
 * most 63 bytes: a load's `dataset_<32 hex>_<32 hex>` (73 characters) has
 * its two ids in base 36 (`dataset_<25>_<25>`, 59); other names are kept.
 * `uploadTableOf` turns it back.
 */
export const pgUploadTable = (name: string): string => {
  const match = /^dataset_([0-9a-f]{32})_([0-9a-f]{32})$/.exec(name)
  return match === null ? name : `dataset_${base36(match[1]!)}_${base36(match[2]!)}`
}

/** The upload's table name a PostgreSQL table's stands for (`pgUploadTable` undone). */
export const uploadTableOf = (name: string): string => {
  const match = /^dataset_([0-9a-z]{25})_([0-9a-z]{25})$/.exec(name)
  return match === null ? name : `dataset_${fromBase36(match[1]!)}_${fromBase36(match[2]!)}`
}

/** Rows sent in one INSERT of an import, at most (or about 8 MB of text, whichever comes first). */
const batchRows = 10_000
const batchChars = 8 * 1024 * 1024

/**
 * The engine holding uploaded files in `schema` of the PostgreSQL of the
 * SqlClient in context, which must have `schema` first on its
 * `search_path` (`layerUploads` opens such a pool): queries name an
 * upload's table alone, as they do on DuckDB. The schema is made if it does
 * not exist. Imports run in a transaction of their own (the table is made,
 * then filled in batches), so another session sees the whole table or
 * none, and an import that fails or is interrupted leaves nothing.
 */
export const makeUploads = (schema: string = uploadSchema) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const base = yield* make
    const q = SqlDialect.postgres.quote
    const nameOf = (table: ReadonlyArray<string>) => pgUploadTable(table[table.length - 1]!)
    const qualified = (table: ReadonlyArray<string>) => `${q(schema)}.${q(nameOf(table))}`
    // Made only when missing (CREATE SCHEMA asks for the CREATE privilege even when the schema exists, and an operator may make it
    // for a role without it); several hosts may start at once: one of two concurrent CREATE SCHEMA can fail, and the next try finds it made.
    yield* sql<{ found: number }>`SELECT 1 AS found FROM pg_namespace WHERE nspname = ${schema}`.pipe(
      Effect.flatMap((rows) => rows.length > 0 ? Effect.void : Effect.asVoid(sql.unsafe(`CREATE SCHEMA IF NOT EXISTS ${q(schema)}`))),
      Effect.retry({ times: 2, schedule: Schedule.spaced("100 millis") }),
      Effect.mapError(failure("connect"))
    )
    const describe = (table: ReadonlyArray<string>) =>
      sql<{ column_name: string; data_type: string }>`SELECT a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS data_type
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${schema} AND c.relname = ${nameOf(table)} AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`.pipe(
        Effect.mapError(failure("describe")),
        Effect.flatMap((rows) =>
          rows.length === 0
            ? Effect.fail(new AnalyticsEngine.EngineError({ operation: "describe", detail: `No table ${table.join(".")}` }))
            : Effect.succeed(rows.map((r): AnalyticsEngine.TableColumn => ({ name: r.column_name, engineType: r.data_type, type: AnalyticsEngine.suggestedType(r.data_type) })))
        )
      )
    const importFile = (table: ReadonlyArray<string>, file: AnalyticsEngine.FileImport) =>
      Effect.gen(function*() {
        const read = yield* Effect.tryPromise({
          try: async () => {
            if (file.format === "csv") {
              const { columns, delimiter } = await PgImport.csvColumns(file)
              return { columns, rows: PgImport.csvRows(file.path, delimiter) as AsyncGenerator<ReadonlyArray<unknown>> }
            }
            const parquet = await PgImport.parquetColumns(file.path)
            return { columns: parquet.columns, rows: PgImport.parquetRows(parquet) }
          },
          catch: importFailure
        })
        const { columns, rows } = read
        if (columns.length === 0) return yield* new AnalyticsEngine.EngineError({ operation: "import", detail: "The file has no columns" })
        const target = qualified(table)
        const insert = `INSERT INTO ${target} SELECT ${columns.map((c, i) => `CAST(u.c${i} AS ${c.type})`).join(", ")} FROM unnest(${
          columns.map((_, i) => `$${i + 1}::text[]`).join(", ")
        }) AS u(${columns.map((_, i) => `c${i}`).join(", ")})`
        let count = 0
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* sql.unsafe(`DROP TABLE IF EXISTS ${target}`)
          yield* sql.unsafe(`CREATE TABLE ${target} (${columns.map((c) => `${q(c.name)} ${c.type}`).join(", ")})`)
          let batch = columns.map((): Array<string | null> => [])
          let size = 0
          let chars = 0
          const flush = Effect.suspend(() => {
            if (size === 0) return Effect.void
            const values = batch
            batch = columns.map(() => [])
            size = 0
            chars = 0
            return Effect.asVoid(sql.unsafe(insert, values as unknown as Array<string>))
          })
          while (true) {
            const next = yield* Effect.tryPromise({ try: () => rows.next(), catch: importFailure })
            if (next.done === true) break
            const row = next.value
            for (let i = 0; i < columns.length; i++) {
              const text = columns[i]!.text(row[i])
              batch[i]!.push(text)
              chars += text?.length ?? 0
            }
            size++
            count++
            if (size >= batchRows || chars >= batchChars) yield* flush
          }
          yield* flush
        })).pipe(
          Effect.ensuring(Effect.promise(() => rows.return(undefined).then(() => undefined, () => undefined))),
          Effect.mapError((error) => error._tag === "EngineError" ? error : importFailure(error))
        )
        return { columns: yield* describe(table), rowCount: count }
      })
    return AnalyticsEngine.AnalyticsEngine.of({
      ...base,
      importFile,
      describe,
      drop: (table) => sql.unsafe(`DROP TABLE IF EXISTS ${qualified(table)}`).pipe(Effect.asVoid, Effect.mapError(failure("drop"))),
      listTables: (prefix) =>
        sql<{ tablename: string }>`SELECT tablename FROM pg_tables WHERE schemaname = ${schema}`.pipe(
          Effect.map((rows) => rows.map((r) => uploadTableOf(r.tablename)).filter((name) => name.startsWith(prefix)).sort()),
          Effect.mapError(failure("list tables"))
        ),
      shared: true,
      sqlName: (table) => [nameOf(table)]
    })
  })

/** How the uploads engine's pool is set up. */
export interface UploadOptions {
  /** Connections of its pool (default 10): one per engine turn of the host, and a few for describing and dropping tables. */
  readonly connections?: number | undefined
  /** The schema uploads are loaded into (default `analytics_uploads`). */
  readonly schema?: string | undefined
}

/**
 * The engine holding uploaded files in the PostgreSQL at `url` (the
 * store's own, on the PostgreSQL store), through a pool of its own whose
 * sessions read `analytics_uploads` first, speak UTC, and end a query
 * within a second of losing their client (PostgreSQL 14 or later).
 */
export const layerUploads = (url: Redacted.Redacted<string>, options: UploadOptions = {}): Layer.Layer<AnalyticsEngine.AnalyticsEngine, AnalyticsEngine.EngineError> => {
  const schema = options.schema ?? uploadSchema
  return Layer.effect(
    AnalyticsEngine.AnalyticsEngine,
    Effect.gen(function*() {
      const client = yield* PgClient.make({
        url,
        maxConnections: options.connections ?? 10,
        startupParameters: {
          search_path: SqlDialect.postgres.quote(schema),
          timezone: "UTC",
          // A cancel request sent before the server read the query is ignored, and the client then
          // drops the connection; without this check the server would run that query to its end,
          // holding its table (docs/operations.md, "PostgreSQL").
          client_connection_check_interval: "1000"
        }
      }).pipe(Effect.mapError(failure("connect")))
      return yield* Effect.provideService(makeUploads(schema), SqlClient.SqlClient, client)
    })
  ).pipe(Layer.provide(Layer.mergeAll(Reactivity.layer, Layer.succeed(Clock.Clock, Clock.Clock.defaultValue()))))
}
