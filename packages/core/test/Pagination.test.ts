import { assert, describe, it } from "@effect/vitest"
import { Cause, Clock, Duration, Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import { CursorCodec, makeCodec } from "../src/platform/Cursor.ts"
import {
  applyInMemory,
  canonicalQuery,
  formatSort,
  type Keyset,
  limits,
  type ListRequest,
  type Page,
  type PageQuery,
  paginate,
  parseSort,
  type SortOrder
} from "../src/platform/Pagination.ts"

// ---------------------------------------------------------------------------
// An in-memory "table" and a list endpoint over it

type Field = "created_at" | "name"

interface Row {
  readonly id: string
  readonly name: string
  readonly createdAt: number
}

const keyOf = (row: Row, field: Field): Keyset => ({
  value: field === "created_at" ? row.createdAt : row.name,
  id: row.id
})

const endpoint = "GET /v1/things"
const tenant = "0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"
const sortable: ReadonlyArray<Field> = ["created_at", "name"]
const defaultSort: SortOrder<Field> = { field: "created_at", direction: "desc" }

/** The clock at the start of every walk; every seeded row is older. */
const start = 1_767_225_600_000

const names = ["delta", "Alpha", "beta", "beta", "alpha", "Zulu", "beta", "echo", "\u00e9clair", "delta"]

/** 20 rows: ids not in insertion order, created_at in groups of 3 equal values, names with duplicates. */
const seed = (): Array<Row> =>
  Array.from({ length: 20 }, (_, i) => ({
    id: `row-${String((i * 7) % 20).padStart(2, "0")}`,
    name: names[i % names.length],
    createdAt: start - 100_000 + Math.floor(i / 3) * 1_000
  }))

/** The order a list must follow, written independently of `applyInMemory`: sort value, then id ascending. */
const expectedOrder = (rows: ReadonlyArray<Row>, sort: SortOrder<Field>): Array<string> =>
  [...rows]
    .sort((a, b) => {
      const byValue = sort.field === "created_at"
        ? a.createdAt - b.createdAt
        : a.name === b.name
        ? 0
        : a.name < b.name
        ? -1
        : 1
      if (byValue !== 0) return sort.direction === "asc" ? byValue : -byValue
      return a.id < b.id ? -1 : 1
    })
    .map((r) => r.id)

interface Table {
  rows: Array<Row>
  readonly queries: Array<PageQuery<Field>>
}

const table = (rows: Array<Row> = seed()): Table => ({ rows, queries: [] })

const fetchFrom = (t: Table) => (query: PageQuery<Field>) =>
  Effect.sync(() => {
    t.queries.push(query)
    return applyInMemory(t.rows, query, keyOf, (r) => new Date(r.createdAt))
  })

/** One request as the HTTP adapter builds it: the raw params include `cursor`, `limit` and `sort`. */
const request = (options: {
  readonly limit?: number | undefined
  readonly cursor?: string | undefined
  readonly sort?: string | undefined
  readonly extra?: Record<string, string | ReadonlyArray<string>>
  readonly endpoint?: string
  readonly tenant?: string
}): ListRequest<Field> => {
  const params: Record<string, string | ReadonlyArray<string>> = { ...options.extra }
  if (options.sort !== undefined) params.sort = options.sort
  if (options.limit !== undefined) params.limit = String(options.limit)
  if (options.cursor !== undefined) params.cursor = options.cursor
  return {
    endpoint: options.endpoint ?? endpoint,
    params,
    tenant: options.tenant ?? tenant,
    limit: options.limit,
    cursor: options.cursor,
    sort: options.sort,
    sortable,
    defaultSort
  }
}

const page = (t: Table, req: ListRequest<Field>): Effect.Effect<Page<Row>, unknown, CursorCodec> =>
  paginate(req, fetchFrom(t), keyOf)

const codecLayer = Layer.effect(CursorCodec, makeCodec(Uint8Array.from({ length: 32 }, (_, i) => i * 3)))

const withCodec = <A, E>(effect: Effect.Effect<A, E, CursorCodec>) => Effect.provide(effect, codecLayer)

/**
 * Walks a list to the end. Before each next page, `between` may change the
 * table or the clock, and `limitOf` picks the page size.
 */
const walk = (
  t: Table,
  options: {
    readonly sort?: string | undefined
    readonly limitOf: (pageIndex: number) => number | undefined
    readonly between?: (pageIndex: number, seen: ReadonlyArray<Row>) => Effect.Effect<void>
  }
) =>
  Effect.gen(function*() {
    const pages: Array<Page<Row>> = []
    let cursor: string | undefined
    for (let i = 0; i < 1_000; i++) {
      const limit = options.limitOf(i)
      const p = yield* page(t, request({ limit, sort: options.sort, cursor }))
      pages.push(p)
      // the envelope is consistent on every page
      assert.strictEqual(p.page.has_more, p.page.next_cursor !== null)
      assert.strictEqual(p.page.limit, limit ?? limits.default)
      assert.isAtMost(p.data.length, p.page.limit)
      if (p.page.has_more) assert.strictEqual(p.data.length, p.page.limit)
      if (p.page.next_cursor === null) return pages
      cursor = p.page.next_cursor
      yield* TestClock.adjust(Duration.seconds(1))
      if (options.between) yield* options.between(i, pages.flatMap((x) => x.data))
    }
    throw new Error("the walk did not end")
  })

const idsOf = (pages: ReadonlyArray<Page<Row>>) => pages.flatMap((p) => p.data.map((r) => r.id))

const sorts: ReadonlyArray<string> = ["created_at", "-created_at", "name", "-name"]

const parsed = (sort: string): SortOrder<Field> =>
  sort.startsWith("-")
    ? { field: sort.slice(1) as Field, direction: "desc" }
    : { field: sort as Field, direction: "asc" }

/** The typed failure of an effect that must fail; a defect or a success fails the test. */
const failureOf = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) return Effect.die(new Error("expected a failure, got a success"))
    const error = Cause.findErrorOption(exit.cause)
    return error._tag === "Some" ? Effect.succeed(error.value) : Effect.die(new Error(Cause.pretty(exit.cause)))
  })

