/**
 * The built-in answerer (decision 0016): works offline with no model. It reads a
 * question against the dataset's semantic model alone (member names, their
 * words and titles, a small thesaurus of business words), recognises "by
 * <dimension>", "top N <dimension> by <measure>", time ranges and
 * granularities, filters on values the asker can see, and comparisons
 * ("EU vs US"), and proposes the semantic query; it says clearly what it
 * can answer when it cannot. It words answers from the rows it is shown,
 * never inventing a number. Pure: the same question, model and `now` give
 * the same plan.
 *
 * @since 0.1.0
 */
import { Effect, Layer, Stream } from "effect"
import type { Row } from "../datasets/AnalyticsEngine.ts"
import { Answerer, type Plan, type Question, type Result, type SuggestedVisual } from "./Answerer.ts"
import * as DateRange from "../datasets/DateRange.ts"
import type { Dimension, Measure, MeasureFormat, Model } from "../datasets/SemanticModel.ts"
import * as SemanticQuery from "../datasets/SemanticQuery.ts"
import type { Column, Query } from "../datasets/SemanticQuery.ts"

// ---------------------------------------------------------------------------
// words

/** A word's singular, roughly: enough to match "orders" with "order" and "categories" with "category". */
const singular = (word: string): string =>
  word.length > 4 && word.endsWith("ies")
    ? `${word.slice(0, -3)}y`
    : word.length > 4 && /(?:ses|xes|ches|shes)$/.test(word)
    ? word.slice(0, -2)
    : word.length > 3 && word.endsWith("s") && !word.endsWith("ss") && !word.endsWith("us")
    ? word.slice(0, -1)
    : word

/** The words of a text or an identifier as written, lower case (one for each of `wordsOf`'s). */
const rawWordsOf = (text: string): ReadonlyArray<string> =>
  text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "")

/** The words of a text or an identifier (`total_amount`, `orderedAt`, "Order Day"), lower case, singular. */
export const wordsOf = (text: string): ReadonlyArray<string> => rawWordsOf(text).map(singular)

/**
 * Groups of words that name the same thing in business questions: a word of
 * the question matches a member whose own words share its group. Used only
 * when no member is named by its own words. "Total" is in no group: it is
 * how any sum is named (`total_ticket_id`), so it would make "revenue" mean
 * whatever the dataset sums (decision 0016).
 */
const revenueWords = ["revenue", "sale", "amount", "turnover", "income", "gmv", "earning", "money", "spend", "spending", "booking", "value", "price"]
const quantityWords = ["quantity", "unit", "qty", "volume", "item", "piece"]
const costWords = ["cost", "expense", "spend"]
const profitWords = ["profit", "margin", "earning"]
const thesaurus: ReadonlyArray<ReadonlyArray<string>> = [
  revenueWords,
  quantityWords,
  ["order", "purchase", "transaction", "deal"],
  ["customer", "client", "buyer", "account"],
  ["user", "member", "person", "people"],
  ["region", "area", "territory", "geo", "geography", "market", "zone"],
  ["country", "nation"],
  ["product", "sku", "offering", "plan"],
  ["channel", "source", "medium"],
  ["category", "type", "kind", "segment"],
  costWords,
  profitWords,
  ["average", "avg", "mean", "typical"],
  ["count", "number", "many", "tally"]
]

/**
 * Words that can only name a measure: a question using one that no measure
 * of the dataset answers to is refused, never answered with another measure.
 */
const measureWords = new Set([...revenueWords, ...quantityWords, ...costWords, ...profitWords])

const synonymsOf = (word: string): ReadonlyArray<string> =>
  [...new Set(thesaurus.filter((group) => group.includes(word)).flat())].filter((w) => w !== word)

/** Words of a question that never name a member ("by", "last", "the"…). */
const stopWords = new Set(
  ("a an the of in on at for to from by per and or vs versus versu compared with without what which who how is are was were " +
    "show me give tell list get my our we us i you it its this that these those last next previous past this current " +
    "top bottom highest lowest most least best worst largest smallest biggest fewest please between since until over " +
    "each every all do does did much many total sum day week month quarter year hour daily weekly monthly quarterly yearly " +
    "annual annually hourly today yesterday trend time ytd compare break down broken split than more less")
    .split(" ")
)

// ---------------------------------------------------------------------------
// members

