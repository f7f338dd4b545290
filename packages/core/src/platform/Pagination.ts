/**
 * Keyset pagination shared by every list endpoint (decision 0003).
 *
 * A list asks its store for `limit + 1` rows after the keyset position, in
 * the requested order, created no later than the snapshot bound; the extra row
 * tells whether there is a next page. The order is always the sort field, then
 * the primary key ascending, so it is total and stable.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Schema } from "effect"
import { sha256Hex } from "./Crypto.ts"
import { type CursorError, CursorCodec, type CursorPayload } from "./Cursor.ts"
import { type Issue, TaggedFailure } from "./Errors.ts"

/** Page size bounds and default (decision 0003). */
export const limits = { min: 1, max: 500, default: 50 } as const

/** The `limit` query parameter: an integer from 1 to 500, 50 when absent. */
export const Limit = Schema.Int.check(Schema.isBetween({ minimum: limits.min, maximum: limits.max })).annotate({
  description: "Page size, 1 to 500",
  default: limits.default
})

/** The `cursor` query parameter. */
export const CursorParam = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(4096)).annotate({
  description: "Opaque cursor copied unchanged from the previous page's next_cursor; omit it for the first page"
})

/** A sort order: one field, ascending or descending; ties broken by id ascending. */
export interface SortOrder<Field extends string = string> {
  readonly field: Field
  readonly direction: "asc" | "desc"
}

/**
 * A snapshot bound later than any record, for reading every page of a list
 * outside a request: the last instant of year 9999, which every database
 * stores (JavaScript's own last date, in year 275760, PostgreSQL refuses).
 */
export const endOfTime = new Date("9999-12-31T23:59:59.999Z")

/** The position after which the next page starts: the last row's sort value and id. */
export interface Keyset {
  readonly value: string | number
  readonly id: string
}

/** What a store is asked for. */
export interface PageQuery<Field extends string = string> {
  /** Rows to return: the page size plus one. */
  readonly take: number
  readonly sort: SortOrder<Field>
  /** Start strictly after this position, when present. */
  readonly after: Keyset | undefined
  /** Only rows created at or before this instant. */
  readonly createdAtOrBefore: Date
}

/** The list envelope of decision 0003. */
export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly page: {
    readonly limit: number
    readonly next_cursor: string | null
    readonly has_more: boolean
  }
}

/** The `sort` parameter names a field this list cannot be sorted by. */
export class InvalidSort extends TaggedFailure("InvalidSort")<{
  readonly sort: string
  readonly allowed: ReadonlyArray<string>
}> {
  /** The sentence its problem says: the issue says what is wrong. */
  get problemDetail(): string {
    return "The request failed validation; see errors"
  }
  /** The `sort` parameter, and the sorts there are. */
  get issue(): Issue {
    return { path: ["query", "sort"], message: `Expected one of ${this.allowed.join(", ")}` }
  }
  readonly code = "request/invalid" as const
}

/** Formats a sort as the `sort` parameter spells it: `field` ascending, `-field` descending. */
export const formatSort = (sort: SortOrder): string => (sort.direction === "desc" ? `-${sort.field}` : sort.field)

/** The sort the `sort` parameter names among the fields a list allows, or why not. */
const sortOf = <Field extends string>(
  input: string | undefined,
  allowed: ReadonlyArray<Field>,
  fallback: SortOrder<Field>
): SortOrder<Field> | InvalidSort => {
  if (input === undefined) return fallback
  const direction = input.startsWith("-") ? "desc" : "asc"
  const field = direction === "desc" ? input.slice(1) : input
  return (allowed as ReadonlyArray<string>).includes(field)
    ? { field: field as Field, direction }
    : new InvalidSort({ sort: input, allowed })
}

/** Parses the `sort` parameter against the fields a list allows. */
export const parseSort = <Field extends string>(
  input: string | undefined,
  allowed: ReadonlyArray<Field>,
  fallback: SortOrder<Field>
): Effect.Effect<SortOrder<Field>, InvalidSort> => {
  const sort = sortOf(input, allowed, fallback)
  return sort instanceof InvalidSort ? Effect.fail(sort) : Effect.succeed(sort)
}

/**
 * The canonical form of a query string that a cursor binds: every parameter
 * except `cursor` (`limit` included: a cursor continues the walk it was
 * issued for, page size and all; decision 0003), sorted by name then value,
 * percent-encoded.
 */