// ---------------------------------------------------------------------------

describe("Pagination.canonicalQuery", () => {
  it("ignores the cursor, keeps the limit", () => {
    assert.strictEqual(canonicalQuery({ sort: "-name", cursor: "abc", limit: "5" }), "limit=5&sort=-name")
    assert.strictEqual(canonicalQuery({ cursor: "abc" }), "")
    assert.strictEqual(canonicalQuery({ cursor: "abc", limit: "5" }), "limit=5")
    assert.strictEqual(canonicalQuery({}), "")
    assert.notStrictEqual(canonicalQuery({ sort: "-name", limit: "500" }), canonicalQuery({ sort: "-name" }))
    assert.notStrictEqual(canonicalQuery({ limit: "50" }), canonicalQuery({ limit: "5" }))
  })

  it("skips absent values", () => {
    assert.strictEqual(canonicalQuery({ sort: undefined, q: "x" }), "q=x")
  })

  it("is insensitive to parameter order", () => {
    const a = canonicalQuery({ sort: "name", q: "x", a: "1", z: "" })
    const b = canonicalQuery({ z: "", a: "1", q: "x", sort: "name" })
    assert.strictEqual(a, b)
    assert.strictEqual(a, "a=1&q=x&sort=name&z=")
  })

  it("keeps every value of a repeated parameter, sorted", () => {
    assert.strictEqual(canonicalQuery({ tag: ["b", "a", "c"] }), "tag=a&tag=b&tag=c")
    assert.strictEqual(canonicalQuery({ tag: ["c", "a", "b"] }), canonicalQuery({ tag: ["a", "b", "c"] }))
    assert.strictEqual(canonicalQuery({ tag: ["a", "a"] }), "tag=a&tag=a")
    assert.notStrictEqual(canonicalQuery({ tag: ["a", "a"] }), canonicalQuery({ tag: "a" }))
    assert.notStrictEqual(canonicalQuery({ tag: ["a", "b"] }), canonicalQuery({ tag: "a" }))
    assert.strictEqual(canonicalQuery({ tag: ["a"] }), canonicalQuery({ tag: "a" }))
    assert.strictEqual(canonicalQuery({ b: ["2", "1"], a: "3" }), "a=3&b=1&b=2")
  })

  it("percent-encodes names and values, so separators inside them cannot forge other parameters", () => {
    assert.strictEqual(canonicalQuery({ q: "a b&c=d/\u00e9?#+%" }), "q=a%20b%26c%3Dd%2F%C3%A9%3F%23%2B%25")
    assert.strictEqual(canonicalQuery({ "a&b": "1", "c=d": "2" }), "a%26b=1&c%3Dd=2")
    assert.strictEqual(canonicalQuery({ "😀": "☃" }), "%F0%9F%98%80=%E2%98%83")
    assert.notStrictEqual(canonicalQuery({ a: "1&b=2" }), canonicalQuery({ a: "1", b: "2" }))
    assert.notStrictEqual(canonicalQuery({ a: "1", b: "2" }), canonicalQuery({ "a": "1&b=2" }))
    assert.notStrictEqual(canonicalQuery({ a: "x,y" }), canonicalQuery({ a: ["x", "y"] }))
  })
})