/** A member of the model and the phrases that name it. */
interface Candidate {
  readonly kind: "measure" | "dimension"
  readonly name: string
  /** Its own phrases: its name's, its title's, its column's words. */
  readonly phrases: ReadonlyArray<ReadonlyArray<string>>
  readonly measure?: Measure
  readonly dimension?: Dimension
}

const candidatesOf = (model: Model): ReadonlyArray<Candidate> => {
  const phrases = (name: string, title: string | undefined, column: string | undefined) => {
    const all = [wordsOf(name), ...(title === undefined ? [] : [wordsOf(title)]), ...(column === undefined ? [] : [wordsOf(column)])]
      .filter((p) => p.length > 0)
    const seen = new Set<string>()
    return all.filter((p) => !seen.has(p.join(" ")) && seen.add(p.join(" ")))
  }
  return [
    ...model.measures.map((m): Candidate => ({ kind: "measure", name: m.name, phrases: phrases(m.name, m.title, m.column), measure: m })),
    ...model.dimensions.map((d): Candidate => ({ kind: "dimension", name: d.name, phrases: phrases(d.name, d.title, d.column), dimension: d }))
  ]
}

/** A member named in the question, and where. */
interface Mention {
  readonly candidate: Candidate
  readonly start: number
  readonly end: number
  /** By its own words, or through the thesaurus. */
  readonly exact: boolean
}

const phraseAt = (tokens: ReadonlyArray<string>, at: number, phrase: ReadonlyArray<string>) =>
  phrase.length > 0 && phrase.every((word, i) => tokens[at + i] === word)

/**
 * The members the tokens name, longest phrase first at each position (so
 * "average order" names `average_order`, not `orders`); thesaurus matches
 * only for words no member names by its own words.
 */
const mentionsIn = (tokens: ReadonlyArray<string>, candidates: ReadonlyArray<Candidate>): ReadonlyArray<Mention> => {
  const mentions: Array<Mention> = []
  const used = new Array<boolean>(tokens.length).fill(false)
  for (let at = 0; at < tokens.length; at++) {
    let best: Mention | undefined
    for (const candidate of candidates) {
      for (const phrase of candidate.phrases) {
        if (phraseAt(tokens, at, phrase) && (best === undefined || phrase.length > best.end - best.start)) {
          best = { candidate, start: at, end: at + phrase.length, exact: true }
        }
      }
    }
    if (best !== undefined) {
      mentions.push(best)
      for (let i = best.start; i < best.end; i++) used[i] = true
      at = best.end - 1
    }
  }
  for (let at = 0; at < tokens.length; at++) {
    const token = tokens[at]!
    if (used[at] || stopWords.has(token) && !["total", "sum", "many"].includes(token)) continue
    const synonyms = synonymsOf(token)
    if (synonyms.length === 0) continue
    const matched = candidates.filter((c) => c.phrases.some((p) => p.some((w) => synonyms.includes(w))))
    for (const candidate of matched) mentions.push({ candidate, start: at, end: at + 1, exact: false })
  }
  return mentions
}

// ---------------------------------------------------------------------------
// time

const months = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
const monthPattern = `(${months.join("|")}|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)`
const numberWords: Record<string, number> = {
  one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, twelve: 12, twenty: 20
}
const pad = (n: number) => String(n).padStart(2, "0")
const isoDay = (date: Date) => date.toISOString().slice(0, 10)
const lastDayOf = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate()

type DateRangeValue = string | readonly [string, string]