export const canonicalQuery = (params: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>): string => {
  const pairs: Array<[string, string]> = []
  for (const [name, value] of Object.entries(params)) {
    if (name === "cursor" || value === undefined) continue
    for (const v of typeof value === "string" ? [value] : value) pairs.push([name, v])
  }
  pairs.sort(([a, x], [b, y]) => (a < b ? -1 : a > b ? 1 : x < y ? -1 : x > y ? 1 : 0))
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&")
}

/** One list request, as the HTTP adapter hands it to `paginate`. */
export interface ListRequest<Field extends string> {
  /** The endpoint the cursor binds, e.g. `GET /v1/workspaces`. */
  readonly endpoint: string
  /** The query parameters of the request (the cursor binds all but `cursor`). */
  readonly params: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  /** The caller's tenant: a cursor continues its own tenant's list only. */
  readonly tenant: string
  readonly limit: number | undefined
  readonly cursor: string | undefined
  readonly sort: string | undefined
  readonly sortable: ReadonlyArray<Field>
  readonly defaultSort: SortOrder<Field>
}

/**
 * The SHA-256 (hex) of canonical query strings already seen: a list is asked
 * with a handful of query strings (`limit=20`...), each hashed once rather
 * than per page. Bounded: emptied when full.
 */
const queryHashes = new Map<string, string>()
const queryHashCapacity = 1024

/** SHA-256 (hex) of a canonical query string, remembered (`queryHashes`). */
const queryHash = (canonical: string): Effect.Effect<string> => {
  const known = queryHashes.get(canonical)
  if (known !== undefined) return Effect.succeed(known)
  return Effect.map(sha256Hex(canonical), (hash) => {
    if (queryHashes.size >= queryHashCapacity) queryHashes.clear()
    queryHashes.set(canonical, hash)
    return hash
  })
}

/**
 * Runs one page of a keyset-paginated list: checks the cursor, asks the store
 * for `limit + 1` rows and issues the next cursor. Written as a few chained
 * steps rather than a generator: it runs on every list request.
 */
export const paginate = <A, Field extends string, E, R>(
  request: ListRequest<Field>,
  fetch: (query: PageQuery<Field>) => Effect.Effect<ReadonlyArray<A>, E, R>,
  keyOf: (row: A, field: Field) => Keyset
): Effect.Effect<Page<A>, E | CursorError | InvalidSort, R | CursorCodec> =>
  Effect.flatMap(CursorCodec, (codec) =>
    Effect.flatMap(queryHash(canonicalQuery(request.params)), (query) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const limit = request.limit ?? limits.default
        /** The page after `after` (none: the first) in `sort`, of rows created by `snapshot`, and the next cursor. */
        const page = (
          sort: SortOrder<Field> | InvalidSort,
          after: Keyset | undefined,
          snapshot: number
        ): Effect.Effect<Page<A>, E | CursorError | InvalidSort, R> => {
          if (sort instanceof InvalidSort) return Effect.fail(sort)
          return Effect.flatMap(fetch({ take: limit + 1, sort, after, createdAtOrBefore: new Date(snapshot) }), (rows) => {
            if (rows.length <= limit) return Effect.succeed<Page<A>>({ data: rows, page: { limit, next_cursor: null, has_more: false } })
            const data = rows.slice(0, limit)
            const last = keyOf(data[data.length - 1]!, sort.field)
            const payload: CursorPayload = {
              v: 2,
              e: request.endpoint,
              q: query,
              n: request.tenant,
              s: formatSort(sort),
              k: [last.value, last.id],
              b: snapshot,
              t: now
            }
            return Effect.map(codec.encode(payload), (next): Page<A> => ({ data, page: { limit, next_cursor: next, has_more: true } }))
          })
        }
        if (request.cursor === undefined) return page(sortOf(request.sort, request.sortable, request.defaultSort), undefined, now)
        const binding = { endpoint: request.endpoint, query, tenant: request.tenant }
        // The sort is part of the bound query string; the payload repeats it for readers.
        return Effect.flatMap(codec.decode(request.cursor, binding), (payload) =>
          page(sortOf(payload.s, request.sortable, request.defaultSort), { value: payload.k[0], id: payload.k[1] }, payload.b))
      })))

/** A request of a list that has one order, newest first (`created_at` descending, then id). */
export type NewestFirstRequest = Omit<ListRequest<"created_at">, "sortable" | "defaultSort" | "sort">

