/**
 * The SQL dialects semantic queries compile to: what differs between
 * engines (quoting, placeholders, date truncation, limits, string
 * functions, casts). Each dialect is a value; the compiler is one.
 *
 * Assumptions, per dialect, are the engines' current releases: SQL Server
 * 2022 (`DATETRUNC`), MySQL 8.0.17+ (`CAST … AS DOUBLE`), ClickHouse 22+
 * (`leftUTF8`), BigQuery and Snowflake timestamps without a time zone.
 * Times are compared in UTC.
 *
 * @since 0.1.0
 */
import type { Granularity } from "./DateRange.ts"
import type { BoundValue } from "./SemanticQuery.ts"

/** The dialects there are. */
export const dialectNames = ["postgres", "duckdb", "mysql", "sqlite", "bigquery", "snowflake", "clickhouse", "tsql"] as const
/** A dialect's name. */
export type DialectName = (typeof dialectNames)[number]

/** What differs between engines. */
export interface Dialect {
  readonly name: DialectName
  /** An identifier, quoted so that any text is one name. */
  readonly quote: (identifier: string) => string
  /** The placeholder of the `n`-th bound value (from 1), cast where the engine cannot infer its type. */
  readonly placeholder: (n: number, value: BoundValue) => string
  /** A time expression truncated to a granularity. */
  readonly truncate: (granularity: Granularity, expression: string) => string
  /** The floating-point type divisions are computed in (integer division would truncate). */
  readonly float: string
  /** `SELECT TOP (n)` rather than `LIMIT n`. */
  readonly top: boolean
  readonly lower: (expression: string) => string
  /** Whether `needle` occurs in `haystack`. */
  readonly contains: (haystack: string, needle: string) => string
  /** The first / last `n` characters. */
  readonly left: (expression: string, n: number) => string
  readonly right: (expression: string, n: number) => string
  /** Whether AVG is cast to `float` to be a floating-point value (SQL Server's AVG of integers keeps their type; PostgreSQL's of NUMERIC has 16 and more decimals). */
  readonly avgNeedsCast: boolean
}

const doubleQuoted = (identifier: string) => `"${identifier.replaceAll("\"", "\"\"")}"`
const backQuoted = (identifier: string) => `\`${identifier.replaceAll("\\", "\\\\").replaceAll("`", "\\`")}\``
const standardLeft = (e: string, n: number) => `LEFT(${e}, ${n})`
const standardRight = (e: string, n: number) => `RIGHT(${e}, ${n})`
const lower = (e: string) => `LOWER(${e})`

/** What most dialects share: LIMIT, LOWER, LEFT/RIGHT, a fractional AVG. */
const standard = { top: false, lower, left: standardLeft, right: standardRight, avgNeedsCast: false } as const

/** `date_trunc('unit', e)`, PostgreSQL's and DuckDB's (weeks start on Monday). */
const dateTrunc = (granularity: Granularity, e: string) => `date_trunc('${granularity}', ${e})`

/** Casts for engines that type placeholders from context and would guess wrong (an integer column and 2.5). */
const castPlaceholder = (placeholder: string, value: BoundValue, types: { readonly number: string; readonly boolean: string; readonly time: string }) =>
  value.type === "string" ? placeholder : `CAST(${placeholder} AS ${types[value.type]})`

const timeOnly = (placeholder: string, value: BoundValue, time: string) =>
  value.type === "time" ? `CAST(${placeholder} AS ${time})` : placeholder

/** PostgreSQL. */
export const postgres: Dialect = {
  ...standard,
  name: "postgres",
  quote: doubleQuoted,
  placeholder: (n, v) => castPlaceholder(`$${n}`, v, { number: "double precision", boolean: "boolean", time: "timestamp" }),
  truncate: dateTrunc,
  float: "double precision",
  contains: (h, n) => `STRPOS(${h}, ${n}) > 0`,
  // AVG of a NUMERIC is a NUMERIC of 16 and more decimals: a double, as DuckDB's AVG is (decision 0013, "Exact numbers").
  avgNeedsCast: true
}

/** DuckDB. */
export const duckdb: Dialect = {
  ...postgres,
  name: "duckdb",
  placeholder: (n, v) => castPlaceholder(`$${n}`, v, { number: "DOUBLE", boolean: "BOOLEAN", time: "TIMESTAMP" }),
  float: "DOUBLE",
  // DuckDB's AVG is a DOUBLE already, of integers and decimals alike.
  avgNeedsCast: false
}

const mysqlTruncations: Record<Granularity, (e: string) => string> = {
  second: (e) => `CAST(DATE_FORMAT(${e}, '%Y-%m-%d %H:%i:%s') AS DATETIME)`,
  minute: (e) => `CAST(DATE_FORMAT(${e}, '%Y-%m-%d %H:%i:00') AS DATETIME)`,
  hour: (e) => `CAST(DATE_FORMAT(${e}, '%Y-%m-%d %H:00:00') AS DATETIME)`,
  day: (e) => `CAST(DATE(${e}) AS DATETIME)`,
  week: (e) => `CAST(DATE(${e}) - INTERVAL WEEKDAY(${e}) DAY AS DATETIME)`,
  month: (e) => `CAST(DATE_FORMAT(${e}, '%Y-%m-01') AS DATETIME)`,
  quarter: (e) => `CAST(MAKEDATE(YEAR(${e}), 1) + INTERVAL (QUARTER(${e}) - 1) QUARTER AS DATETIME)`,
  year: (e) => `CAST(MAKEDATE(YEAR(${e}), 1) AS DATETIME)`
}

