import { Idempotency } from "@analytics/core"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { createHash } from "node:crypto"

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex")

const withStore = <A, E>(effect: Effect.Effect<A, E, Idempotency.IdempotencyStore>) =>
  Effect.provide(effect, Layer.effect(Idempotency.IdempotencyStore, MemoryStores.idempotencyStore))

const owner = "0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"
const scope = "POST /v1/workspaces"
const key = "req-2026-01-01-0001"

const response: Idempotency.StoredResponse = {
  status: 201,
  headers: { "content-type": "application/json", location: "/v1/workspaces/1" },
  body: "{\"workspace_id\":\"1\",\"name\":\"Sales\"}"
}

/** Completes the reservation currently holding the key, as the request that made it would. */
const complete = (k = key) =>
  Effect.gen(function*() {
    const store = yield* Idempotency.IdempotencyStore
    const current = yield* store.reserve(
      { owner, scope, key: k, fingerprint: "", createdAt: new Date(0) },
      { expiredBefore: new Date(-1), abandonedBefore: new Date(-1) }
    )
    if (current._tag !== "Existing") throw new Error("no reservation to complete")
    yield* store.complete({ owner, scope, key: k, createdAt: current.record.createdAt }, response)
  })

/** Asserts that a decision is to run, holding a reservation of this key. */
const assertRun = (decision: Idempotency.Decision) => {
  assert.strictEqual(decision._tag, "Run")
  if (decision._tag === "Run") {
    assert.strictEqual(decision.reservation.owner, owner)
    assert.strictEqual(decision.reservation.scope, scope)
  }
}

describe("Idempotency.validateKey", () => {
  it.effect("accepts 1 to 255 printable ASCII characters", () =>
    Effect.gen(function*() {
      let printable = ""
      for (let c = 0x21; c <= 0x7e; c++) printable += String.fromCharCode(c)
      const long = printable.repeat(3).slice(0, 255)
      assert.strictEqual(long.length, Idempotency.maxKeyLength)
      for (const k of ["a", "~", printable, long, "0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"]) {
        assert.strictEqual(yield* Idempotency.validateKey(k), k)
      }
    }))

  it.effect("rejects empty, 256 characters, non-ASCII, spaces and control characters", () =>
    Effect.gen(function*() {
      const rejected = [
        "",
        "a".repeat(256),
        "a".repeat(10_000),
        "cl\u00e9",
        "key\u2013dash",
        "\u{1F600}",
        "has space",
        " leading",
        "trailing ",
        "tab\there",
        "new\nline",
        "nul\u0000",
        "del\u007f"
      ]
      for (const k of rejected) {
        const error = yield* Effect.flip(Idempotency.validateKey(k))
        assert.strictEqual(error._tag, "IdempotencyKeyInvalid", JSON.stringify(k.slice(0, 20)))
        assert.strictEqual(error.code, "idempotency/invalid-key")
        assert.isAbove(error.detail.length, 0)
      }
    }))
})

