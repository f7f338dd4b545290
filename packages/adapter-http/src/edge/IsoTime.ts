/**
 * ISO 8601 UTC times (`Date.prototype.toISOString`'s spelling) written
 * from the time value: V8's `toISOString` costs about 1 µs per call, and
 * the edge writes times on every response (list rows, rate-limit resets).
 *
 * @since 0.1.0
 */

const DIGITS = Array.from({ length: 100 }, (_, i) => (i < 10 ? "0" : "") + i)
const DAY = 86_400_000
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the four-digit years `toISOString` writes without a sign. */
const MIN_TIME = -62_167_219_200_000
const MAX_TIME = 253_402_300_799_999
let cachedDay = NaN
let cachedDayPrefix = ""

/**
 * `new Date(time).toISOString()`. The civil date of a day number is H.
 * Hinnant's `civil_from_days`; the last day's `YYYY-MM-DDT` is kept, as the
 * times of a response are often from the same day. Years outside 0000-9999
 * (six digits and a sign) use `toISOString`.
 */
export const format = (time: number): string => {
  if (!(time >= MIN_TIME && time <= MAX_TIME)) return new Date(time).toISOString()
  const ms = ((time % DAY) + DAY) % DAY
  const days = (time - ms) / DAY
  let prefix = cachedDayPrefix
  if (days !== cachedDay) {
    const z = days + 719_468
    const era = Math.floor(z / 146_097)
    const doe = z - era * 146_097
    const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365)
    const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
    const mp = Math.floor((5 * doy + 2) / 153)
    const day = doy - Math.floor((153 * mp + 2) / 5) + 1
    const month = mp < 10 ? mp + 3 : mp - 9
    const year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    prefix = DIGITS[Math.floor(year / 100)] + DIGITS[year % 100] + "-" + DIGITS[month] + "-" + DIGITS[day] + "T"
    cachedDay = days
    cachedDayPrefix = prefix
  }
  const seconds = Math.floor(ms / 1000)
  const millis = ms - seconds * 1000
  return prefix + DIGITS[Math.floor(seconds / 3600)] + ":" + DIGITS[Math.floor(seconds / 60) % 60] + ":" +
    DIGITS[seconds % 60] + "." + (millis < 10 ? "00" : millis < 100 ? "0" : "") + millis + "Z"
}