/** MySQL 8. */
export const mysql: Dialect = {
  ...standard,
  name: "mysql",
  quote: (identifier) => `\`${identifier.replaceAll("`", "``")}\``,
  placeholder: (_, v) => timeOnly("?", v, "DATETIME(3)"),
  truncate: (g, e) => mysqlTruncations[g](e),
  float: "DOUBLE",
  contains: (h, n) => `LOCATE(${n}, ${h}) > 0`
}

const sqliteFormats: Partial<Record<Granularity, string>> = {
  second: "%Y-%m-%d %H:%M:%S",
  minute: "%Y-%m-%d %H:%M:00",
  hour: "%Y-%m-%d %H:00:00",
  day: "%Y-%m-%d 00:00:00",
  month: "%Y-%m-01 00:00:00",
  year: "%Y-01-01 00:00:00"
}

/** SQLite: times are ISO 8601 text (`2024-01-31 08:00:00`), truncated by `strftime`. */
export const sqlite: Dialect = {
  ...standard,
  name: "sqlite",
  quote: doubleQuoted,
  placeholder: () => "?",
  truncate: (g, e) =>
    g === "week"
      ? `strftime('%Y-%m-%d 00:00:00', ${e}, '-6 days', 'weekday 1')`
      : g === "quarter"
      ? `printf('%s-%02d-01 00:00:00', strftime('%Y', ${e}), ((CAST(strftime('%m', ${e}) AS INTEGER) - 1) / 3) * 3 + 1)`
      : `strftime('${sqliteFormats[g]}', ${e})`,
  float: "REAL",
  contains: (h, n) => `INSTR(${h}, ${n}) > 0`,
  left: (e, n) => `SUBSTR(${e}, 1, ${n})`,
  right: (e, n) => `SUBSTR(${e}, -${n})`
}

/** BigQuery (GoogleSQL) over TIMESTAMP columns; weeks are ISO weeks. */
export const bigquery: Dialect = {
  ...standard,
  name: "bigquery",
  quote: backQuoted,
  placeholder: (n, v) => timeOnly(`@p${n}`, v, "TIMESTAMP"),
  truncate: (g, e) => `TIMESTAMP_TRUNC(${e}, ${g === "week" ? "ISOWEEK" : g.toUpperCase()})`,
  float: "FLOAT64",
  contains: (h, n) => `STRPOS(${h}, ${n}) > 0`
}

/** Snowflake over TIMESTAMP_NTZ columns (weeks start on Monday with the default WEEK_START). */
export const snowflake: Dialect = {
  ...standard,
  name: "snowflake",
  quote: doubleQuoted,
  placeholder: (_, v) => timeOnly("?", v, "TIMESTAMP_NTZ"),
  truncate: (g, e) => `DATE_TRUNC('${g.toUpperCase()}', ${e})`,
  float: "FLOAT",
  contains: (h, n) => `POSITION(${n} IN ${h}) > 0`
}

const clickhouseTypes: Record<BoundValue["type"], string> = {
  string: "String",
  number: "Float64",
  boolean: "Bool",
  time: "DateTime64(3)"
}

/** ClickHouse: typed placeholders `{p1:String}`. */
export const clickhouse: Dialect = {
  ...standard,
  name: "clickhouse",
  quote: backQuoted,
  placeholder: (n, v) => `{p${n}:${clickhouseTypes[v.type]}}`,
  truncate: (g, e) => g === "week" ? `toDateTime(toMonday(${e}))` : `toDateTime(dateTrunc('${g}', ${e}))`,
  float: "Float64",
  lower: (e) => `lowerUTF8(${e})`,
  contains: (h, n) => `positionUTF8(${h}, ${n}) > 0`,
  left: (e, n) => `leftUTF8(${e}, ${n})`,
  right: (e, n) => `rightUTF8(${e}, ${n})`
}

/** SQL Server 2022 (T-SQL). */
export const tsql: Dialect = {
  ...standard,
  name: "tsql",
  quote: (identifier) => `[${identifier.replaceAll("]", "]]")}]`,
  placeholder: (n, v) => timeOnly(`@p${n}`, v, "DATETIME2"),
  truncate: (g, e) => `DATETRUNC(${g === "week" ? "iso_week" : g}, ${e})`,
  float: "FLOAT",
  top: true,
  contains: (h, n) => `CHARINDEX(${n}, ${h}) > 0`,
  avgNeedsCast: true
}

/** Every dialect by name. */
export const dialects: Readonly<Record<DialectName, Dialect>> = { postgres, duckdb, mysql, sqlite, bigquery, snowflake, clickhouse, tsql }