describe("Idempotency.fingerprint", () => {
  it.effect("is equal for JSON differing only in key order and white space, at any depth", () =>
    Effect.gen(function*() {
      const a = yield* Idempotency.fingerprint("{\"name\":\"Sales\",\"tags\":[1,{\"y\":2,\"x\":1}],\"meta\":{\"b\":null,\"a\":true}}")
      const b = yield* Idempotency.fingerprint(
        "\n  { \"meta\" : { \"a\" : true , \"b\" : null },\r\n\t\"tags\": [ 1, { \"x\": 1, \"y\": 2 } ], \"name\": \"Sales\" }  \n"
      )
      assert.strictEqual(a, b)
      // the canonical form: keys sorted, no white space
      assert.strictEqual(a, sha256("{\"meta\":{\"a\":true,\"b\":null},\"name\":\"Sales\",\"tags\":[1,{\"x\":1,\"y\":2}]}"))
      assert.match(a, /^[0-9a-f]{64}$/)
    }))

  it.effect("differs for different values", () =>
    Effect.gen(function*() {
      const bodies = [
        "{\"name\":\"Sales\"}",
        "{\"name\":\"sales\"}",
        "{\"name\":\"Sales \"}",
        "{\"name\":\"Sales\",\"description\":null}",
        "{\"name\":[\"Sales\"]}",
        "{\"name\":{\"Sales\":true}}",
        "{\"Name\":\"Sales\"}",
        "{\"n\":1}",
        "{\"n\":\"1\"}",
        "{\"n\":true}",
        "{\"n\":null}",
        "{\"n\":[1,2]}",
        "{\"n\":[2,1]}",
        "{}",
        "[]",
        "null",
        "\"Sales\""
      ]
      const prints = yield* Effect.forEach(bodies, Idempotency.fingerprint)
      assert.strictEqual(new Set(prints).size, bodies.length)
    }))

  it.effect("hashes the raw text of a body that is not JSON", () =>
    Effect.gen(function*() {
      for (const raw of ["name=Sales&x=1", "{\"name\":", "not json", "{name: 'Sales'}", "\u00e9t\u00e9 \u{1F600}"]) {
        assert.strictEqual(yield* Idempotency.fingerprint(raw), sha256(raw), raw)
      }
      assert.notStrictEqual(yield* Idempotency.fingerprint("not json"), yield* Idempotency.fingerprint("not json "))
      assert.notStrictEqual(yield* Idempotency.fingerprint("not json"), yield* Idempotency.fingerprint("\"not json\""))
      // an empty or blank body is the empty request
      assert.strictEqual(yield* Idempotency.fingerprint(""), sha256(""))
      assert.strictEqual(yield* Idempotency.fingerprint("  \n"), sha256(""))
    }))
})

