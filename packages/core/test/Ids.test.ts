import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Schema } from "effect"
import { TestClock } from "effect/testing"
import { randomBytes, Uuid, uuidv7, uuidv7From } from "../src/platform/Ids.ts"

const v7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** The 48-bit millisecond timestamp of a UUIDv7. */
const timestampOf = (uuid: string) => parseInt(uuid.replace(/-/g, "").slice(0, 12), 16)

describe("Ids", () => {
  it.effect("uuidv7 has the UUID format, version 7 and the RFC 9562 variant", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_767_225_600_987)
      for (let i = 0; i < 200; i++) {
        const id = yield* uuidv7
        assert.match(id, v7)
        assert.isTrue(Schema.is(Uuid)(id))
        const bytes = id.replace(/-/g, "")
        assert.strictEqual(parseInt(bytes[12], 16), 7)
        assert.strictEqual(parseInt(bytes[16], 16) >> 2, 0b10)
      }
    }))

  it.effect("uuidv7 carries the TestClock time, starting at 0", () =>
    Effect.gen(function*() {
      const atZero = yield* uuidv7
      assert.isTrue(atZero.startsWith("00000000-0000-7"))
      assert.strictEqual(timestampOf(atZero), 0)
      yield* TestClock.setTime(1_767_225_600_987)
      assert.strictEqual(timestampOf(yield* uuidv7), 1_767_225_600_987)
      yield* TestClock.adjust(Duration.millis(1))
      assert.strictEqual(timestampOf(yield* uuidv7), 1_767_225_600_988)
    }))

  it.effect("uuidv7 values taken at later clock times sort later as strings", () =>
    Effect.gen(function*() {
      yield* TestClock.setTime(1_000)
      const ids: Array<string> = []
      for (const step of [1, 1, 15, 255, 256, 65_535, 65_536, 3_600_000, 86_400_000, 1]) {
        ids.push(yield* uuidv7)
        yield* TestClock.adjust(Duration.millis(step))
      }
      ids.push(yield* uuidv7)
      assert.deepStrictEqual([...ids].sort(), ids)
      assert.strictEqual(new Set(ids).size, ids.length)
    }))

  it.effect("two uuidv7 at the same instant differ", () =>
    Effect.gen(function*() {
      const ids = new Set<string>()
      for (let i = 0; i < 100; i++) ids.add(yield* uuidv7)
      assert.strictEqual(ids.size, 100)
    }))

  it("uuidv7From is deterministic and matches the RFC 9562 example", () => {
    const random = Uint8Array.from([0x0c, 0xc3, 0x18, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f])
    const copy = Uint8Array.from(random)
    const id = uuidv7From(0x017f22e279b0, random)
    assert.strictEqual(id, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f")
    assert.strictEqual(uuidv7From(0x017f22e279b0, random), id)
    // the random input is not modified
    assert.deepStrictEqual(random, copy)
  })

  it("uuidv7From forces version and variant bits whatever the random bytes, and uses only 10 of them", () => {
    assert.strictEqual(uuidv7From(0, new Uint8Array(10)), "00000000-0000-7000-8000-000000000000")
    assert.strictEqual(uuidv7From(0, new Uint8Array(10).fill(0xff)), "00000000-0000-7fff-bfff-ffffffffffff")
    assert.strictEqual(
      uuidv7From(2 ** 48 - 1, new Uint8Array(16).fill(0xff)),
      "ffffffff-ffff-7fff-bfff-ffffffffffff"
    )
    const base = Uint8Array.from({ length: 10 }, (_, i) => i * 17)
    const longer = Uint8Array.from([...base, 1, 2, 3])
    assert.strictEqual(uuidv7From(42, base), uuidv7From(42, longer))
    assert.notStrictEqual(uuidv7From(42, base), uuidv7From(43, base))
    assert.strictEqual(uuidv7From(1_767_225_600_987, base).slice(0, 13), "019b76da-abdb")
  })

  it.effect("randomBytes gives the requested length, different every time", () =>
    Effect.gen(function*() {
      const a = yield* randomBytes(32)
      const b = yield* randomBytes(32)
      assert.strictEqual(a.length, 32)
      assert.strictEqual((yield* randomBytes(0)).length, 0)
      assert.notDeepEqual(a, b)
    }))

  it("Uuid accepts only the canonical lowercase form", () => {
    const is = Schema.is(Uuid)
    assert.isTrue(is("017f22e2-79b0-7cc3-98c4-dc0c0c07398f"))
    assert.isFalse(is("017F22E2-79B0-7CC3-98C4-DC0C0C07398F"))
    assert.isFalse(is("017f22e279b07cc398c4dc0c0c07398f"))
    assert.isFalse(is("{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}"))
    assert.isFalse(is("017f22e2-79b0-7cc3-98c4-dc0c0c07398"))
    assert.isFalse(is(""))
  })
})