/** The date range a question names, as the query language writes it, and the text it was read from. */
const dateRangeIn = (text: string, now: Date): { readonly range: DateRangeValue; readonly matched: string } | undefined => {
  const iso = "(\\d{4}-\\d{2}-\\d{2})"
  const patterns: ReadonlyArray<readonly [RegExp, (m: RegExpExecArray) => DateRangeValue | undefined]> = [
    [new RegExp(`(?:between|from) ${iso} (?:and|to|until|through) ${iso}`), (m) => [m[1]!, m[2]!]],
    [new RegExp(`since ${iso}`), (m) => [m[1]!, isoDay(now)]],
    [new RegExp(`(?:on|for|at) ${iso}`), (m) => [m[1]!, m[1]!]],
    [/\b(?:year to date|ytd)\b/, () => "this year"],
    [/\b(today|yesterday)\b/, (m) => m[1]!],
    [/\b(?:last|past|previous) (\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty) (day|week|month|quarter|year)s?\b/, (m) => {
      const n = numberWords[m[1]!] ?? Number(m[1])
      return n >= 1 ? `last ${n} ${m[2]}s` : undefined
    }],
    [/\b(this|current|last|previous|past) (week|month|quarter|year)\b/, (m) => `${m[1] === "this" || m[1] === "current" ? "this" : "last"} ${m[2]}`],
    [/\b(q[1-4]) (\d{4})\b/, (m) => {
      const year = Number(m[2])
      const first = (Number(m[1]![1]) - 1) * 3 + 1
      return [`${year}-${pad(first)}-01`, `${year}-${pad(first + 2)}-${pad(lastDayOf(year, first + 2))}`]
    }],
    [new RegExp(`\\b${monthPattern} (\\d{4})\\b`), (m) => {
      const month = months.findIndex((name) => name.startsWith(m[1]!.slice(0, 3))) + 1
      const year = Number(m[2])
      return [`${year}-${pad(month)}-01`, `${year}-${pad(month)}-${pad(lastDayOf(year, month))}`]
    }],
    [/\b(?:in|for|during|of) (\d{4})(?![-\d])/, (m) => [`${m[1]}-01-01`, `${m[1]}-12-31`]],
    [/\b((?:19|20)\d{2})(?![-\d])/, (m) => [`${m[1]}-01-01`, `${m[1]}-12-31`]],
    [new RegExp(iso), (m) => [m[1]!, m[1]!]]
  ]
  for (const [pattern, read] of patterns) {
    const match = pattern.exec(text)
    if (match === null) continue
    const range = read(match)
    if (range !== undefined && typeof DateRange.resolve(range, now) !== "string") return { range, matched: match[0] }
  }
  return undefined
}

/** The granularity a question asks for ("per month", "monthly", "by week", "over time"). */
const granularityIn = (text: string): DateRange.Granularity | "trend" | undefined => {
  const adverbs: Record<string, DateRange.Granularity> = {
    hourly: "hour", daily: "day", weekly: "week", monthly: "month", quarterly: "quarter", yearly: "year", annually: "year", annual: "year"
  }
  const per = /\b(?:per|by|each|every|a|an) (hour|day|week|month|quarter|year)\b/.exec(text)
  if (per !== null) return per[1] as DateRange.Granularity
  const adverb = /\b(hourly|daily|weekly|monthly|quarterly|yearly|annually|annual)\b/.exec(text)
  if (adverb !== null) return adverbs[adverb[1]!]
  return /\b(?:over time|trend|trends|trending|evolution|history)\b/.test(text) ? "trend" : undefined
}

/** A granularity fit to show a range: days within two months, weeks within half a year, else months. */
const granularityFor = (range: DateRangeValue | undefined, now: Date): DateRange.Granularity => {
  const resolved = range === undefined ? undefined : DateRange.resolve(range, now)
  if (resolved === undefined || typeof resolved === "string") return "month"
  const days = (resolved.end.getTime() - resolved.start.getTime()) / 86_400_000
  return days <= 62 ? "day" : days <= 183 ? "week" : "month"
}

// ---------------------------------------------------------------------------
// plans

/** The parts of a question the planner recognised, before they become a query. */
interface Reading {
  readonly measures: ReadonlyArray<string>
  readonly dimensions: ReadonlyArray<string>
  readonly filters: ReadonlyArray<{ readonly member: string; readonly operator: "equals" | "not_equals"; readonly values: ReadonlyArray<string> }>
  readonly range: DateRangeValue | undefined
  readonly granularity: DateRange.Granularity | "trend" | undefined
  readonly timeDimension: string | undefined
  readonly rank: { readonly direction: "asc" | "desc"; readonly limit: number } | undefined
  readonly countAsked: boolean
  /** Words as asked that name a measure no member of the dataset answers to ("revenue" of a tickets dataset). */
  readonly missingMeasures: ReadonlyArray<string>
  /** Words as asked after "by" or "per" that name no dimension ("by region" of a dataset without one). */
  readonly missingDimensions: ReadonlyArray<string>
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * The values of string dimensions the question names: a value of at most
 * three capitals ("EU", "US") only as written, longer ones in any case, as
 * whole words. A value after "excluding", "except", "not" or "without" is excluded.
 */
const valuesIn = (text: string, values: Question["values"]) => {
  const found: Array<{ member: string; value: string; excluded: boolean; at: number }> = []
  for (const [member, list] of Object.entries(values ?? {})) {
    for (const value of list) {
      if (value.trim().length < 2 || value.length > 100) continue
      const acronym = /^[A-Z0-9]{2,3}$/.test(value)
      const pattern = new RegExp(`(^|[^\\p{L}\\p{N}])(${escapeRegExp(value)})(?=$|[^\\p{L}\\p{N}])`, acronym ? "gu" : "giu")
      for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
        const at = match.index + match[1]!.length
        const before = text.slice(Math.max(0, at - 12), at).toLowerCase()
        found.push({ member, value, excluded: /\b(?:excluding|except|not|without|other than)\s+$/.test(before), at })
      }
    }
  }
  // A value inside a longer one ("US" in "US West") is the longer one's.
  return found.filter((f) => !found.some((o) => o !== f && o.at <= f.at && o.at + o.value.length >= f.at + f.value.length && o.value.length > f.value.length))
}