describe("Pagination.parseSort", () => {
  const fallback: SortOrder<Field> = { field: "created_at", direction: "desc" }

  it.effect("absent gives the fallback; a field ascending; `-field` descending", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* parseSort(undefined, sortable, fallback), fallback)
      assert.deepStrictEqual(yield* parseSort("name", sortable, fallback), { field: "name", direction: "asc" })
      assert.deepStrictEqual(yield* parseSort("-name", sortable, fallback), { field: "name", direction: "desc" })
      assert.deepStrictEqual(yield* parseSort("created_at", sortable, fallback), {
        field: "created_at",
        direction: "asc"
      })
      assert.deepStrictEqual(yield* parseSort("-created_at", sortable, fallback), fallback)
    }))

  it.effect("an unknown field gives InvalidSort naming the input and the allowed fields", () =>
    Effect.gen(function*() {
      for (const input of ["title", "-title", "", "-", "--name", "+name", "Name", " name", "name ", "name,created_at"]) {
        const error = yield* Effect.flip(parseSort(input, sortable, fallback))
        assert.strictEqual(error._tag, "InvalidSort", JSON.stringify(input))
        assert.strictEqual(error.sort, input)
        assert.deepStrictEqual(error.allowed, sortable)
        assert.strictEqual(error.code, "request/invalid")
      }
    }))

  it.effect("formatSort is the inverse of parseSort", () =>
    Effect.gen(function*() {
      for (const s of sorts) assert.strictEqual(formatSort(yield* parseSort(s, sortable, defaultSort)), s)
    }))
})

describe("Pagination.applyInMemory", () => {
  it("orders by the sort value then id ascending, in both directions, after the keyset, within the bound", () => {
    const rows: Array<Row> = [
      { id: "c", name: "x", createdAt: 10 },
      { id: "a", name: "y", createdAt: 10 },
      { id: "b", name: "x", createdAt: 20 },
      { id: "d", name: "z", createdAt: 30 }
    ]
    const q = (sort: SortOrder<Field>, after?: Keyset, bound = 100, take = 10): PageQuery<Field> => ({
      take,
      sort,
      after,
      createdAtOrBefore: new Date(bound)
    })
    const run = (query: PageQuery<Field>) =>
      applyInMemory(rows, query, keyOf, (r) => new Date(r.createdAt)).map((r) => r.id)
    assert.deepStrictEqual(run(q({ field: "created_at", direction: "asc" })), ["a", "c", "b", "d"])
    assert.deepStrictEqual(run(q({ field: "created_at", direction: "desc" })), ["d", "b", "a", "c"])
    assert.deepStrictEqual(run(q({ field: "name", direction: "asc" })), ["b", "c", "a", "d"])
    assert.deepStrictEqual(run(q({ field: "name", direction: "desc" })), ["d", "a", "b", "c"])
    assert.deepStrictEqual(run(q({ field: "created_at", direction: "desc" }, { value: 10, id: "a" })), ["c"])
    assert.deepStrictEqual(run(q({ field: "created_at", direction: "asc" }, { value: 10, id: "a" })), ["c", "b", "d"])
    assert.deepStrictEqual(run(q({ field: "name", direction: "asc" }, { value: "x", id: "b" })), ["c", "a", "d"])
    assert.deepStrictEqual(run(q({ field: "created_at", direction: "asc" }, undefined, 20)), ["a", "c", "b"])
    assert.deepStrictEqual(run(q({ field: "created_at", direction: "asc" }, undefined, 100, 2)), ["a", "c"])
    // a keyset position whose row no longer exists still splits the order where it was
    assert.deepStrictEqual(run(q({ field: "created_at", direction: "asc" }, { value: 15, id: "zzz" })), ["b", "d"])
  })

  // PostgreSQL sorts names with COLLATE "C" (code points); UTF-16 `<` differs for astral vs U+E000..U+FFFF.
  it("names are ordered by code point, as the PostgreSQL store orders them", () => {
    const rows: Array<Row> = [
      { id: "1", name: "\u{1F600} party", createdAt: 1 },
      { id: "2", name: "\uFF21cme", createdAt: 1 }
    ]
    const asc = applyInMemory(
      rows,
      { take: 10, sort: { field: "name", direction: "asc" }, after: undefined, createdAtOrBefore: new Date(1) },
      keyOf,
      (r) => new Date(r.createdAt)
    )
    // U+FF21 < U+1F600 by code point (and by UTF-8 bytes)
    assert.deepStrictEqual(asc.map((r) => r.id), ["2", "1"])
  })
})

