/**
 * The analytics engine on embedded DuckDB (`@duckdb/node-api`): one
 * database file (or memory), a pool of connections so that queries run in
 * parallel and one can be interrupted alone. CSV and Parquet files are
 * written by DuckDB's own `COPY … TO`: CSV through a named pipe read as it
 * is written, Parquet to a temporary file (its writer ends the file with a
 * footer) streamed out when complete.
 *
 * Each query runs on a thread of Node's libuv pool for its whole length
 * (never on the event loop: a long query does not block it) and shares
 * DuckDB's `threads - 1` background workers with every other query running
 * (`threads` is the whole database's setting). So at most `connections` queries run at once, and
 * no more than libuv's pool allows (`UV_THREADPOOL_SIZE`, 4 by default,
 * shared with file I/O); the host sizes both from its engine concurrency,
 * and `EngineScheduler` (core) decides whose query runs.
 *
 * @since 0.1.0
 */
import { AnalyticsEngine, Csv, SqlCompiler, SqlDialect } from "@analytics/core"
import { type DuckDBConnection, DuckDBDecimalValue, DuckDBInstance, DuckDBTypeId, type DuckDBValueConverter, JSDuckDBValueConverter } from "@duckdb/node-api"
import { Effect, Layer, Pool, Stream } from "effect"
import { createReadStream } from "node:fs"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import * as NamedPipe from "./NamedPipe.ts"

type Row = AnalyticsEngine.Row

/**
 * DuckDB's values as JavaScript's, but a DECIMAL as its exact JSON value
 * (`AnalyticsEngine.exactNumber`) rather than the nearest double.
 */
const exactConverter: DuckDBValueConverter<unknown> = (value, type, converter) =>
  type.typeId === DuckDBTypeId.DECIMAL && value instanceof DuckDBDecimalValue
    ? AnalyticsEngine.exactNumber(value.toString())
    : JSDuckDBValueConverter(value, type, converter as DuckDBValueConverter<any>)

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

/**
 * `read_csv(…)` or `read_parquet(…)` of an import, CSV columns read as the
 * given DuckDB types (the others inferred). A file whose delimiter is given
 * was checked strictly (RFC 4180, decision 0013): DuckDB reads it with that
 * delimiter and `"` quotes, not a dialect its sniffer guesses (it took an
 * unterminated quote for text), and without its own strict mode, which
 * refuses a file mixing LF and CRLF line ends that the check accepts.
 */
const reader = (file: AnalyticsEngine.FileImport, columnTypes: Readonly<Record<string, string>> = {}) => {
  if (file.format === "parquet") return `read_parquet(${literal(file.path)})`
  const types = Object.entries({ ...columnTypes, ...Object.fromEntries(Object.entries(file.types ?? {}).map(([c, t]) => [c, duckTypes[t]!])) })
  const overrides = types.length === 0 ? "" : `, types = {${types.map(([c, t]) => `${literal(c)}: ${literal(t)}`).join(", ")}}`
  const dialect = file.delimiter === undefined ? "" : `, delim = ${literal(file.delimiter)}, quote = '"', escape = '"', strict_mode = false`
  return `read_csv(${literal(file.path)}, header = true, auto_detect = true${dialect}${overrides})`
}

/** DuckDB's messages that quote a file's contents (the line it could not read, a value). */
const quotesContents = /CSV Error on Line|Original Line|Could not convert|Conversion Error|Invalid unicode/i

/**
 * An import's failure, in words without the file's contents when DuckDB's
 * message quotes the line it could not read and the value (decision 0013):
 * its line number, the column and the type stay; the original is not kept,
 * even as the cause, so no log can write it. Other failures (a checkpoint,
 * an unreadable Parquet file) keep DuckDB's message.
 */