/** Reads a question (one turn) against the model. */
const read = (text: string, model: Model, values: Question["values"], now: Date): Reading => {
  const lower = text.toLowerCase()
  const candidates = candidatesOf(model)
  const timeDimensions = model.dimensions.filter((d) => d.type === "time")
  const dated = dateRangeIn(lower, now)
  // The words of the range ("last 3 months") name no member.
  const rest = dated === undefined ? lower : lower.replace(dated.matched, " ")
  const named = valuesIn(text, values)
  const valueWords = new Set(named.flatMap((v) => wordsOf(v.value)))
  const tokens = wordsOf(rest).map((w) => (valueWords.has(w) ? "" : w))
  const asked = rawWordsOf(rest)
  const mentions = mentionsIn(tokens, candidates)
  const covered = (at: number) => mentions.some((m) => m.start <= at && at < m.end)
  const missingMeasures = [...new Set(tokens.flatMap((t, at) => (measureWords.has(t) && !covered(at) ? [asked[at]!] : [])))]
  const missingDimensions = [...new Set(tokens.flatMap((t, at) => {
    if (t !== "by" && t !== "per") return []
    let next = at + 1
    while (tokens[next] === "the" || tokens[next] === "a" || tokens[next] === "an" || tokens[next] === "each") next++
    const word = tokens[next]
    // A value ("by EU"), a granularity or another stop word ("per month"), a member, or a measure word refused already.
    return word === undefined || word === "" || stopWords.has(word) || /^\d/.test(word) || covered(next) || measureWords.has(word) ? [] : [asked[next]!]
  }))]
  const exactMeasures = mentions.filter((m) => m.exact && m.candidate.kind === "measure")
  const measureMentions = exactMeasures.length > 0
    ? exactMeasures
    : mentions.filter((m) => !m.exact && m.candidate.kind === "measure").slice(0, 1)
  const countAsked = /\b(?:how many|number of|count of|count)\b/.test(lower)
  const dimensionMentions = mentions.filter((m) => m.candidate.kind === "dimension" && (m.exact || !mentions.some((o) => o.exact && o.start === m.start)))
  const timeMentioned = dimensionMentions.find((m) => m.candidate.dimension?.type === "time")?.candidate.name
  // "revenue by order day" asks for a series over that time dimension.
  const granularity = granularityIn(rest) ?? (timeMentioned === undefined ? undefined : "trend")
  const timeDimension = timeMentioned ?? timeDimensions[0]?.name

  const filters: Array<Reading["filters"][number]> = []
  const compared = new Set<string>()
  for (const member of new Set(named.map((v) => v.member))) {
    for (const excluded of [false, true]) {
      const chosen = [...new Set(named.filter((v) => v.member === member && v.excluded === excluded).map((v) => v.value))]
      if (chosen.length === 0) continue
      filters.push({ member, operator: excluded ? "not_equals" : "equals", values: chosen })
      // "EU vs US": each value is a row of the answer.
      if (!excluded && chosen.length > 1) compared.add(member)
    }
  }
  // "revenue for region EU" is one number: a dimension pinned to one value is no grouping, unless asked "by" it.
  const groupedAt = (at: number) => tokens.slice(0, at).some((t) => t === "by" || t === "per" || t === "each" || t === "every")
  const pinned = new Set(filters.filter((f) => f.operator === "equals" && f.values.length === 1).map((f) => f.member))
  const dimensions = [...new Set([
    ...dimensionMentions
      .filter((m) => m.candidate.dimension?.type !== "time" && (!pinned.has(m.candidate.name) || groupedAt(m.start)))
      .map((m) => m.candidate.name),
    ...compared
  ])]

  const top = /\b(top|bottom|first|last)\s+(\d{1,4}|one|two|three|four|five|six|seven|eight|nine|ten|twelve|twenty)\b/.exec(rest)
  const superlative: "asc" | "desc" | undefined = /\b(highest|most|largest|biggest|best|greatest|top|maximum|max)\b/.test(rest)
    ? "desc"
    : /\b(lowest|least|smallest|fewest|worst|bottom|minimum|min)\b/.test(rest)
    ? "asc"
    : undefined
  const rank = top !== null
    ? { direction: top[1] === "bottom" || top[1] === "last" ? "asc" as const : "desc" as const, limit: numberWords[top[2]!] ?? Number(top[2]) }
    : superlative !== undefined && dimensions.length > 0
    ? { direction: superlative, limit: /\b(?:top|bottom)\b/.test(rest) ? 5 : 1 }
    : undefined
  return {
    measures: [...new Set(measureMentions.map((m) => m.candidate.name))],
    dimensions,
    filters,
    range: dated?.range,
    granularity,
    timeDimension,
    rank: rank !== undefined && rank.limit >= 1 ? rank : undefined,
    countAsked,
    missingMeasures,
    missingDimensions
  }
}