describe("Pagination.paginate", () => {
  it.effect.each([1, 2, 3, 4, 5, 6, 7])(
    "with limit %i, walks every sort over 20 rows with equal sort values: no duplicates, no skips",
    (limit) =>
      withCodec(Effect.gen(function*() {
        yield* TestClock.setTime(start)
        for (const sort of sorts) {
          const t = table()
          const pages = yield* walk(t, { sort, limitOf: () => limit })
          const ids = idsOf(pages)
          assert.deepStrictEqual(ids, expectedOrder(t.rows, parsed(sort)), sort)
          assert.strictEqual(new Set(ids).size, 20)
          assert.strictEqual(pages.length, Math.ceil(20 / limit), sort)
          const last = pages[pages.length - 1]
          assert.isNull(last.page.next_cursor)
          assert.isFalse(last.page.has_more)
          assert.isAbove(last.data.length, 0)
          for (const p of pages.slice(0, -1)) {
            assert.isString(p.page.next_cursor)
            assert.isTrue(p.page.has_more)
          }
          // the store is asked for one row more than the page size
          assert.isTrue(t.queries.every((q) => q.take === limit + 1))
        }
      }))
  )

  it.effect("the default sort is newest first, and an absent limit means 50", () =>
    withCodec(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const rows = Array.from({ length: 60 }, (_, i) => ({
        id: `id-${String(i).padStart(3, "0")}`,
        name: "n",
        createdAt: start - 1_000 + i
      }))
      const t = table(rows)
      const first = yield* page(t, request({}))
      assert.strictEqual(limits.default, 50)
      assert.strictEqual(first.page.limit, 50)
      assert.strictEqual(first.data.length, 50)
      assert.isTrue(first.page.has_more)
      assert.strictEqual(t.queries[0].take, 51)
      assert.deepStrictEqual(t.queries[0].sort, { field: "created_at", direction: "desc" })
      assert.deepStrictEqual(first.data.map((r) => r.id), expectedOrder(rows, defaultSort).slice(0, 50))
      const second = yield* page(t, request({ cursor: first.page.next_cursor ?? "" }))
      assert.strictEqual(second.data.length, 10)
      assert.isFalse(second.page.has_more)
      assert.isNull(second.page.next_cursor)
    })))

  it.effect("exactly `limit` rows left: the last full page has no next cursor, and there is no empty page", () =>
    withCodec(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const t = table()
      const pages = yield* walk(t, { sort: "name", limitOf: () => 10 })
      assert.deepStrictEqual(pages.map((p) => p.data.length), [10, 10])
      assert.isNull(pages[1].page.next_cursor)
      const single = yield* page(t, request({ limit: 20 }))
      assert.strictEqual(single.data.length, 20)
      assert.isFalse(single.page.has_more)
      assert.isNull(single.page.next_cursor)
      const empty = yield* page(table([]), request({ limit: 5 }))
      assert.deepStrictEqual(empty, { data: [], page: { limit: 5, next_cursor: null, has_more: false } })
    })))

  it.effect("each next page asks the store for rows after the last row, within the first page's snapshot", () =>
    withCodec(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const t = table()
      const pages = yield* walk(t, { sort: "-name", limitOf: () => 6 })
      assert.strictEqual(t.queries.length, 4)
      assert.isUndefined(t.queries[0].after)
      for (let i = 1; i < t.queries.length; i++) {
        const previousLast = pages[i - 1].data[pages[i - 1].data.length - 1]
        assert.deepStrictEqual(t.queries[i].after, { value: previousLast.name, id: previousLast.id })
        assert.deepStrictEqual(t.queries[i].sort, { field: "name", direction: "desc" })
        // the clock moved a second per page, the snapshot did not
        assert.strictEqual(t.queries[i].createdAtOrBefore.getTime(), start)
      }
    })))

  it.effect("rows created after the first page are not seen by the continuing walk, but by a new one", () =>
    withCodec(Effect.gen(function*() {
      for (const sort of ["name", "created_at", "-name"]) {
        yield* TestClock.setTime(start)
        const t = table()
        const original = expectedOrder(t.rows, parsed(sort))
        let added = 0
        const pages = yield* walk(t, {
          sort,
          limitOf: () => 4,
          between: () =>
            Effect.gen(function*() {
              yield* TestClock.adjust(Duration.minutes(1))
              const now = yield* Clock.currentTimeMillis
              for (const name of ["aaa", "beta", "mmm", "zzz", "\u00e9clair"]) {
                added++
                t.rows.push({ id: `new-${String(added).padStart(3, "0")}`, name, createdAt: now })
                // one more that sorts first by id among equal values
                t.rows.push({ id: `!new-${String(added).padStart(3, "0")}`, name, createdAt: now })
              }
            })
        })
        assert.deepStrictEqual(idsOf(pages), original, sort)
        assert.isAbove(added, 0)
        // the new rows are there for a walk that starts now
        const fresh = yield* walk(t, { sort, limitOf: () => 100 })
        assert.strictEqual(idsOf(fresh).length, 20 + 2 * added)
      }
    })))

  it.effect("deleting rows already seen, the cursor's own row, or rows not yet seen never causes a skip", () =>
    withCodec(Effect.gen(function*() {
      for (const sort of sorts) {
        for (const limit of [1, 3, 4]) {
          yield* TestClock.setTime(start)
          const t = table()
          const original = expectedOrder(t.rows, parsed(sort))
          const deletedUnseen = new Set<string>()
          const remove = (id: string) => {
            t.rows = t.rows.filter((r) => r.id !== id)
          }
          const pages = yield* walk(t, {
            sort,
            limitOf: () => limit,
            between: (_, seen) =>
              Effect.sync(() => {
                const seenIds = new Set(seen.map((r) => r.id))
                // the row the cursor points at, and the first row seen
                remove(seen[seen.length - 1].id)
                remove(seen[0].id)
                // every third round, the next row not yet seen
                if (seen.length % 3 === 0) {
                  const next = original.find((id) => !seenIds.has(id) && t.rows.some((r) => r.id === id))
                  if (next !== undefined) {
                    deletedUnseen.add(next)
                    remove(next)
                  }
                }
              })
          })
          const ids = idsOf(pages)
          assert.deepStrictEqual(ids, original.filter((id) => !deletedUnseen.has(id)), `${sort} limit ${limit}`)
          assert.strictEqual(new Set(ids).size, ids.length)
        }
      }
    })))

  it.effect("the limit is part of the bound query: changing it, adding it or dropping it mid-walk gives CursorMismatch", () =>
    withCodec(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const t = table()
      const first = yield* page(t, request({ limit: 3, sort: "name" }))
      const cursor = first.page.next_cursor ?? ""
      for (const limit of [2, 4, 50, undefined]) {
        const error = yield* failureOf(page(t, request({ limit, sort: "name", cursor })))
        assert.strictEqual((error as { _tag: string })._tag, "CursorMismatch", `limit ${limit}`)
      }
      // An absent limit is not `limit=50`: the cursor binds the query string as sent.
      const t2 = table(Array.from({ length: 60 }, (_, i) => ({ id: `r-${String(i).padStart(2, "0")}`, name: `n${i}`, createdAt: start - 1000 - i })))
      const noLimit = (yield* page(t2, request({ sort: "name" }))).page.next_cursor ?? ""
      const relimited = yield* failureOf(page(t2, request({ limit: 50, sort: "name", cursor: noLimit })))
      assert.strictEqual((relimited as { _tag: string })._tag, "CursorMismatch")
      assert.strictEqual((yield* page(t2, request({ sort: "name", cursor: noLimit }))).data.length, 10)
      // the same limit continues
      const second = yield* page(t, request({ limit: 3, sort: "name", cursor }))
      assert.deepStrictEqual(second.data.map((r) => r.id), expectedOrder(t.rows, parsed("name")).slice(3, 6))
    })))

  it.effect("a cursor continues its own tenant's list only: another tenant's is CursorMismatch, never a page", () =>
    withCodec(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const t = table()
      const first = yield* page(t, request({ limit: 3, sort: "name" }))
      const cursor = first.page.next_cursor ?? ""
      const before = t.queries.length
      for (const other of ["0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2c", "", "operator", tenant.toUpperCase()]) {
        const error = yield* failureOf(page(t, request({ limit: 3, sort: "name", cursor, tenant: other })))
        assert.strictEqual((error as { _tag: string })._tag, "CursorMismatch", other)
      }
      assert.strictEqual(t.queries.length, before, "the store is not asked")
      assert.strictEqual((yield* page(t, request({ limit: 3, sort: "name", cursor }))).data.length, 3)
    })))

  it.effect("an old cursor with another sort, another parameter or another endpoint gives CursorMismatch", () =>
    withCodec(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const t = table()
      const first = yield* page(t, request({ limit: 3, sort: "-created_at", extra: { q: "x" } }))
      const cursor = first.page.next_cursor
      assert.isString(cursor)
      if (cursor === null) return
      const mismatched: Array<ListRequest<Field>> = [
        request({ limit: 3, cursor, sort: "name", extra: { q: "x" } }),
        request({ limit: 3, cursor, sort: "created_at", extra: { q: "x" } }),
        request({ limit: 3, cursor, extra: { q: "x" } }),
        request({ limit: 3, cursor, sort: "-created_at" }),
        request({ limit: 3, cursor, sort: "-created_at", extra: { q: "y" } }),
        request({ limit: 3, cursor, sort: "-created_at", extra: { q: ["x", "y"] } }),
        request({ limit: 3, cursor, sort: "-created_at", extra: { q: "x", archived: "true" } }),
        request({ limit: 3, cursor, sort: "-created_at", extra: { q: "x" }, endpoint: "GET /v1/others" })
      ]
      for (const req of mismatched) {
        const error = yield* failureOf(page(t, req))
        assert.strictEqual((error as { _tag: string })._tag, "CursorMismatch", JSON.stringify(req.params))
      }
      // the same query with the parameters in another order continues the walk
      const next = yield* page(t, {
        ...request({ limit: 3, cursor, sort: "-created_at", extra: { q: "x" } }),
        params: { q: "x", cursor, sort: "-created_at", limit: "3" }
      })
      assert.deepStrictEqual(
        next.data.map((r) => r.id),
        expectedOrder(t.rows, parsed("-created_at")).slice(3, 6)
      )
    })))

  it.effect("a cursor continues the walk for 24 hours and is refused with CursorExpired after", () =>
    withCodec(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const t = table()
      const first = yield* page(t, request({ limit: 3, sort: "name" }))
      const cursor = first.page.next_cursor ?? ""
      yield* TestClock.adjust(Duration.hours(24))
      const second = yield* page(t, request({ limit: 3, sort: "name", cursor }))
      assert.deepStrictEqual(second.data.map((r) => r.id), expectedOrder(t.rows, parsed("name")).slice(3, 6))
      yield* TestClock.adjust(Duration.millis(1))
      const error = yield* failureOf(page(t, request({ limit: 3, sort: "name", cursor })))
      assert.strictEqual((error as { _tag: string })._tag, "CursorExpired")
      // the cursor issued with the second page is newer and still fine
      const third = yield* page(t, request({ limit: 3, sort: "name", cursor: second.page.next_cursor ?? "" }))
      assert.strictEqual(third.data.length, 3)
    })))

  it.effect("an unknown sort on the first page gives InvalidSort, a garbage cursor CursorInvalid", () =>
    withCodec(Effect.gen(function*() {
      const t = table()
      const invalidSort = yield* failureOf(page(t, request({ sort: "title" })))
      assert.strictEqual((invalidSort as { _tag: string })._tag, "InvalidSort")
      const invalidCursor = yield* failureOf(page(t, request({ cursor: "not-a-cursor" })))
      assert.strictEqual((invalidCursor as { _tag: string })._tag, "CursorInvalid")
      assert.strictEqual(t.queries.length, 0)
    })))

  // The cursor binds a hash of the query, so a long query string still yields a usable cursor.
  it.effect("a cursor issued for a long query string is accepted by the next request", () =>
    withCodec(Effect.gen(function*() {
      yield* TestClock.setTime(start)
      const t = table()
      const extra = { q: "x".repeat(3_100) }
      const first = yield* page(t, request({ limit: 3, sort: "name", extra }))
      const cursor = first.page.next_cursor ?? ""
      assert.isBelow(cursor.length, 512, "the cursor carries a hash of the query, not the query")
      const second = yield* page(t, request({ limit: 3, sort: "name", extra, cursor }))
      assert.strictEqual(second.data.length, 3)
    })))
})
