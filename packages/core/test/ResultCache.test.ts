/** The result cache: bounded, least recently used first out, big results not kept, keys that tell loads and callers apart. */
import { ResultCache } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"

const dataset = { tenant_id: "t", dataset_id: "d", load_id: "load-1" }
const compiled = { sql: "SELECT sum(amount) FROM t WHERE region = ?", params: ["EU"] }

describe("ResultCache", () => {
  it("drops the least recently used entry past its capacity", () => {
    const cache = ResultCache.make(2)
    cache.set("a", [{ n: 1 }])
    cache.set("b", [{ n: 2 }])
    assert.deepStrictEqual(cache.get("a"), [{ n: 1 }])
    cache.set("c", [{ n: 3 }])
    assert.isUndefined(cache.get("b"))
    assert.deepStrictEqual(cache.get("a"), [{ n: 1 }])
    assert.deepStrictEqual(cache.get("c"), [{ n: 3 }])
  })

  it("holds at most its total of rows, dropping the least recently used results", () => {
    const cache = ResultCache.make(100, 10)
    const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ i }))
    cache.set("a", rows(4))
    cache.set("b", rows(4))
    cache.get("a")
    cache.set("c", rows(4))
    assert.isUndefined(cache.get("b"))
    assert.strictEqual(cache.get("a")?.length, 4)
    assert.strictEqual(cache.get("c")?.length, 4)
    cache.set("a", rows(1))
    cache.set("d", rows(5))
    assert.deepStrictEqual(["a", "c", "d"].map((k) => cache.get(k)?.length), [1, 4, 5])
  })

  it("keeps no result of more rows than its bound", () => {
    const cache = ResultCache.make()
    cache.set("big", Array.from({ length: ResultCache.maxRows + 1 }, (_, n) => ({ n })))
    assert.isUndefined(cache.get("big"))
  })

  it("a new load, another tenant, another SQL or other bound values is another key", () => {
    const base = ResultCache.key(dataset, compiled)
    assert.strictEqual(ResultCache.key({ ...dataset }, { ...compiled }), base)
    for (const other of [
      ResultCache.key({ ...dataset, load_id: "load-2" }, compiled),
      ResultCache.key({ ...dataset, tenant_id: "u" }, compiled),
      ResultCache.key(dataset, { ...compiled, sql: `${compiled.sql} AND 1 = 1` }),
      ResultCache.key(dataset, { ...compiled, params: ["US"] })
    ]) assert.notStrictEqual(other, base)
  })
})
