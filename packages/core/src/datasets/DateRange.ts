/**
 * Date ranges of semantic queries, resolved to half-open UTC instants
 * `[start, end)` before compiling, so the SQL of every dialect compares
 * with two bound timestamps and needs no interval arithmetic of its own.
 *
 * - `["2024-01-01", "2024-03-31"]`: whole days, both included;
 *   timestamps (`2024-01-01T08:00:00Z`) are taken to the millisecond, both included.
 * - `today`, `yesterday`; `this week|month|quarter|year` (the current one);
 *   `last week|month|quarter|year` (the previous, complete one);
 *   `last N days|weeks|months|quarters|years` (the N ending with the current one, which is included).
 *   Weeks start on Monday.
 *
 * @since 0.1.0
 */

/** A resolved range: from `start` (included) to `end` (excluded). */
export interface Resolved {
  readonly start: Date
  readonly end: Date
}

/** The time granularities of queries, finest first. */
export const granularities = ["second", "minute", "hour", "day", "week", "month", "quarter", "year"] as const
/** A time granularity. */
export type Granularity = (typeof granularities)[number]

type Unit = "day" | "week" | "month" | "quarter" | "year"

const day = 86_400_000

/** The start of the `unit` holding `at` (UTC). */
export const startOf = (unit: Unit, at: Date): Date => {
  const y = at.getUTCFullYear()
  const m = at.getUTCMonth()
  switch (unit) {
    case "day":
      return new Date(Date.UTC(y, m, at.getUTCDate()))
    case "week": {
      const midnight = Date.UTC(y, m, at.getUTCDate())
      return new Date(midnight - ((at.getUTCDay() + 6) % 7) * day)
    }
    case "month":
      return new Date(Date.UTC(y, m, 1))
    case "quarter":
      return new Date(Date.UTC(y, m - (m % 3), 1))
    case "year":
      return new Date(Date.UTC(y, 0, 1))
  }
}

/** `at` moved by `n` units (calendar months for month, quarter and year). */
const add = (unit: Unit, at: Date, n: number): Date => {
  switch (unit) {
    case "day":
      return new Date(at.getTime() + n * day)
    case "week":
      return new Date(at.getTime() + n * 7 * day)
    case "month":
      return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + n, at.getUTCDate()))
    case "quarter":
      return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 3 * n, at.getUTCDate()))
    case "year":
      return new Date(Date.UTC(at.getUTCFullYear() + n, at.getUTCMonth(), at.getUTCDate()))
  }
}

const datePattern = /^\d{4}-\d{2}-\d{2}$/
const timestampPattern = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?$/

/**
 * A point in time from a query: a date (`2024-01-31`, midnight UTC) or an
 * ISO 8601 timestamp (UTC unless it names an offset); `undefined` when it is
 * neither or does not exist (`2024-02-30`).
 */
export const parseInstant = (text: string): { readonly at: Date; readonly wholeDay: boolean } | undefined => {
  const wholeDay = datePattern.test(text)
  if (!wholeDay && !timestampPattern.test(text)) return undefined
  const normalized = wholeDay ? `${text}T00:00:00Z` : /Z|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text}Z`
  const at = new Date(normalized.replace(" ", "T"))
  if (Number.isNaN(at.getTime())) return undefined
  // Date rolls 2024-02-30 over into March: refuse dates that do not exist.
  if (at.toISOString().slice(0, 10) !== text.slice(0, 10) && !/[+-]\d{2}:?\d{2}$/.test(text)) return undefined
  return { at, wholeDay }
}

/** The end (excluded) of the day or instant `text` names, taken as included. */
const endOfIncluded = (parsed: { readonly at: Date; readonly wholeDay: boolean }) =>
  new Date(parsed.at.getTime() + (parsed.wholeDay ? day : 1))

const relative = /^(?:(today|yesterday)|(this|last) (week|month|quarter|year)|last (\d{1,4}) (day|week|month|quarter|year)s?)$/

/** A calendar period named outright: a year (`2025`), a quarter (`2025-Q1`), a month (`2025-03`) or a day (`2025-03-31`). */
const period = /^(\d{4})(?:-q([1-4])|-(\d{2})(?:-(\d{2}))?)?$/

/** The period `text` names, whole; `undefined` when it names none (or a day that does not exist). */
const namedPeriod = (text: string): Resolved | undefined => {
  const match = period.exec(text)
  if (match === null) return undefined
  const [, year, quarter, month, dayOfMonth] = match
  if (dayOfMonth !== undefined) {
    const parsed = parseInstant(text)
    return parsed === undefined ? undefined : { start: parsed.at, end: endOfIncluded(parsed) }
  }
  const y = Number(year)
  if (month !== undefined) {
    const m = Number(month)
    if (m < 1 || m > 12) return undefined
    return { start: new Date(Date.UTC(y, m - 1, 1)), end: new Date(Date.UTC(y, m, 1)) }
  }
  if (quarter !== undefined) {
    const q = Number(quarter)
    return { start: new Date(Date.UTC(y, 3 * (q - 1), 1)), end: new Date(Date.UTC(y, 3 * q, 1)) }
  }
  return { start: new Date(Date.UTC(y, 0, 1)), end: new Date(Date.UTC(y + 1, 0, 1)) }
}

/** Resolves a range at `now`; a message saying what is wrong when it is not one. */
export const resolve = (range: string | readonly [string, string], now: Date): Resolved | string => {
  if (typeof range !== "string") {
    const from = parseInstant(range[0])
    const to = parseInstant(range[1])
    if (from === undefined || to === undefined) return "Expected dates (2024-01-31) or ISO 8601 timestamps"
    const resolved = { start: from.at, end: endOfIncluded(to) }
    return resolved.start < resolved.end ? resolved : "The range ends before it starts"
  }
  const text = range.trim().toLowerCase()
  const named = namedPeriod(text)
  if (named !== undefined) return named
  const match = relative.exec(text)
  if (match === null) {
    return "Expected [from, to], a year (2025), quarter (2025-Q1), month (2025-03) or day, today, yesterday, this|last week|month|quarter|year, or last N days|weeks|months|quarters|years"
  }
  const [, day, thisOrLast, unit, count, countUnit] = match
  if (day !== undefined) {
    const today = startOf("day", now)
    const start = day === "today" ? today : add("day", today, -1)
    return { start, end: add("day", start, 1) }
  }
  if (unit !== undefined) {
    const current = startOf(unit as Unit, now)
    const start = thisOrLast === "this" ? current : add(unit as Unit, current, -1)
    return { start, end: add(unit as Unit, start, 1) }
  }
  const n = Number(count)
  if (n < 1) return "Expected at least 1 in last N …"
  const current = startOf(countUnit as Unit, now)
  return { start: add(countUnit as Unit, current, -(n - 1)), end: add(countUnit as Unit, current, 1) }
}