/** The member's title (`SemanticQuery.titleOf`), capitalised even when the model's is not. */
const titleOf = (member: { readonly name: string; readonly title?: string | undefined }) => {
  const text = SemanticQuery.titleOf(member)
  return text.charAt(0).toUpperCase() + text.slice(1)
}

const lowerTitle = (member: { readonly name: string; readonly title?: string | undefined }) => {
  const title = titleOf(member)
  return /^[A-Z][a-z]/.test(title) ? title.charAt(0).toLowerCase() + title.slice(1) : title
}

/** A question the dataset can answer: its first measure, by its first dimension, last month. */
const exampleOf = (model: Model): string => {
  const dimension = model.dimensions.find((d) => d.type !== "time")
  return [
    model.measures[0] === undefined ? "" : lowerTitle(model.measures[0]),
    dimension === undefined ? "" : `by ${lowerTitle(dimension)}`,
    model.dimensions.some((d) => d.type === "time") ? "last month" : ""
  ].filter((p) => p !== "").join(" ")
}

/**
 * Why a question naming members the dataset lacks is refused: "This dataset
 * has no measure for revenue; it has: count and total ticket id.", the same
 * for dimensions, and an example it can answer.
 */
const missingReason = (model: Model, reading: Reading): string | undefined => {
  if (reading.missingMeasures.length === 0 && reading.missingDimensions.length === 0) return undefined
  const dimensions = model.dimensions.filter((d) => d.type !== "time").map(lowerTitle)
  const sentences = [
    reading.missingMeasures.length === 0
      ? ""
      : `This dataset has no measure for ${list(reading.missingMeasures, "or")}; ${
        model.measures.length === 0 ? "it has none." : `it has: ${list(model.measures.map(lowerTitle))}.`
      }`,
    reading.missingDimensions.length === 0
      ? ""
      : `${reading.missingMeasures.length === 0 ? "This dataset has" : "It has"} no dimension for ${list(reading.missingDimensions, "or")}; ${
        dimensions.length === 0 ? "it has none to group by." : `it has: ${list(dimensions)}.`
      }`,
    model.measures.length === 0 ? "" : `For example: "${exampleOf(model)}".`
  ]
  return sentences.filter((s) => s !== "").join(" ")
}

/** What the dataset can answer, in words, with an example question. */
export const capabilities = (model: Model): string => {
  const measures = model.measures.map(lowerTitle)
  const dimensions = model.dimensions.filter((d) => d.type !== "time").map(lowerTitle)
  const time = model.dimensions.find((d) => d.type === "time")
  const example = exampleOf(model)
  return [
    measures.length === 0 ? "This dataset has no measures to ask about." : `This dataset can answer questions about ${list(measures)}`,
    dimensions.length === 0 ? "" : ` by ${list(dimensions, "or")}`,
    time === undefined ? "" : `, over ${lowerTitle(time)} (per day, week, month…; last month, in 2025, last 3 months…)`,
    measures.length === 0 ? "" : `. For example: "${example}".`
  ].join("")
}

