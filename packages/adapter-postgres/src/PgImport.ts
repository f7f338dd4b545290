/**
 * Uploaded files loaded into PostgreSQL itself (decision 0013, "Uploads on
 * the PostgreSQL store"): the column types of a CSV file inferred as
 * DuckDB infers them (booleans, integers, decimals, doubles, dates,
 * timestamps, text), a Parquet file's read from its schema (hyparquet), and
 * the rows sent in batches, each one `INSERT … SELECT … FROM unnest(…)` of
 * one text array per column that the server casts to the column's type.
 * Both files are read as streams (a Parquet file one row group at a time),
 * so an upload of any size passes in bounded memory.
 *
 * @since 0.1.0
 */
import { type AnalyticsEngine, Csv, type SemanticModel } from "@analytics/core"
import { parse } from "csv-parse"
import { asyncBufferFromFile, parquetMetadataAsync, parquetRead, parquetSchema } from "hyparquet"
import { compressors } from "hyparquet-compressors"
import { createReadStream } from "node:fs"
import * as Fs from "node:fs/promises"

/** A column to create: its name and PostgreSQL type, and how a file's value becomes the text the server casts. */
export interface PlannedColumn {
  readonly name: string
  readonly type: string
  readonly text: (value: unknown) => string | null
}

/**
 * The decimals a column of plain decimal numbers keeps exactly: at most this
 * many after the point and 18 digits in all, as `DuckDbEngine` decides
 * (decision 0013, "Exact numbers"); otherwise it is a double.
 */
export const maxDecimalScale = 6
const maxDecimalWidth = 18

/** The PostgreSQL type a dimension type read as (`?types=`) is stored in, as DuckDB stores it. */
const overrideTypes: Record<SemanticModel.DimensionType, string> = {
  string: "text",
  number: "double precision",
  boolean: "boolean",
  time: "timestamp"
}

const booleanText = /^(true|false)$/i
const integerText = /^[+-]?\d+$/
const decimalText = /^[+-]?(\d+\.?\d*|\.\d+)$/
const doubleText = /^[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)$/i
const dateText = /^\d{4}-\d{2}-\d{2}$/
const timestampText = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?$/
const zonedText = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?\s*(Z|[+-]\d{2}(:?\d{2})?)$/i
const int64Max = 9_223_372_036_854_775_807n

/** What a column's values have been so far, to choose its type once the file is read. */
class Inference {
  nonNull = 0
  boolean = true
  integer = true
  decimal = true
  double = true
  date = true
  timestamp = true
  zoned = true
  anyZoned = false
  scale = 0
  whole = 0

  see(raw: string) {
    const value = raw.trim()
    this.nonNull++
    if (this.boolean && !booleanText.test(value)) this.boolean = false
    if (this.integer && !(integerText.test(value) && BigInt(value) <= int64Max && BigInt(value) >= -int64Max - 1n)) this.integer = false
    if (this.decimal) {
      if (decimalText.test(value)) {
        const [whole = "", fraction = ""] = value.replace(/^[+-]/, "").split(".")
        this.scale = Math.max(this.scale, fraction.length)
        this.whole = Math.max(this.whole, whole.replace(/^0+/, "").length)
      } else this.decimal = false
    }
    if (this.double && !doubleText.test(value)) this.double = false
    if (this.date && !dateText.test(value)) this.date = false
    const zoned = zonedText.test(value)
    if (zoned) this.anyZoned = true
    if (this.timestamp && !(dateText.test(value) || timestampText.test(value))) this.timestamp = false
    if (this.zoned && !(zoned || dateText.test(value) || timestampText.test(value))) this.zoned = false
  }

  /** The column's type: the narrowest every value fits, in DuckDB's order. */
  type(): string {
    if (this.nonNull === 0) return "text"
    if (this.boolean) return "boolean"
    if (this.integer) return "bigint"
    if (this.decimal && this.scale <= maxDecimalScale && this.whole + this.scale <= maxDecimalWidth) return `numeric(${maxDecimalWidth},${this.scale})`
    if (this.double) return "double precision"
    if (this.date) return "date"
    if (this.timestamp && !this.anyZoned) return "timestamp"
    if (this.zoned) return "timestamp with time zone"
    return "text"
  }
}

/** The delimiter of a CSV file: the one its strict check read it with, else `Csv.delimiterOf` its first line. */
const delimiterOf = async (file: AnalyticsEngine.FileImport): Promise<string> => {
  if (file.delimiter !== undefined) return file.delimiter
  const handle = await Fs.open(file.path)
  try {
    const buffer = Buffer.alloc(64 * 1024)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0)
    return Csv.delimiterOf(buffer.subarray(0, bytesRead).toString("utf8").split(/\r?\n/)[0] ?? "")
  } finally {
    await handle.close()
  }
}

/** A CSV file's records as a stream: an empty field, quoted or not, is null (as DuckDB reads it). */
const records = (path: string, delimiter: string): AsyncIterable<ReadonlyArray<string | null>> =>
  createReadStream(path).pipe(parse({
    // As the upload's strict check reads it.
    ...Csv.uploadDialect(delimiter),
    cast: (value) => (value === "" ? null : value) as unknown as string
  }))

/** Header names made unique as DuckDB makes them (`a`, `a_1`), an empty one `column<i>`. */
const headerNames = (header: ReadonlyArray<string | null>): ReadonlyArray<string> => {
  const taken = new Set<string>()
  return header.map((raw, i) => {
    const base = raw === null || raw.trim() === "" ? `column${i}` : raw
    let name = base
    for (let n = 1; taken.has(name); n++) name = `${base}_${n}`
    taken.add(name)
    return name
  })
}

