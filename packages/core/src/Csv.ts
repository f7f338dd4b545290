/**
 * CSV (RFC 4180) for downloads: fields quoted when they must be, CRLF line
 * ends, and cells that a spreadsheet would run as a formula (`=`, `+`, `-`,
 * `@`, tab, carriage return at the start) prefixed with `'` (OWASP's advice
 * against CSV injection), numbers excepted.
 *
 * @since 0.1.0
 */

const formulaStart = /^[=+\-@\t\r]/

/** One field. */
export const field = (value: unknown): string => {
  if (value === null || value === undefined) return ""
  if (typeof value === "number" || typeof value === "bigint") return String(value)
  const text = value instanceof Date ? value.toISOString() : String(value)
  const safe = formulaStart.test(text) ? `'${text}` : text
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe
}

/** A header line and one line per row, each ended by CRLF. */
export const table = (columns: ReadonlyArray<string>, rows: ReadonlyArray<Readonly<Record<string, unknown>>>): string =>
  [columns.map(field).join(","), ...rows.map((row) => columns.map((c) => field(row[c])).join(","))].map((line) => `${line}\r\n`).join("")
