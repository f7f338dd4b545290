import { HitPath } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"

describe("HitPath", () => {
  it("keeps a value until its instant, exclusive, then forgets it", () => {
    const hits = HitPath.make<string, string>(10)
    hits.set("a", "A", 1_000, hits.generation())
    assert.strictEqual(hits.get("a", 0), "A")
    assert.strictEqual(hits.get("a", 999), "A")
    assert.strictEqual(hits.get("a", 1_000), undefined)
    assert.strictEqual(hits.size(), 0, "an expired entry is dropped when read")
    assert.strictEqual(hits.get("a", 0), undefined, "and stays dropped, even read at an earlier instant")
  })

  it("refuses an answer whose lookup began before an invalidation", () => {
    const hits = HitPath.make<string, string>(10)
    const before = hits.generation()
    hits.invalidateAll()
    hits.set("a", "stale", 1_000, before)
    assert.strictEqual(hits.get("a", 0), undefined)
    const afterAll = hits.generation()
    hits.invalidate("other")
    hits.set("a", "stale", 1_000, afterAll)
    assert.strictEqual(hits.get("a", 0), undefined, "one key's invalidation refuses every earlier lookup")
    hits.set("a", "fresh", 1_000, hits.generation())
    assert.strictEqual(hits.get("a", 0), "fresh")
  })

  it("invalidate forgets one key, invalidateAll every key", () => {
    const hits = HitPath.make<string, string>(10)
    for (const key of ["a", "b", "c"]) hits.set(key, key.toUpperCase(), 1_000, hits.generation())
    hits.invalidate("b")
    assert.deepStrictEqual(["a", "b", "c"].map((key) => hits.get(key, 0)), ["A", undefined, "C"])
    hits.invalidateAll()
    assert.deepStrictEqual(["a", "b", "c"].map((key) => hits.get(key, 0)), [undefined, undefined, undefined])
    assert.strictEqual(hits.size(), 0)
  })

  it("holds at most its capacity, dropping the entry set longest ago", () => {
    const hits = HitPath.make<number, number>(3)
    for (let key = 0; key < 3; key++) hits.set(key, key, 1_000, hits.generation())
    // Set again, 0 becomes the newest: 1 is the oldest now.
    hits.set(0, 10, 1_000, hits.generation())
    assert.strictEqual(hits.size(), 3, "setting a kept key again does not evict")
    hits.set(3, 3, 1_000, hits.generation())
    assert.strictEqual(hits.size(), 3)
    assert.deepStrictEqual([0, 1, 2, 3].map((key) => hits.get(key, 0)), [10, undefined, 2, 3])
    for (let key = 100; key < 200; key++) hits.set(key, key, 1_000, hits.generation())
    assert.strictEqual(hits.size(), 3)
    assert.deepStrictEqual([197, 198, 199].map((key) => hits.get(key, 0)), [197, 198, 199])
  })
})
