/**
 * The query an answer ran, in words ("Revenue by region; order date in
 * 2026; highest first"), from the semantic query the service returns and
 * its result columns' titles, so the asker sees what was counted before
 * trusting the number (decision 0016). The JSON and the SQL are shown on
 * request beside it.
 *
 * @since 0.1.0
 */
import { msg } from "../i18n/msg.ts"

/** A result column as the answer describes it. */
export interface AnswerColumn {
  readonly name: string
  readonly member?: string
  readonly kind: "dimension" | "time_dimension" | "measure"
  readonly title?: string
}

/** A filter of the query: a condition on a member, or a group (shown only as "other conditions"). */
type Filter = { readonly member?: string; readonly operator?: string; readonly values?: ReadonlyArray<unknown> } | Readonly<Record<string, unknown>>

/** The semantic query an answer ran (`POST /v1/datasets/{id}/query`'s body). */
export interface AnswerQuery {
  readonly measures?: ReadonlyArray<string>
  readonly dimensions?: ReadonlyArray<string>
  readonly time_dimensions?: ReadonlyArray<{ readonly dimension: string; readonly granularity?: string; readonly date_range?: string | readonly [string, string] }>
  readonly filters?: ReadonlyArray<Filter>
  readonly order?: ReadonlyArray<{ readonly member: string; readonly direction?: "asc" | "desc" }>
  readonly limit?: number
}

/** A member's name in words (`ordered_at` → "ordered at"), when no column titles it. */
const spoken = (name: string) => name.replace(/__.*$/, "").replace(/_+/g, " ").trim()

const listOf = (items: ReadonlyArray<string>, last: string) =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} ${last} ${items[items.length - 1]}`

const locale = () => (typeof document === "undefined" ? undefined : document.documentElement.lang || undefined)

const day = (iso: string) =>
  new Intl.DateTimeFormat(locale(), { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" }).format(new Date(`${iso}T00:00:00Z`))

/** A date range in words: "in 2026", "in Jul 2026", "from 1 Jan 2026 to 31 Mar 2026", or as written ("last month"). */
export const rangeInWords = (range: string | readonly [string, string]): string => {
  if (typeof range === "string") return range
  const [from, to] = range
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/
  const a = iso.exec(from)
  const b = iso.exec(to)
  if (a !== null && b !== null) {
    if (a[1] === b[1] && a[2] === "01" && a[3] === "01" && b[2] === "12" && b[3] === "31") return msg("ask.query.in", { period: a[1]! })
    const lastDay = new Date(Date.UTC(Number(b[1]), Number(b[2]), 0)).getUTCDate()
    if (a[1] === b[1] && a[2] === b[2] && a[3] === "01" && Number(b[3]) === lastDay) {
      const month = new Intl.DateTimeFormat(locale(), { month: "short", year: "numeric", timeZone: "UTC" }).format(new Date(`${from}T00:00:00Z`))
      return msg("ask.query.in", { period: month })
    }
    if (from === to) return msg("ask.query.on", { day: day(from) })
    return msg("ask.query.between", { from: day(from), to: day(to) })
  }
  return msg("ask.query.between", { from, to })
}

/** A member of the dataset's model, as its list gives it. */
export interface ModelMember {
  readonly name: string
  readonly title?: string | undefined
}

/** The query in words, with the result columns' titles, else the model's (`members`: a time dimension filtered on, not grouped by, has no column). */
export const queryInWords = (query: AnswerQuery, columns: ReadonlyArray<AnswerColumn>, members: ReadonlyArray<ModelMember> = []): string => {
  const title = (member: string) => {
    const column = columns.find((c) => c.member === member && c.kind !== "time_dimension") ?? columns.find((c) => c.name === member)
    return column?.title ?? members.find((m) => m.name === member)?.title ?? spoken(member)
  }
  const lower = (text: string) => (/^[A-Z][a-z]/.test(text) ? text.charAt(0).toLowerCase() + text.slice(1) : text)
  const and = msg("ask.query.and")
  const measures = (query.measures ?? []).map((m, i) => (i === 0 ? title(m) : lower(title(m))))
  const by = [
    ...(query.dimensions ?? []).map((d) => lower(title(d))),
    ...(query.time_dimensions ?? []).flatMap((t) => (t.granularity === undefined ? [] : [t.granularity]))
  ]
  const head = [
    measures.length === 0 ? msg("ask.query.rows") : listOf(measures, and),
    by.length === 0 ? "" : ` ${msg("ask.query.by", { members: listOf(by, and) })}`
  ].join("")
  const ranges = (query.time_dimensions ?? []).flatMap((t) =>
    t.date_range === undefined ? [] : [`${lower(title(t.dimension))} ${rangeInWords(t.date_range)}`]
  )
  const filters = (query.filters ?? []).map((f) => {
    const member = typeof f.member === "string" ? f.member : undefined
    const values = Array.isArray(f.values) ? f.values.map(String) : []
    if (member === undefined) return msg("ask.query.other")
    const who = lower(title(member))
    const or = msg("ask.query.or")
    switch (f.operator) {
      case "equals":
        return msg("ask.query.is", { member: who, values: listOf(values, or) })
      case "not_equals":
        return msg("ask.query.isNot", { member: who, values: listOf(values, or) })
      default:
        return `${who} ${String(f.operator ?? "").replace(/_/g, " ")} ${values.join(", ")}`.trim()
    }
  })
  const first = query.order?.[0]
  const ordered = first !== undefined && (query.measures ?? []).includes(first.member)
    ? [query.limit !== undefined && query.limit < 1000 && (query.dimensions ?? []).length > 0
      ? msg(first.direction === "asc" ? "ask.query.bottom" : "ask.query.top", { count: query.limit })
      : msg(first.direction === "asc" ? "ask.query.lowest" : "ask.query.highest")]
    : []
  return [head, ...ranges, ...filters, ...ordered].join("; ")
}