const list = (items: ReadonlyArray<string>, last = "and") =>
  items.length <= 1 ? items.join("") : `${items.slice(0, -1).join(", ")} ${last} ${items[items.length - 1]}`

/** The visual that shows a query's columns best: a number, bars for one dimension, a line over time, else a table. */
export const suggestVisual = (columns: ReadonlyArray<Pick<Column, "name" | "kind">>): SuggestedVisual => {
  const measures = columns.filter((c) => c.kind === "measure").map((c) => c.name)
  const dimensions = columns.filter((c) => c.kind === "dimension").map((c) => c.name)
  const time = columns.filter((c) => c.kind === "time_dimension").map((c) => c.name)
  if (measures.length === 1 && dimensions.length === 0 && time.length === 0) return { type: "kpi", encoding: { value: measures[0]! } }
  if (measures.length > 0 && time.length === 1 && dimensions.length <= 1) {
    return { type: "line", encoding: { x: time[0]!, y: measures, ...(dimensions.length === 1 ? { series: dimensions[0]! } : {}) } }
  }
  if (measures.length > 0 && dimensions.length === 1 && time.length === 0) return { type: "bar", encoding: { x: dimensions[0]!, y: measures } }
  return { type: "table", encoding: { columns: columns.map((c) => c.name) } }
}

/** The query a reading becomes, or why there is none. */
const queryOf = (reading: Reading, question: Question): Plan => {
  const model = question.dataset.model
  // Never a guess on another member: a question naming what the dataset lacks is refused, saying what it has.
  const missing = missingReason(model, reading)
  if (missing !== undefined) return { _tag: "CannotAnswer", reason: missing }
  let measures = reading.measures
  if (measures.length === 0 && reading.countAsked) {
    const count = model.measures.find((m) => m.aggregation === "count")
    if (count !== undefined) measures = [count.name]
  }
  if (measures.length === 0) {
    return {
      _tag: "CannotAnswer",
      reason: `I could not tell which measure the question asks about. ${capabilities(model)}`
    }
  }
  const wantsTime = reading.range !== undefined || reading.granularity !== undefined
  if (wantsTime && reading.timeDimension === undefined) {
    return { _tag: "CannotAnswer", reason: `This dataset has no time dimension to answer "when" with. ${capabilities(model)}` }
  }
  const granularity = reading.granularity === "trend" ? granularityFor(reading.range, question.now) : reading.granularity
  const time = reading.timeDimension !== undefined && wantsTime
    ? [{
      dimension: reading.timeDimension,
      ...(granularity === undefined ? {} : { granularity }),
      ...(reading.range === undefined ? {} : { date_range: reading.range })
    }]
    : []
  const timeColumn = granularity === undefined || reading.timeDimension === undefined ? undefined : `${reading.timeDimension}__${granularity}`
  const order = reading.rank !== undefined
    ? [{ member: measures[0]!, direction: reading.rank.direction }]
    : timeColumn !== undefined
    ? [{ member: timeColumn, direction: "asc" as const }, ...reading.dimensions.map((d) => ({ member: d, direction: "asc" as const }))]
    : reading.dimensions.length > 0
    ? [{ member: measures[0]!, direction: "desc" as const }]
    : undefined
  const query: Query = {
    measures,
    ...(reading.dimensions.length === 0 ? {} : { dimensions: reading.dimensions }),
    ...(time.length === 0 ? {} : { time_dimensions: time }),
    ...(reading.filters.length === 0 ? {} : { filters: reading.filters }),
    ...(order === undefined ? {} : { order }),
    ...(reading.rank === undefined ? {} : { limit: reading.rank.limit })
  }
  const columns = [
    ...reading.dimensions.map((name) => ({ name, kind: "dimension" as const })),
    ...(timeColumn === undefined ? [] : [{ name: timeColumn, kind: "time_dimension" as const }]),
    ...measures.map((name) => ({ name, kind: "measure" as const }))
  ]
  return { _tag: "Query", query, visual: suggestVisual(columns) }
}

/**
 * Plans a question: its measures, dimensions, time range, granularity,
 * filters and ranking. A follow-up that names no measure ("and by
 * product?") takes the measures, and what it does not say again, from the
 * latest question of the conversation that named one.
 */
