/**
 * A schedule's five-field cron expression in plain words, for the common
 * shapes ("Every Monday at 09:00 (Europe/Paris)"); any other expression
 * is shown as it is, with its time zone. The schedules screen loads it
 * with a dynamic `import()`, so it costs the first screen nothing.
 *
 * @since 0.1.0
 */
import { type MessageKey, msg } from "../i18n/msg.ts"

const number = /^\d+$/
const dayNames = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"]

/** A day of the week's number (0 Sunday … 6 Saturday; 7 is Sunday too; `mon` names), or undefined. */
const dayOf = (text: string): number | undefined => {
  const named = dayNames.indexOf(text.toLowerCase())
  if (named >= 0) return named
  if (!number.test(text)) return undefined
  const n = Number(text)
  return n <= 7 ? n % 7 : undefined
}

/** The days a day-of-week field names (`1`, `1-5`, `mon,wed,fri`), sorted Monday first; undefined when it is another shape. */
const daysOf = (field: string): ReadonlyArray<number> | undefined => {
  const days = new Set<number>()
  for (const part of field.split(",")) {
    const range = part.split("-")
    if (range.length === 1) {
      const day = dayOf(part)
      if (day === undefined) return undefined
      days.add(day)
    } else if (range.length === 2) {
      const from = dayOf(range[0]!)
      // 7 closes a range as Sunday (`5-7`).
      const to = range[1] === "7" ? 7 : dayOf(range[1]!)
      if (from === undefined || to === undefined || to < from) return undefined
      for (let d = from; d <= to; d++) days.add(d % 7)
    } else {
      return undefined
    }
  }
  return [...days].sort((a, b) => ((a + 6) % 7) - ((b + 6) % 7))
}

/** "Monday", "Monday and Friday", "Monday, Wednesday and Friday". */
const listWords = (names: ReadonlyArray<string>): string =>
  names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} ${msg("cron.and")} ${names[names.length - 1]}`

const two = (n: string) => n.padStart(2, "0")

/** The expression in words without its zone, or undefined when its shape is not a common one. */
export const cronPhrase = (expression: string): string | undefined => {
  const fields = expression.trim().split(/\s+/)
  if (fields.length !== 5) return undefined
  const [minute, hour, dom, month, dow] = fields as [string, string, string, string, string]
  const restAny = dom === "*" && month === "*" && dow === "*"
  if (hour === "*" && restAny) {
    if (minute === "*" || minute === "*/1") return msg("cron.everyMinute")
    const step = /^\*\/(\d+)$/.exec(minute)
    if (step !== null) return msg("cron.everyMinutes", { n: Number(step[1]) })
    if (number.test(minute) && Number(minute) < 60) return Number(minute) === 0 ? msg("cron.hourly.onTheHour") : msg("cron.hourly", { minute: Number(minute) })
    return undefined
  }
  if (!number.test(minute) || !number.test(hour) || Number(minute) > 59 || Number(hour) > 23) return undefined
  const time = `${two(hour)}:${two(minute)}`
  if (restAny) return msg("cron.daily", { time })
  if (dom === "*" && month === "*") {
    const days = daysOf(dow)
    if (days === undefined) return undefined
    if (days.length === 7) return msg("cron.daily", { time })
    if (days.join() === "1,2,3,4,5") return msg("cron.weekdays", { time })
    if (days.join() === "6,0") return msg("cron.weekends", { time })
    return msg("cron.weekly", { days: listWords(days.map((d) => msg(`cron.day.${d}` as MessageKey))), time })
  }
  if (dow !== "*") return undefined
  if (month === "*") {
    if (dom === "L") return msg("cron.monthly.last", { time })
    return number.test(dom) && Number(dom) >= 1 && Number(dom) <= 31 ? msg("cron.monthly", { day: Number(dom), time }) : undefined
  }
  if (number.test(dom) && number.test(month) && Number(month) >= 1 && Number(month) <= 12 && Number(dom) >= 1 && Number(dom) <= 31) {
    return msg("cron.yearly", { day: Number(dom), month: msg(`cron.month.${Number(month)}` as MessageKey), time })
  }
  return undefined
}

/** The expression and its time zone in words ("Every Monday at 09:00 (Europe/Paris)"), else the expression as it is ("0 9 1-7 * 1 (UTC)"). */
export const cronWords = (expression: string, zone: string): string =>
  msg("cron.zone", { words: cronPhrase(expression) ?? expression.trim(), zone })