const importFailure = (cause: unknown): AnalyticsEngine.EngineError => {
  const message = cause instanceof Error ? cause.message : String(cause)
  if (!quotesContents.test(message)) return failure("import", cause)
  const line = /CSV Error on Line: (\d+)/.exec(message)?.[1]
  const column = /Error when converting column "((?:[^"]|"")*)"/.exec(message)?.[1]
  const type = /Could not convert string .* to '([A-Z0-9_(), ]+)'/.exec(message)?.[1]
  const kind = /^([A-Za-z ]+ Error):/.exec(message)?.[1]
  const what = column !== undefined
    ? `a value of column "${column}" is not ${type === undefined ? "of its type" : `a ${type}`}`
    : /Invalid unicode/i.test(message)
    ? "it is not UTF-8 text"
    : `DuckDB could not read it${kind === undefined ? "" : ` (${kind})`}`
  return new AnalyticsEngine.EngineError({ operation: "import", detail: `${line === undefined ? "The file" : `Line ${line} of the file`}: ${what}` })
}

/**
 * The decimals a CSV column of plain decimal numbers keeps exactly: at most
 * this many after the point, and at most 18 digits in all (a DECIMAL(18, s),
 * held in 64 bits), or it stays a DOUBLE (decision 0013, "Exact numbers").
 */
export const maxDecimalScale = 6
const maxDecimalWidth = 18

/**
 * The DuckDB types of a CSV file's columns: DuckDB's own inference, except
 * that a DOUBLE column whose every value is a plain decimal (`12.34`, no
 * exponent) of at most `maxDecimalScale` decimals becomes DECIMAL(18, s),
 * s its most decimals, so sums of amounts stay exact. DuckDB's sniffer
 * reads a sample; the decimals are counted over the whole file, one more
 * pass over the candidate columns only.
 */
const csvDecimals = async (connection: DuckDBConnection, file: AnalyticsEngine.FileImport): Promise<Record<string, string>> => {
  const sniffed = (await connection.runAndReadAll(`DESCRIBE SELECT * FROM ${reader(file)}`)).getRowObjectsJS()
  const candidates = sniffed
    .filter((row) => String(row["column_type"]) === "DOUBLE" && file.types?.[String(row["column_name"])] === undefined)
    .map((row) => String(row["column_name"]))
  if (candidates.length === 0) return {}
  const text = (c: string) => `trim(${quote(c)})`
  const stats = candidates.map((c, i) => [
    `count(*) FILTER (WHERE ${quote(c)} IS NOT NULL AND NOT regexp_full_match(${text(c)}, '[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)')) AS "other${i}"`,
    `coalesce(max(length(split_part(${text(c)}, '.', 2))), 0) AS "scale${i}"`,
    `coalesce(max(length(ltrim(regexp_replace(split_part(${text(c)}, '.', 1), '[+-]', ''), '0'))), 0) AS "whole${i}"`
  ].join(", "))
  const varchar = Object.fromEntries(candidates.map((c) => [c, "VARCHAR"]))
  const [row] = (await connection.runAndReadAll(`SELECT ${stats.join(", ")} FROM ${reader(file, varchar)}`)).getRowObjectsJS()
  const types: Record<string, string> = {}
  candidates.forEach((c, i) => {
    const other = Number(row![`other${i}`])
    const scale = Number(row![`scale${i}`])
    const whole = Number(row![`whole${i}`])
    if (other === 0 && scale <= maxDecimalScale && whole + scale <= maxDecimalWidth) types[c] = `DECIMAL(${maxDecimalWidth}, ${scale})`
  })
  return types
}

/**
 * The query's rows for a CSV file: text columns guarded against formula
 * injection in SQL as `Csv.field` guards them (a leading `'`), the query's
 * order kept (DuckDB keeps an ordered subquery's order through a projection).
 */
const guardedForCsv = (compiled: SqlCompiler.Compiled) => {
  if (!compiled.columns.some((c) => c.type === "string")) return compiled.sql
  // The first character's code point: an integer comparison, cheaper than a substring of every cell.
  const starts = Csv.formulaStarts.map((c) => c.codePointAt(0)).join(", ")
  const columns = compiled.columns.map((c) => {
    if (c.type !== "string") return `q.${quote(c.name)}`
    const text = `CAST(q.${quote(c.name)} AS VARCHAR)`
    return `CASE WHEN ascii(${text}) IN (${starts}) THEN '''' || ${text} ELSE ${text} END AS ${quote(c.name)}`
  })
  return `SELECT ${columns.join(", ")} FROM (${compiled.sql}) AS q`
}