export const plan = (question: Question): Plan => {
  const { model } = question.dataset
  const reading = read(question.text, model, question.values, question.now)
  if (reading.measures.length > 0 || reading.countAsked || reading.missingMeasures.length > 0) return queryOf(reading, question)
  const previous = [...question.context]
    .reverse()
    .filter((turn) => turn.role === "user")
    .map((turn) => read(turn.content, model, question.values, question.now))
    .find((r) => r.measures.length > 0)
  if (previous === undefined) return queryOf(reading, question)
  return queryOf({
    ...reading,
    measures: previous.measures,
    dimensions: reading.dimensions.length > 0 ? reading.dimensions : previous.dimensions,
    filters: reading.filters.length > 0 ? reading.filters : previous.filters,
    range: reading.range ?? previous.range,
    granularity: reading.granularity ?? previous.granularity,
    rank: reading.rank ?? previous.rank
  }, question)
}

// ---------------------------------------------------------------------------
// answers

const numberFormat = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 })

/** Formatters by declared format: a model declares few, and making one costs far more than using it. */
const formatters = new Map<string, Intl.NumberFormat>()

/** The `Intl.NumberFormat` a measure's declared format reads as in words (`€1,234.50`, `12.5%`); grouped, at most two decimals without one. */
const formatterOf = (format: MeasureFormat | undefined): Intl.NumberFormat => {
  if (format === undefined) return numberFormat
  const key = JSON.stringify(format)
  let formatter = formatters.get(key)
  if (formatter === undefined) {
    const digits = format.decimals === undefined ? {} : { minimumFractionDigits: format.decimals, maximumFractionDigits: format.decimals }
    formatter = new Intl.NumberFormat("en-US", format.type === "currency"
      ? { style: "currency", currency: format.currency, ...digits }
      : format.type === "percent"
      ? { style: "percent", maximumFractionDigits: format.decimals ?? 0, ...digits }
      : { maximumFractionDigits: 2, ...digits })
    formatters.set(key, formatter)
  }
  return formatter
}

/** A cell as words: numbers grouped, in the measure's declared format (a currency, a percentage) when it has one, else at most two decimals. */
const formatValue = (value: Row[string] | undefined, format?: MeasureFormat): string =>
  value === null || value === undefined
    ? "no value"
    : typeof value === "number"
    ? formatterOf(format).format(value)
    : typeof value === "boolean"
    ? (value ? "yes" : "no")
    : value

/** A time bucket as words: "2026-10" for a month, "2026 Q3", "week of 2026-10-05". */
const formatTime = (value: Row[string] | undefined, granularity: DateRange.Granularity | undefined): string => {
  if (typeof value !== "string") return formatValue(value)
  const day = value.slice(0, 10)
  switch (granularity) {
    case "year":
      return value.slice(0, 4)
    case "quarter":
      return `${value.slice(0, 4)} Q${Math.floor((Number(value.slice(5, 7)) - 1) / 3) + 1}`
    case "month":
      return value.slice(0, 7)
    case "week":
      return `week of ${day}`
    case "day":
      return day
    default:
      return value
  }
}

/** A date range as words: "October 2026", "2025", "2025 Q3", "2026-11-23", or "from … to …". */
export const describeRange = (range: DateRangeValue, now: Date): string => {
  const resolved = DateRange.resolve(range, now)
  if (typeof resolved === "string") return typeof range === "string" ? range : `${range[0]} to ${range[1]}`
  const { end, start } = resolved
  const last = new Date(end.getTime() - 1)
  const midnight = (d: Date) => d.getTime() % 86_400_000 === 0
  if (!midnight(start) || !midnight(end)) return `${start.toISOString()} to ${end.toISOString()}`
  const y = start.getUTCFullYear()
  const firstOfMonth = start.getUTCDate() === 1
  const months_ = (end.getUTCFullYear() - y) * 12 + end.getUTCMonth() - start.getUTCMonth()
  if (firstOfMonth && end.getUTCDate() === 1) {
    if (months_ === 12 && start.getUTCMonth() === 0) return String(y)
    if (months_ === 3 && start.getUTCMonth() % 3 === 0) return `${y} Q${start.getUTCMonth() / 3 + 1}`
    if (months_ === 1) return `${months[start.getUTCMonth()]!.charAt(0).toUpperCase()}${months[start.getUTCMonth()]!.slice(1)} ${y}`
  }
  if (end.getTime() - start.getTime() === 86_400_000) return isoDay(start)
  return `${isoDay(start)} to ${isoDay(last)}`
}