const asText = (value: unknown): string | null => value === null || value === undefined ? null : String(value)

/**
 * A CSV file's columns, read once through (its header, then every value):
 * each column's type inferred, unless `types` names it.
 */
export const csvColumns = async (file: AnalyticsEngine.FileImport): Promise<{ readonly delimiter: string; readonly columns: ReadonlyArray<PlannedColumn> }> => {
  const delimiter = await delimiterOf(file)
  let names: ReadonlyArray<string> | undefined
  let inferences: Array<Inference> = []
  for await (const record of records(file.path, delimiter)) {
    if (names === undefined) {
      names = headerNames(record)
      inferences = names.map(() => new Inference())
      continue
    }
    for (let i = 0; i < record.length; i++) {
      const value = record[i]
      if (value !== null && value !== undefined) inferences[i]!.see(value)
    }
  }
  if (names === undefined) throw new Error("The CSV file has no header line")
  return {
    delimiter,
    columns: names.map((name, i) => {
      const override = file.types?.[name]
      return { name, type: override === undefined ? inferences[i]!.type() : overrideTypes[override], text: asText }
    })
  }
}

/** A CSV file's rows after its header, each as the texts of its columns. */
export async function* csvRows(path: string, delimiter: string): AsyncGenerator<ReadonlyArray<string | null>> {
  let header = true
  for await (const record of records(path, delimiter)) {
    if (header) header = false
    else yield record
  }
}

/** A Parquet schema element, as hyparquet reads it. */
interface Element {
  readonly name: string
  readonly type?: string | undefined
  readonly converted_type?: string | undefined
  readonly logical_type?: { readonly type: string; readonly isAdjustedToUTC?: boolean } | undefined
  readonly precision?: number | undefined
  readonly scale?: number | undefined
}

/** JSON text of a nested value (lists, structs), big integers as numbers' text. */
const jsonText = (value: unknown) => JSON.stringify(value, (_, v) => typeof v === "bigint" ? v.toString() : v)

/** How a Parquet column is stored: its type, and its values as the text the server casts. */
const parquetColumn = (element: Element, nested: boolean): Omit<PlannedColumn, "name"> => {
  if (nested) return { type: "text", text: (v) => v === null || v === undefined ? null : jsonText(v) }
  const logical = element.logical_type?.type
  const converted = element.converted_type
  if (converted === "DECIMAL" || logical === "DECIMAL") {
    const scale = element.scale ?? 0
    // hyparquet gives a decimal as the double nearest it; its text at the column's scale is the decimal again (up to 15 digits).
    return { type: `numeric(${element.precision ?? 38},${scale})`, text: (v) => v === null || v === undefined ? null : typeof v === "number" ? v.toFixed(scale) : String(v) }
  }
  if (converted === "DATE" || logical === "DATE") return { type: "date", text: (v) => v instanceof Date ? v.toISOString().slice(0, 10) : asText(v) }
  if (
    logical === "TIMESTAMP" || converted === "TIMESTAMP_MILLIS" || converted === "TIMESTAMP_MICROS" || element.type === "INT96"
  ) {
    // Writers that give a logical type say whether it is an instant; the legacy converted types alone are read as local times, as DuckDB reads them.
    const zoned = element.logical_type?.isAdjustedToUTC === true
    return { type: zoned ? "timestamp with time zone" : "timestamp", text: (v) => v instanceof Date ? v.toISOString() : asText(v) }
  }
  if (converted === "UTF8" || logical === "STRING" || converted === "ENUM" || logical === "ENUM" || logical === "UUID") return { type: "text", text: asText }
  if (converted === "JSON" || logical === "JSON") return { type: "text", text: (v) => v === null || v === undefined ? null : jsonText(v) }
  switch (element.type) {
    case "BOOLEAN":
      return { type: "boolean", text: asText }
    case "INT32":
      return { type: converted === "UINT_32" ? "bigint" : "integer", text: asText }
    case "INT64":
      return { type: converted === "UINT_64" ? "numeric(20,0)" : "bigint", text: asText }
    case "FLOAT":
    case "DOUBLE":
      return { type: "double precision", text: asText }
    default:
      return { type: "text", text: (v) => v instanceof Uint8Array ? Buffer.from(v).toString("base64") : asText(v) }
  }
}

/** A Parquet file's columns (its schema's top-level fields; nested ones as JSON text) and its row groups' bounds. */
export const parquetColumns = async (path: string) => {
  const file = await asyncBufferFromFile(path)
  const metadata = await parquetMetadataAsync(file)
  const root = parquetSchema(metadata)
  const columns: ReadonlyArray<PlannedColumn> = root.children.map((child) => ({
    name: child.element.name,
    ...parquetColumn(child.element as Element, child.children.length > 0)
  }))
  const groups: Array<{ readonly start: number; readonly end: number }> = []
  let start = 0
  for (const group of metadata.row_groups) {
    const end = start + Number(group.num_rows)
    groups.push({ start, end })
    start = end
  }
  return { file, metadata, columns, groups }
}

/** A Parquet file's rows, one row group read at a time. */
export async function* parquetRows(source: Awaited<ReturnType<typeof parquetColumns>>): AsyncGenerator<ReadonlyArray<unknown>> {
  for (const group of source.groups) {
    if (group.end === group.start) continue
    const rows = await new Promise<Array<Array<unknown>>>((resolve, reject) => {
      parquetRead({
        file: source.file,
        metadata: source.metadata,
        rowStart: group.start,
        rowEnd: group.end,
        compressors,
        rowFormat: "array",
        onComplete: (rows) => resolve(rows)
      }).catch(reject)
    })
    yield* rows
  }
}
