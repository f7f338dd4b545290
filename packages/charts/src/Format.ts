/**
 * One source of number and time formatting for every place a value is
 * shown: the d3 format strings Vega draws axes, legends and tooltips with,
 * the text tables, key figures and tooltips print, and the number formats of
 * Excel cells. A measure's format is the one its semantic model declares
 * (docs/decisions/0013-datasets-and-semantic-layer.md); times arrive as UTC text and are shown in UTC.
 *
 * Text and charts agree by construction: `text` prints numbers with
 * `Intl.NumberFormat` in the same locale `numberLocale` hands to Vega, and
 * times with the same patterns `timeFormat` gives Vega (English month names,
 * as d3's default time locale has them).
 *
 * @since 0.1.0
 */
import type { DateRange, SemanticModel } from "@analytics/core"

/** How a measure's values are displayed, as its model declares it. */
export type NumberFormat = SemanticModel.MeasureFormat

/** A time granularity of a query (`month`, `quarter`…). */
export type Granularity = DateRange.Granularity

/** Where a number is shown: on an axis (round tick values, insignificant decimals trimmed) or as a label (every declared decimal). */
export type Where = "axis" | "label"

/** The locale charts and text use when none is given. */
export const defaultLocale = "en-US"

/** The decimals a currency has of its own (2 for EUR, 0 for JPY). */
const currencyDecimals = (currency: string): number =>
  new Intl.NumberFormat("en-US", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2

/** The decimals a format shows; `undefined`: as many as the value has. */
const decimalsOf = (format: NumberFormat): number | undefined =>
  format.type === "currency" ? format.decimals ?? currencyDecimals(format.currency) : format.type === "percent" ? format.decimals ?? 0 : format.decimals

/**
 * The d3 format string of a measure's format: currency `$,.2f` (the symbol
 * comes from the chart's locale, see `numberLocale`), percent `.1%`, number
 * `,.0f`, and `,~f` when nothing is declared. On an axis, trailing zero
 * decimals are trimmed (`€20,000`, not `€20,000.00`).
 */
export const d3Format = (format: NumberFormat | undefined, where: Where): string => {
  if (format === undefined) return ",~f"
  const decimals = decimalsOf(format)
  const trim = where === "axis" ? "~" : ""
  switch (format.type) {
    case "currency":
      return `$,.${decimals}${trim}f`
    case "percent":
      return `.${decimals}${trim}%`
    case "number":
      return decimals === undefined ? ",~f" : `,.${decimals}${trim}f`
  }
}

/** Vega's number locale (`config.locale.number`): separators and the currency's symbol where the locale places it. */
export interface NumberLocale {
  readonly decimal: string
  readonly thousands: string
  readonly grouping: ReadonlyArray<number>
  readonly currency: readonly [string, string]
}

/**
 * The number locale Vega formats with, read from `Intl.NumberFormat`'s parts
 * so a chart writes `€20,000.00` in en-US and `20.000,00 €` in de-DE, as
 * `text` does. Without a currency the symbol is empty.
 */
export const numberLocale = (currency: string | undefined, locale: string = defaultLocale): NumberLocale => {
  const parts = numberFormatter(locale, currency === undefined ? undefined : { type: "currency", currency }, "axis").formatToParts(1234567.5)
  const part = (type: Intl.NumberFormatPartTypes) => parts.find((p) => p.type === type)?.value
  const symbolAt = parts.findIndex((p) => p.type === "currency")
  const firstDigit = parts.findIndex((p) => p.type === "integer")
  // the symbol with the literal (a space) between it and the number
  const around = (from: number, to: number) => parts.slice(from, to).filter((p) => p.type === "currency" || p.type === "literal").map((p) => p.value).join("")
  const currencyParts: readonly [string, string] = symbolAt < 0
    ? ["", ""]
    : symbolAt < firstDigit
    ? [around(0, firstDigit), ""]
    : ["", around(firstDigit + 1, parts.length)]
  return { decimal: part("decimal") ?? ".", thousands: part("group") ?? ",", grouping: [3], currency: currencyParts }
}

/** Vega-Lite's UTC time unit for a granularity: a value is drawn at the start of its month, quarter… */
export const timeUnit = (granularity: Granularity | undefined) => {
  switch (granularity) {
    case "year":
      return "utcyear" as const
    case "quarter":
      return "utcyearquarter" as const
    case "month":
      return "utcyearmonth" as const
    case "week":
    case "day":
      return "utcyearmonthdate" as const
    case "hour":
      return "utcyearmonthdatehours" as const
    case "minute":
      return "utcyearmonthdatehoursminutes" as const
    case "second":
    case undefined:
      return "utcyearmonthdatehoursminutesseconds" as const
  }
}

/** The d3 time format of a granularity: `%Y`, `Q%q %Y`, `%b %Y`, `%-d %b`, `%-d %b %H:00`… */
export const timeFormat = (granularity: Granularity | undefined): string => {
  switch (granularity) {
    case "year":
      return "%Y"
    case "quarter":
      return "Q%q %Y"
    case "month":
      return "%b %Y"
    case "week":
    case "day":
      return "%-d %b"
    case "hour":
      return "%-d %b %H:00"
    case "minute":
      return "%-d %b %H:%M"
    case "second":
    case undefined:
      return "%-d %b %Y %H:%M:%S"
  }
}

/** The d3 pattern Vega parses the engines' UTC time text with (`2025-01-01 00:00:00`). */
export const timeParse = "utc:'%Y-%m-%d %H:%M:%S'"

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
const pad = (n: number) => String(n).padStart(2, "0")

/** A time value as an instant: engine text (`2025-01-01 00:00:00`, read as UTC), ISO text, a `Date` or epoch milliseconds. */
export const toDate = (value: unknown): Date | undefined => {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value
  if (typeof value === "number") return new Date(value)
  if (typeof value !== "string") return undefined
  const engine = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(value)
  const at = engine === null
    ? new Date(value)
    : new Date(Date.UTC(+engine[1], +engine[2] - 1, +engine[3], +(engine[4] ?? 0), +(engine[5] ?? 0), +(engine[6] ?? 0)))
  return Number.isNaN(at.getTime()) ? undefined : at
}

/** A time in UTC by one of `timeFormat`'s patterns, as d3 (and so Vega) writes it. */
export const formatTime = (at: Date, pattern: string): string =>
  pattern.replace(/%(-?)([YqbdHMS%])/g, (_, unpadded: string, token: string) => {
    switch (token) {
      case "Y":
        return String(at.getUTCFullYear())
      case "q":
        return String(Math.floor(at.getUTCMonth() / 3) + 1)
      case "b":
        return months[at.getUTCMonth()]
      case "d":
        return unpadded === "-" ? String(at.getUTCDate()) : pad(at.getUTCDate())
      case "H":
        return pad(at.getUTCHours())
      case "M":
        return pad(at.getUTCMinutes())
      case "S":
        return pad(at.getUTCSeconds())
      default:
        return "%"
    }
  })

/** What `text` needs to know of a column: its role and, for times and numbers, how it is shown. */
export interface TextColumn {
  readonly role: "time" | "category" | "quantity"
  readonly timeFormat?: string | undefined
  readonly numberFormat?: NumberFormat | undefined
}

/** The `Intl.NumberFormat` options matching `d3Format(format, where)`. */
export const intlOptions = (format: NumberFormat | undefined, where: Where = "label"): Intl.NumberFormatOptions => {
  if (format === undefined) return { maximumFractionDigits: 6 }
  const decimals = decimalsOf(format)
  const digits = decimals === undefined
    ? { maximumFractionDigits: 6 }
    : { minimumFractionDigits: where === "axis" ? 0 : decimals, maximumFractionDigits: decimals }
  switch (format.type) {
    case "currency":
      return { style: "currency", currency: format.currency, ...digits }
    case "percent":
      return { style: "percent", ...digits }
    case "number":
      return digits
  }
}

/** Formatters by locale and format: making an `Intl.NumberFormat` costs far more than using one, and a table formats thousands of cells. */
const formatters = new Map<string, Intl.NumberFormat>()

const numberFormatter = (locale: string, format: NumberFormat | undefined, where: Where = "label"): Intl.NumberFormat => {
  const key = JSON.stringify([locale, format, where])
  let formatter = formatters.get(key)
  if (formatter === undefined) {
    formatter = new Intl.NumberFormat(locale, intlOptions(format, where))
    // locales and declared formats are few; the bound only guards against a flood of odd ones
    if (formatters.size >= 1000) formatters.clear()
    formatters.set(key, formatter)
  }
  return formatter
}

/**
 * A value as text for tables, key figures, tooltips and exports' labels,
 * agreeing with what the chart shows for it: `€20,000.00`, `12.5%`,
 * `Jan 2025`, `Q1 2025`. A missing value is an empty string.
 */
export const text = (value: unknown, column: TextColumn, options: { readonly locale?: string; readonly where?: Where } = {}): string => {
  if (value === null || value === undefined) return ""
  switch (column.role) {
    case "time": {
      const at = toDate(value)
      return at === undefined ? String(value) : formatTime(at, column.timeFormat ?? timeFormat(undefined))
    }
    case "quantity": {
      const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN
      return Number.isFinite(n) ? numberFormatter(options.locale ?? defaultLocale, column.numberFormat, options.where).format(n) : String(value)
    }
    case "category":
      return String(value)
  }
}

/** Excel's number format for a measure's format: `"€"#,##0.00`, `0.0%`, `#,##0`; `General` when nothing is declared. */
export const excelNumFmt = (format: NumberFormat | undefined, locale: string = defaultLocale): string => {
  if (format === undefined) return "General"
  const decimals = decimalsOf(format)
  const fraction = decimals === undefined || decimals === 0 ? "" : "." + "0".repeat(decimals)
  switch (format.type) {
    case "currency": {
      const [prefix, suffix] = numberLocale(format.currency, locale).currency
      const quote = (s: string) => (s === "" ? "" : `"${s}"`)
      return `${quote(prefix)}#,##0${fraction}${quote(suffix)}`
    }
    case "percent":
      return `0${fraction}%`
    case "number":
      return decimals === undefined ? "#,##0.######" : `#,##0${fraction}`
  }
}