/** The answer's heading: "Revenue by region for October 2026 (region: EU, US)". */
const headingOf = (question: Question, result: Result): string => {
  const { model } = question.dataset
  const member = (name: string) => model.measures.find((m) => m.name === name) ?? model.dimensions.find((d) => d.name === name) ?? { name }
  const query = result.query
  const measures = (query.measures ?? []).map((m, i) => (i === 0 ? titleOf(member(m)) : lowerTitle(member(m))))
  const by = [
    ...(query.dimensions ?? []).map((d) => lowerTitle(member(d))),
    ...(query.time_dimensions ?? []).flatMap((t) => (t.granularity === undefined ? [] : [t.granularity]))
  ]
  const range = (query.time_dimensions ?? []).find((t) => t.date_range !== undefined)?.date_range
  const filters = (query.filters ?? []).flatMap((f) =>
    "member" in f && (f.operator === "equals" || f.operator === "not_equals")
      ? [`${lowerTitle(member(f.member))}${f.operator === "not_equals" ? " not" : ""}: ${(f.values ?? []).map(String).join(", ")}`]
      : []
  )
  // A ranking only when the limit cut the rows (the service caps every answer's rows, which ranks nothing).
  const ranked = query.limit !== undefined && query.limit <= result.rows.length && (query.order ?? []).length > 0 && (query.dimensions ?? []).length > 0
    ? `${(query.order ?? [])[0]!.direction === "asc" ? "Bottom" : "Top"} ${query.limit} ${by.join(" and ")} by ${measures.join(", ").toLowerCase()}`
    : undefined
  return [
    ranked ?? `${list(measures)}${by.length === 0 ? "" : ` by ${by.join(" and ")}`}`,
    range === undefined ? "" : ` for ${describeRange(range, question.now)}`,
    filters.length === 0 ? "" : ` (${filters.join("; ")})`
  ].join("")
}

/** How many rows an answer lists before it summarises the rest. */
const listedRows = 12

/**
 * Words an answer from the rows, in sentences: the heading and the numbers,
 * then the largest (or the latest, over time). Every number comes from a row.
 */
export const narrate = (question: Question, result: Result): ReadonlyArray<string> => {
  const heading = headingOf(question, result)
  const { columns, rows } = result
  if (rows.length === 0) {
    return [`${heading}: there are no rows you can see that match.`]
  }
  const measures = columns.filter((c) => c.kind === "measure")
  const labels = columns.filter((c) => c.kind !== "measure")
  const labelOf = (row: Row) =>
    labels.map((c) => (c.kind === "time_dimension" ? formatTime(row[c.name], c.granularity) : formatValue(row[c.name]))).join(", ")
  const numbersOf = (row: Row) =>
    measures.length === 1
      ? formatValue(row[measures[0]!.name], measures[0]!.format)
      : measures.map((m) => `${lowerTitle(m)} ${formatValue(row[m.name], m.format)}`).join(", ")
  if (labels.length === 0) return [`${heading}: ${numbersOf(rows[0]!)}.`]
  const shown = rows.slice(0, listedRows).map((row) => `${labelOf(row)} ${numbersOf(row)}`)
  const sentences = [`${heading}: ${shown.join("; ")}${rows.length > listedRows ? `; and ${rows.length - listedRows} more` : ""}.`]
  const first = measures[0]
  if (first !== undefined && rows.length > 1) {
    const numeric = rows.filter((row) => typeof row[first.name] === "number")
    if (numeric.length > 1) {
      const largest = numeric.reduce((a, b) => ((b[first.name] as number) > (a[first.name] as number) ? b : a))
      const smallest = numeric.reduce((a, b) => ((b[first.name] as number) < (a[first.name] as number) ? b : a))
      const what = lowerTitle(first)
      sentences.push(` The largest ${what} is ${labelOf(largest)} (${formatValue(largest[first.name], first.format)}); the smallest, ${labelOf(smallest)} (${formatValue(smallest[first.name], first.format)}).`)
    }
  }
  return sentences
}

/** The built-in answerer, as the `Answerer` service. */
export const layer: Layer.Layer<Answerer> = Layer.succeed(Answerer, {
  plan: (question) => Effect.sync(() => plan(question)),
  narrate: (question, result) => Stream.fromIterable(narrate(question, result))
})