/** `COPY`'s options for each format: CSV as `Csv` writes it (a header line, CRLF), Parquet compressed with zstd. */
const copyOptions = { csv: String.raw`(FORMAT csv, HEADER, NEW_LINE '\r\n')`, parquet: "(FORMAT parquet, COMPRESSION zstd)" } as const

const failure = (operation: string, cause: unknown, detail?: string) =>
  new AnalyticsEngine.EngineError({ operation, detail: detail ?? (cause instanceof Error ? cause.message : String(cause)), cause })

/** How the engine is set up. */
export interface Options {
  /** Connections kept open, so many queries run at once (default 8); beyond the engine scheduler's capacity they only idle. */
  readonly connections?: number | undefined
  /**
   * DuckDB's `memory_limit` (e.g. `"256MB"`; DuckDB's default is 80% of the
   * machine's memory). Sorts and groupings past it spill to `tempDirectory`:
   * how an export of 100M rows stays within bounded memory.
   */
  readonly memoryLimit?: string | undefined
  /** Where DuckDB spills (DuckDB's default: `<database file>.tmp`). */
  readonly tempDirectory?: string | undefined
  /**
   * DuckDB's threads (DuckDB's default: one per core): each query runs on
   * its own and shares `threads - 1` background workers with the others,
   * so with fewer threads than cores one query cannot take them all.
   */
  readonly threads?: number | undefined
}

/**
 * Writes what the WAL holds into the database file, compressed: an import
 * below DuckDB's automatic checkpoint (a 16 MB WAL) otherwise stays
 * uncompressed in memory, where a filter on a text column runs on every row
 * instead of once per distinct value (twice as slow on 100,000 rows), and is
 * replayed at every start. With other transactions running DuckDB skips it
 * without an error (the import then waits for the automatic one); a failure
 * is fatal to the database in DuckDB, so it fails the import.
 */
const checkpoint = (connection: DuckDBConnection): Promise<unknown> => connection.run("CHECKPOINT")

