/**
 * Port: the analytics engine that holds datasets' rows and runs compiled
 * semantic queries. Two real engines implement it: embedded DuckDB (the
 * default) and PostgreSQL direct query. Queries reach it only compiled
 * (`SqlCompiler`) for its dialect, values bound.
 *
 * @since 0.1.0
 */
import { Context, type Duration, type Effect, type Stream } from "effect"
import { TaggedFailure } from "../platform/Errors.ts"
import type { DimensionType } from "./SemanticModel.ts"
import type { Compiled } from "./SqlCompiler.ts"
import type { Dialect } from "./SqlDialect.ts"

/**
 * A result row: column name to a JSON value (times as `YYYY-MM-DD HH:MM:SS[.sss]`
 * UTC text; big integers and decimals a JSON number cannot carry exactly as
 * their exact text, see `exactNumber`).
 */
export type Row = Readonly<Record<string, string | number | boolean | null>>

/** A column of a table as the engine has it, and the dimension type it suggests. */
export interface TableColumn {
  readonly name: string
  readonly engineType: string
  readonly type: DimensionType
}

/** What file a table is loaded from. */
export interface FileImport {
  readonly path: string
  readonly format: "csv" | "parquet"
  /** Columns read as a given type instead of the inferred one. */
  readonly types?: Readonly<Record<string, DimensionType>> | undefined
  /** The file's size, for the audit log's `dataset.data_uploaded` (engines ignore it). */
  readonly bytes?: number | undefined
  /**
   * A CSV file's delimiter, as its strict check read it (`Csv.delimiterOf`);
   * the engine finds it the same way when absent. Quotes are always `"`,
   * doubled inside a quoted field (RFC 4180).
   */
  readonly delimiter?: string | undefined
}

/** What an import loaded. */
export interface Imported {
  readonly columns: ReadonlyArray<TableColumn>
  readonly rowCount: number
}

/** How a query is run. */
export interface RunOptions {
  /** The query's timeout: the engine may stop it past this on its own. */
  readonly timeout?: Duration.Input | undefined
}

/** The engine failed (a query it refused, a file it could not read, a lost connection). */
export class EngineError extends TaggedFailure("EngineError")<{
  readonly operation: string
  readonly detail: string
  readonly cause?: unknown
}> {
  readonly code = "service/unavailable" as const
  /** The sentence its problem says (the engine's own detail may name files or hosts: it stays in the log). */
  get problemDetail(): string {
    return "The analytics engine failed; retry later"
  }
}

