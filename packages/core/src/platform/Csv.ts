/**
 * CSV (RFC 4180) for downloads: fields quoted when they must be, CRLF line
 * ends, and cells that a spreadsheet would run as a formula (`=`, `+`, `-`,
 * `@`, tab, carriage return at the start) prefixed with `'` (OWASP's advice
 * against CSV injection), numbers excepted.
 *
 * @since 0.1.0
 */
import { Stream } from "effect"

const formulaStart = /^[=+\-@\t\r]/

/** One field. */
export const field = (value: unknown): string => {
  if (value === null || value === undefined) return ""
  if (typeof value === "number" || typeof value === "bigint") return String(value)
  const text = value instanceof Date ? value.toISOString() : String(value)
  const safe = formulaStart.test(text) ? `'${text}` : text
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/** One line of `row`'s fields in the order of `columns`, ended by CRLF. */
export const line = (columns: ReadonlyArray<string>, row: Readonly<Record<string, unknown>>): string => {
  let text = ""
  for (let i = 0; i < columns.length; i++) text += (i === 0 ? "" : ",") + field(row[columns[i]!])
  return `${text}\r\n`
}

/** The header line of `columns`, ended by CRLF. */
export const header = (columns: ReadonlyArray<string>): string => `${columns.map(field).join(",")}\r\n`

/** A header line and one line per row, each ended by CRLF. */
export const table = (columns: ReadonlyArray<string>, rows: ReadonlyArray<Readonly<Record<string, unknown>>>): string =>
  header(columns) + rows.map((row) => line(columns, row)).join("")

/**
 * The characters that make a text cell a formula when they start it (those
 * `field` guards against), for engines that apply the guard in their own SQL.
 */
export const formulaStarts: ReadonlyArray<string> = ["=", "+", "-", "@", "\t", "\r"]

const encoder = new TextEncoder()

/**
 * A CSV file of `rows` as they come: the header line, then a line per row,
 * encoded as UTF-8 one chunk of rows at a time (for engines that stream rows
 * rather than write CSV themselves).
 */
export const stream = <E, R>(
  columns: ReadonlyArray<string>,
  rows: Stream.Stream<Readonly<Record<string, unknown>>, E, R>
): Stream.Stream<Uint8Array, E, R> =>
  Stream.concat(
    Stream.succeed(encoder.encode(header(columns))),
    Stream.mapArray(rows, (chunk) => [encoder.encode(chunk.map((row) => line(columns, row)).join(""))])
  )

/** The delimiters an uploaded CSV file may use (decision 0013, "Upload"). */
export const delimiters: ReadonlyArray<string> = [",", ";", "\t", "|"]

/**
 * The delimiter of a CSV file from its first line, as DuckDB's sniffer
 * would find it among `delimiters`: the most frequent outside quotes, a
 * comma when none is there. Every reader of an upload (the strict check,
 * each engine) reads it with this one.
 */
export const delimiterOf = (firstLine: string): string => {
  const unquoted = firstLine.replace(/"[^"]*"/g, "")
  let best = ","
  let most = 0
  for (const candidate of delimiters) {
    const count = unquoted.split(candidate).length - 1
    if (count > most) [best, most] = [candidate, count]
  }
  return best
}

/**
 * How every reader of an upload reads its records (RFC 4180), as options of
 * the `csv-parse` readers the strict check and the PostgreSQL import use:
 * `"` quotes, doubled inside a quoted field; LF, CRLF or a bare CR end a
 * record (so a CR inside an unquoted field makes a line of too few fields);
 * empty lines skipped; a byte-order mark dropped.
 */
export const uploadDialect = (delimiter: string) => ({
  bom: true,
  delimiter,
  quote: "\"",
  escape: "\"",
  record_delimiter: ["\r\n", "\n", "\r"],
  skip_empty_lines: true
})