/** The engine over a DuckDB database: a file path, or `:memory:`. */
export const make = (path: string, options: Options = {}) =>
  Effect.gen(function*() {
    const instance = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          DuckDBInstance.create(path, {
            ...(options.memoryLimit === undefined ? {} : { memory_limit: options.memoryLimit }),
            ...(options.tempDirectory === undefined ? {} : { temp_directory: options.tempDirectory }),
            ...(options.threads === undefined ? {} : { threads: String(options.threads) })
          }),
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
          // An import's message holds the tenant's rows.
          catch: (cause) => operation === "import" ? importFailure(cause) : failure(operation, cause)
        }))
    const columnsOf = (connection: DuckDBConnection, table: ReadonlyArray<string>) =>
      connection.runAndReadAll(`DESCRIBE ${tableName(table)}`).then((reader) =>
        reader.getRowObjectsJS().map((row): AnalyticsEngine.TableColumn => ({
          name: String(row["column_name"]),
          engineType: String(row["column_type"]),
          type: AnalyticsEngine.suggestedType(String(row["column_type"]))
        }))
      )
    /** DuckDB's own writer to a temporary file of ours, streamed out once complete, then removed. */
    const copiedThroughFile = (sql: string, params: SqlCompiler.Compiled["params"], format: keyof typeof copyOptions) =>
      Stream.unwrap(Effect.gen(function*() {
        const file = Path.join(Os.tmpdir(), `analytics-export-${crypto.randomUUID()}.${format}`)
        yield* Effect.acquireRelease(
          withConnection("export", (connection) => connection.run(`COPY (${sql}) TO ${literal(file)} ${copyOptions[format]}`, [...params])),
          () => Effect.promise(() => Fs.rm(file, { force: true }))
        )
        // A file stream yields Buffers, which are Uint8Arrays.
        return Stream.fromAsyncIterable<Uint8Array, AnalyticsEngine.EngineError>(
          createReadStream(file),
          (cause) => failure("export", cause, `The ${format} file could not be read`)
        )
      }))
    /** DuckDB's own CSV writer into a named pipe read as it writes (a temporary file where there are no named pipes). */
    const csv = (compiled: SqlCompiler.Compiled) =>
      Stream.unwrap(Effect.gen(function*() {
        const sql = guardedForCsv(compiled)
        const pipe = yield* NamedPipe.open(Path.join(Os.tmpdir(), `analytics-export-${crypto.randomUUID()}.csv`))
        if (pipe === undefined) return copiedThroughFile(sql, compiled.params, "csv")
        const connection = yield* Pool.get(connections)
        const copied = connection.run(`COPY (${sql}) TO ${literal(pipe.path)} ${copyOptions.csv}`, [...compiled.params])
        copied.then(pipe.writerDone, pipe.writerDone)
        // However the stream ends, the statement ends before its connection returns to the pool:
        // interrupted at its next chunk, and never left waiting on a pipe no one reads.
        yield* Effect.addFinalizer(() =>
          Effect.promise(() => {
            connection.interrupt()
            return pipe.drainUntil(copied)
          })
        )
        return Stream.concat(
          pipe.bytes((cause) => failure("export", cause, "The CSV could not be read from DuckDB")),
          Stream.fromEffectDrain(Effect.tryPromise({ try: () => copied, catch: (cause) => failure("export", cause) }))
        )
      }))
    return AnalyticsEngine.AnalyticsEngine.of({
      dialect: SqlDialect.duckdb,
      run: (compiled) =>
        withConnection("query", async (connection) => {
          const reader = await connection.runAndReadAll(compiled.sql, [...compiled.params])
          const names = reader.columnNames()
          return reader.convertRows(exactConverter).map((values) => {
            const row: Record<string, Row[string]> = {}
            for (let i = 0; i < names.length; i++) row[names[i]!] = jsonValue(values[i])
            return row
          })
        }),
      importFile: (table, file) =>
        withConnection("import", async (connection) => {
          const decimals = file.format === "csv" ? await csvDecimals(connection, file) : {}
          // One statement: readers on other connections see the old table until it commits.
          await connection.run(`CREATE OR REPLACE TABLE ${tableName(table)} AS SELECT * FROM ${reader(file, decimals)}`)
          await checkpoint(connection)
          const count = await connection.runAndReadAll(`SELECT COUNT(*) FROM ${tableName(table)}`)
          return { columns: await columnsOf(connection, table), rowCount: Number(count.getRowsJS()[0]![0]) }
        }),
      parquet: (compiled) => copiedThroughFile(compiled.sql, compiled.params, "parquet"),
      csv,
      writeFile: (compiled, format, path) =>
        withConnection("export", (connection) =>
          connection.run(`COPY (${format === "csv" ? guardedForCsv(compiled) : compiled.sql}) TO ${literal(path)} ${copyOptions[format]}`, [...compiled.params])
        ).pipe(Effect.asVoid),
      describe: (table) => withConnection("describe", (connection) => columnsOf(connection, table)),
      drop: (table) => withConnection("drop", (connection) => connection.run(`DROP TABLE IF EXISTS ${tableName(table)}`).then(() => undefined)),
      listTables: (prefix) =>
        withConnection("list tables", async (connection) => {
          const reader = await connection.runAndReadAll(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = current_schema() AND starts_with(table_name, $1) ORDER BY table_name",
            [prefix]
          )
          return reader.getRowsJS().map((row) => String(row[0]))
        })
    })
  })

/** The engine as a layer, the database closed with it. */
export const layer = (path: string, options: Options = {}): Layer.Layer<AnalyticsEngine.AnalyticsEngine, AnalyticsEngine.EngineError> =>
  Layer.effect(AnalyticsEngine.AnalyticsEngine, make(path, options))