/** The analytics engine. */
export class AnalyticsEngine extends Context.Service<AnalyticsEngine, {
  /** The dialect queries are compiled to for this engine. */
  readonly dialect: Dialect
  /**
   * Runs a compiled query; interrupting the effect cancels the query in the
   * engine. `timeout`, the query's own, is also given to an engine that
   * can bound a statement itself (PostgreSQL's `statement_timeout`), so a
   * query whose cancel never arrives still ends.
   */
  readonly run: (compiled: Compiled, options?: RunOptions) => Effect.Effect<ReadonlyArray<Row>, EngineError>
  /**
   * The query's rows as a compressed Parquet file, written by the engine
   * itself and streamed (any row count passes in bounded memory); absent
   * when the engine has no writer of its own.
   */
  readonly parquet?: ((compiled: Compiled) => Stream.Stream<Uint8Array, EngineError>) | undefined
  /**
   * The query's rows as a CSV file as `Csv` writes it (RFC 4180, CRLF, a
   * header line of the compiled columns' names, text cells that start like a
   * formula prefixed with `'`), streamed as the engine produces them (any
   * row count passes in bounded memory); absent when the engine cannot
   * stream, and then exports read a bounded result instead.
   */
  readonly csv?: ((compiled: Compiled) => Stream.Stream<Uint8Array, EngineError>) | undefined
  /**
   * Writes the query's rows to the file at `path` with the engine's own
   * writer, as `csv` and `parquet` would stream them: for result stores on
   * a local disk, where the bytes then never pass through this process.
   * Absent when the engine has no such writer.
   */
  readonly writeFile?: ((compiled: Compiled, format: "csv" | "parquet", path: string) => Effect.Effect<void, EngineError>) | undefined
  /**
   * Replaces a table's rows with a file's, atomically: readers see the old
   * rows until the new ones are complete.
   */
  readonly importFile: (table: ReadonlyArray<string>, file: FileImport) => Effect.Effect<Imported, EngineError>
  /** The table's columns; an EngineError when it does not exist. */
  readonly describe: (table: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<TableColumn>, EngineError>
  /** Drops a table if it exists. */
  readonly drop: (table: ReadonlyArray<string>) => Effect.Effect<void, EngineError>
  /**
   * The names of the tables of the engine's default schema that start with
   * `prefix`; absent on an engine that holds no tables of its own (the
   * operator's PostgreSQL, read in place).
   */
  readonly listTables?: ((prefix: string) => Effect.Effect<ReadonlyArray<string>, EngineError>) | undefined
  /**
   * Other processes load into this engine's tables too (uploads in a
   * PostgreSQL every host shares), so a table no record names may be a load
   * in flight elsewhere: the orphan sweep leaves young loads' tables alone.
   */
  readonly shared?: boolean | undefined
  /**
   * The name a table has in this engine's SQL, when it differs from the
   * name the other operations take (PostgreSQL's identifiers have at most
   * 63 bytes, an upload's load table name 73 characters); queries are
   * compiled against it.
   */
  readonly sqlName?: ((table: ReadonlyArray<string>) => ReadonlyArray<string>) | undefined
}>()("@analytics/core/AnalyticsEngine") {}

/**
 * An exact decimal (an engine's DECIMAL or NUMERIC, as its text: `-12.30`)
 * as a JSON value: the number when a JSON number carries it exactly (its
 * shortest form reads back as the same decimal: up to 15 significant digits
 * always, 16 or 17 often), otherwise the exact text, as integers beyond 2^53
 * are given (decision 0013, "Exact numbers and display formats").
 */
export const exactNumber = (text: string): number | string => {
  const match = /^([+-]?)0*(\d*?)(?:\.(\d*?)0*)?$/.exec(text.trim())
  if (match === null) return text
  const [, sign, whole, fraction = ""] = match
  const digits = `${whole}${fraction}`.replace(/^0+/, "")
  const canonical = digits === "" ? "0" : `${sign === "-" ? "-" : ""}${whole === "" ? "0" : whole}${fraction === "" ? "" : `.${fraction}`}`
  const value = Number(canonical)
  if (digits.length <= 15 || String(value) === canonical) return Object.is(value, -0) ? 0 : value
  return canonical
}

/** The dimension type an engine's column type suggests (`string` for anything unknown). */
export const suggestedType = (engineType: string): DimensionType => {
  const t = engineType.toUpperCase()
  if (t === "BOOLEAN" || t === "BOOL") return "boolean"
  if (t.startsWith("TIMESTAMP") || t === "DATE" || t.startsWith("DATETIME")) return "time"
  if (/^(TINYINT|SMALLINT|INTEGER|INT|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|FLOAT|REAL|DOUBLE|DECIMAL|NUMERIC|INT[248]|FLOAT[48])\b/.test(t)) return "number"
  if (t.startsWith("DOUBLE PRECISION")) return "number"
  return "string"
}

type Service = AnalyticsEngine["Service"]

/**
 * A file writer an engine may have of its own: a member that streams a
 * query's rows as a file (`parquet`, `csv`), which an export format can
 * need (`ExportFormats`' `engine`).
 */
export type Writer = {
  readonly [K in keyof Service]-?: NonNullable<Service[K]> extends (compiled: Compiled) => Stream.Stream<Uint8Array, EngineError> ? K : never
}[keyof Service]
