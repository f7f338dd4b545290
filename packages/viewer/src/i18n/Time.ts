/**
 * Times in the reader's locale and time zone (`Intl`, no library): a date
 * and time ("26 Nov 2026, 13:05"), and how far it is from now in relative
 * words ("5 minutes ago", "in 24 hours").
 *
 * @since 0.1.0
 */

/** A date and time (ISO 8601 or a `Date`) in the reader's words. */
export const dateTime = (at: string | Date): string =>
  new Date(at).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })

const steps: ReadonlyArray<[Intl.RelativeTimeFormatUnit, number]> = [
  ["second", 60],
  ["minute", 60],
  ["hour", 24],
  ["day", 30],
  ["month", 12],
  ["year", Number.POSITIVE_INFINITY]
]

/** How far `at` is from `now`, in relative words ("just now", "3 minutes ago", "in 24 hours"). */
export const relative = (at: string | Date, now: number = Date.now()): string => {
  let amount = (new Date(at).getTime() - now) / 1000
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" })
  for (const [unit, size] of steps) {
    if (Math.abs(amount) < size) return format.format(Math.round(amount), unit)
    amount /= size
  }
  return format.format(Math.round(amount), "year")
}

/** Both: "26 Nov 2026, 13:05 (5 minutes ago)". */
export const when = (at: string | Date, now: number = Date.now()): string => `${dateTime(at)} (${relative(at, now)})`