describe("Idempotency.begin", () => {
  it.effect("the first request runs; a retry while it runs is IdempotencyInProgress; another body IdempotencyKeyReused", () =>
    withStore(Effect.gen(function*() {
      const fp = yield* Idempotency.fingerprint("{\"name\":\"Sales\"}")
      const other = yield* Idempotency.fingerprint("{\"name\":\"Marketing\"}")
      assertRun(yield* Idempotency.begin(owner, scope, key, fp))
      const inProgress = yield* Effect.flip(Idempotency.begin(owner, scope, key, fp))
      assert.strictEqual(inProgress._tag, "IdempotencyInProgress")
      if (inProgress._tag === "IdempotencyInProgress") assert.strictEqual(inProgress.code, "idempotency/in-progress")
      const reused = yield* Effect.flip(Idempotency.begin(owner, scope, key, other))
      assert.strictEqual(reused._tag, "IdempotencyKeyReused")
      if (reused._tag === "IdempotencyKeyReused") assert.strictEqual(reused.code, "idempotency/key-reused")
    })))

  it.effect("after complete, a retry replays the stored response; another body is still refused", () =>
    withStore(Effect.gen(function*() {
      const fp = yield* Idempotency.fingerprint("{\"name\":\"Sales\"}")
      assert.strictEqual((yield* Idempotency.begin(owner, scope, key, fp))._tag, "Run")
      yield* TestClock.adjust(Duration.seconds(2))
      yield* complete()
      const retry = yield* Idempotency.fingerprint(" { \"name\" : \"Sales\" } ")
      assert.deepStrictEqual(yield* Idempotency.begin(owner, scope, key, retry), { _tag: "Replay", response })
      assert.deepStrictEqual(yield* Idempotency.begin(owner, scope, key, retry), { _tag: "Replay", response })
      const reused = yield* Effect.flip(Idempotency.begin(owner, scope, key, yield* Idempotency.fingerprint("{\"name\":\"Other\"}")))
      assert.strictEqual(reused._tag, "IdempotencyKeyReused")
    })))

  it.effect("keys are separate per owner, scope and key", () =>
    withStore(Effect.gen(function*() {
      const fp = yield* Idempotency.fingerprint("{}")
      assert.strictEqual((yield* Idempotency.begin(owner, scope, key, fp))._tag, "Run")
      assert.strictEqual((yield* Idempotency.begin("operator", scope, key, fp))._tag, "Run")
      assert.strictEqual((yield* Idempotency.begin(owner, "POST /v1/tenants", key, fp))._tag, "Run")
      assert.strictEqual((yield* Idempotency.begin(owner, scope, `${key}-2`, fp))._tag, "Run")
      assert.strictEqual((yield* Effect.flip(Idempotency.begin(owner, scope, key, fp)))._tag, "IdempotencyInProgress")
    })))

  it.effect("a completed record is replayed for exactly 24 hours, then the key runs again", () =>
    withStore(Effect.gen(function*() {
      assert.strictEqual(Duration.toMillis(Idempotency.retention), 86_400_000)
      yield* TestClock.setTime(1_767_225_600_000)
      const fp = yield* Idempotency.fingerprint("{\"name\":\"Sales\"}")
      assert.strictEqual((yield* Idempotency.begin(owner, scope, key, fp))._tag, "Run")
      yield* complete()
      yield* TestClock.adjust(Duration.hours(24))
      assert.strictEqual((yield* Idempotency.begin(owner, scope, key, fp))._tag, "Replay")
      yield* TestClock.adjust(Duration.millis(1))
      assertRun(yield* Idempotency.begin(owner, scope, key, fp))
      // the new run holds the key again
      assert.strictEqual((yield* Effect.flip(Idempotency.begin(owner, scope, key, fp)))._tag, "IdempotencyInProgress")
    })))

  it.effect("after 24 hours, the key may be reused with another body", () =>
    withStore(Effect.gen(function*() {
      const fp = yield* Idempotency.fingerprint("{\"name\":\"Sales\"}")
      yield* Idempotency.begin(owner, scope, key, fp)
      yield* complete()
      yield* TestClock.adjust(Duration.sum(Idempotency.retention, Duration.millis(1)))
      assertRun(yield* Idempotency.begin(owner, scope, key, yield* Idempotency.fingerprint("{\"name\":\"Other\"}")))
    })))

  it.effect("an abandoned reservation is taken over after inFlightTimeout, not before", () =>
    withStore(Effect.gen(function*() {
      assert.strictEqual(Duration.toMillis(Idempotency.inFlightTimeout), 60_000)
      yield* TestClock.setTime(1_767_225_600_000)
      const fp = yield* Idempotency.fingerprint("{\"name\":\"Sales\"}")
      assert.strictEqual((yield* Idempotency.begin(owner, scope, key, fp))._tag, "Run")
      yield* TestClock.adjust(Duration.seconds(60))
      assert.strictEqual((yield* Effect.flip(Idempotency.begin(owner, scope, key, fp)))._tag, "IdempotencyInProgress")
      yield* TestClock.adjust(Duration.millis(1))
      assertRun(yield* Idempotency.begin(owner, scope, key, fp))
      // the takeover is a fresh reservation: in progress again, for another minute
      yield* TestClock.adjust(Duration.seconds(30))
      assert.strictEqual((yield* Effect.flip(Idempotency.begin(owner, scope, key, fp)))._tag, "IdempotencyInProgress")
      yield* TestClock.adjust(Duration.seconds(31))
      assertRun(yield* Idempotency.begin(owner, scope, key, fp))
    })))

  it.effect("a completed record is never abandoned: it replays long after inFlightTimeout", () =>
    withStore(Effect.gen(function*() {
      const fp = yield* Idempotency.fingerprint("{\"name\":\"Sales\"}")
      yield* Idempotency.begin(owner, scope, key, fp)
      yield* complete()
      yield* TestClock.adjust(Duration.hours(23))
      assert.deepStrictEqual(yield* Idempotency.begin(owner, scope, key, fp), { _tag: "Replay", response })
    })))

  it.effect("of many concurrent first requests exactly one runs", () =>
    withStore(Effect.gen(function*() {
      const fp = yield* Idempotency.fingerprint("{\"name\":\"Sales\"}")
      const outcomes = yield* Effect.all(
        Array.from({ length: 10 }, () => Effect.result(Idempotency.begin(owner, scope, key, fp))),
        { concurrency: "unbounded" }
      )
      const tags = outcomes.map((o) => (o._tag === "Success" ? o.success._tag : o.failure._tag))
      assert.strictEqual(tags.filter((t) => t === "Run").length, 1)
      assert.strictEqual(tags.filter((t) => t === "IdempotencyInProgress").length, 9)
    })))

  it("only responses below 500 are stored", () => {
    assert.isTrue(Idempotency.isStorable(200))
    assert.isTrue(Idempotency.isStorable(201))
    assert.isTrue(Idempotency.isStorable(422))
    assert.isTrue(Idempotency.isStorable(499))
    assert.isFalse(Idempotency.isStorable(500))
    assert.isFalse(Idempotency.isStorable(503))
  })
})