/** `paginate` for a list that has one order, newest first. */
export const paginateNewestFirst = <A, E, R>(
  request: NewestFirstRequest,
  fetch: (query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<A>, E, R>,
  keyOf: (row: A) => Keyset
): Effect.Effect<Page<A>, E | CursorError | InvalidSort, R | CursorCodec> =>
  paginate(
    { ...request, sort: undefined, sortable: ["created_at"], defaultSort: { field: "created_at", direction: "desc" } },
    fetch,
    keyOf
  )

/**
 * Every row a store lists, newest first, read a page at a time: for the
 * rare sweeps that must see all of a tenant's rows (a deprovisioning).
 */
export const everyRow = <A, E, R>(
  fetch: (query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<A>, E, R>,
  keyOf: (row: A) => Keyset,
  now: Date
): Effect.Effect<ReadonlyArray<A>, E, R> =>
  Effect.gen(function*() {
    const take = 200
    const rows: Array<A> = []
    let after: Keyset | undefined
    while (true) {
      const page = yield* fetch({ take, sort: { field: "created_at", direction: "desc" }, after, createdAtOrBefore: now })
      rows.push(...page)
      if (page.length < take) return rows
      after = keyOf(page[page.length - 1]!)
    }
  })

/**
 * Compares strings by Unicode code point, as PostgreSQL's `COLLATE "C"` on
 * UTF-8 does (`<` compares UTF-16 code units, which puts U+E000..U+FFFF after
 * the supplementary planes).
 */
export const compareCodePoints = (a: string, b: string): number => {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i)
    let y = b.charCodeAt(i)
    if (x === y) continue
    // shift surrogates above the rest of the BMP so code-unit order becomes code-point order
    x = x >= 0xd800 && x <= 0xdfff ? x + 0x2000 : x >= 0xe000 ? x - 0x800 : x
    y = y >= 0xd800 && y <= 0xdfff ? y + 0x2000 : y >= 0xe000 ? y - 0x800 : y
    return x < y ? -1 : 1
  }
  return a.length - b.length
}

/** The order of keysets under a sort direction: the sort value (strings by code point), then id ascending. */
const compareKeysets = (direction: SortOrder["direction"]) => {
  const sign = direction === "asc" ? 1 : -1
  return (a: Keyset, b: Keyset): number => {
    if (a.value !== b.value) {
      const order = typeof a.value === "string" && typeof b.value === "string"
        ? compareCodePoints(a.value, b.value)
        : a.value < b.value ? -1 : 1
      return Math.sign(order) * sign
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  }
}

/**
 * Rows in the order a store must list them under `sort` (sort field, then id
 * ascending). Each row's keyset is computed once, not per comparison.
 */
export const sortInMemory = <A, Field extends string>(
  rows: Iterable<A>,
  sort: SortOrder<Field>,
  keyOf: (row: A, field: Field) => Keyset
): Array<A> => {
  const compare = compareKeysets(sort.direction)
  const keyed: Array<{ readonly row: A; readonly key: Keyset }> = []
  for (const row of rows) keyed.push({ row, key: keyOf(row, sort.field) })
  keyed.sort((a, b) => compare(a.key, b.key))
  return keyed.map((entry) => entry.row)
}

/**
 * Applies a page query to rows already in `sortInMemory` order: the rows
 * strictly after the keyset position, created no later than the bound, at
 * most `take` of them.
 */
export const pageOfSorted = <A, Field extends string>(
  sorted: ReadonlyArray<A>,
  query: PageQuery<Field>,
  keyOf: (row: A, field: Field) => Keyset,
  createdAt: (row: A) => Date
): Array<A> => {
  const compare = compareKeysets(query.sort.direction)
  const after = query.after
  // The first row past the keyset position, by binary search over the sorted rows.
  let start = 0
  if (after !== undefined) {
    let end = sorted.length
    while (start < end) {
      const middle = (start + end) >>> 1
      if (compare(keyOf(sorted[middle], query.sort.field), after) <= 0) start = middle + 1
      else end = middle
    }
  }
  const bound = query.createdAtOrBefore.getTime()
  const out: Array<A> = []
  for (let i = start; i < sorted.length && out.length < query.take; i++) {
    if (createdAt(sorted[i]).getTime() <= bound) out.push(sorted[i])
  }
  return out
}

/**
 * Orders rows the way a store must (sort field, then id ascending) and applies
 * a page query in memory: the reference semantics every store follows.
 */
export const applyInMemory = <A, Field extends string>(
  rows: Iterable<A>,
  query: PageQuery<Field>,
  keyOf: (row: A, field: Field) => Keyset,
  createdAt: (row: A) => Date
): Array<A> => pageOfSorted(sortInMemory(rows, query.sort, keyOf), query, keyOf, createdAt)
