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

/** The canonical form as it was first written (Object.entries, a comparator, map and join): stored fingerprints were made with it. */
const firstCanonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(firstCanonicalJson).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${firstCanonicalJson(v)}`).join(",")}}`
  }
  return JSON.stringify(value)
}

/** The fingerprint as it was first written, for comparison. */
const firstFingerprint = (body: string): string => {
  let canonical = body
  try {
    canonical = body.trim() === "" ? "" : firstCanonicalJson(JSON.parse(body))
  } catch {
    // not JSON
  }
  return sha256(canonical)
}

/** Bodies where a canonical form could go wrong: key order, escapes, astral and lone surrogates, `__proto__`, numbers JSON cannot keep. */
const trickyBodies = [
  "",
  " \n\t",
  "\u00a0",
  "{",
  "not json",
  "{name: 'x'}",
  "null",
  "true",
  "0",
  "-0",
  "1e400",
  "-1e-400",
  "12345678901234567890123",
  "0.1",
  "\"\"",
  "\"a\\\"b\\\\c\\u0000\\u001f\\u2028\"",
  "[]",
  "{}",
  "[[],{},[{}],null,1,\"x\"]",
  "{\"b\":1,\"a\":2,\"A\":3,\"_\":4,\"aa\":5,\"\":6}",
  "{\"10\":1,\"9\":2,\"1\":3,\"01\":4,\"x\":5}",
  "{\"\u00e9\":1,\"e\":2,\"\\ud83d\\ude00\":3,\"\\uffff\":4,\"\\ud800\":5}",
  "{\"__proto__\":{\"polluted\":true},\"constructor\":1,\"toString\":2}",
  "{\"a\":1,\"a\":2}",
  "{\"k\\\"q\":\"v\\n\",\"nested\":{\"z\":[1,{\"y\":null,\"x\":[true,false]}],\"a\":{}}}",
  JSON.stringify({ name: "Bench workspace", description: "Created by bench/http" }),
  JSON.stringify({ description: "Created by bench/http", name: "Bench workspace" }, null, 2)
]

describe("Idempotency.canonicalJson and fingerprintParsed", () => {
  it("canonicalJson writes exactly the first definition's form", () => {
    for (const body of trickyBodies) {
      let value: unknown
      try {
        value = JSON.parse(body)
      } catch {
        continue
      }
      assert.strictEqual(Idempotency.canonicalJson(value), firstCanonicalJson(value), body)
    }
    // Deep and wide values too (many keys: the sort, not the insertion order, decides).
    const wide: Record<string, unknown> = {}
    for (let i = 300; i > 0; i--) wide[`k${(i * 7919) % 1000}`] = i % 3 === 0 ? [i, { [`n${i}`]: null }] : `v${i}`
    let deep: unknown = wide
    for (let i = 0; i < 50; i++) deep = { [`level${i}`]: deep, [`a${i}`]: [i] }
    assert.strictEqual(Idempotency.canonicalJson(deep), firstCanonicalJson(deep))
  })

  it.effect("fingerprint and fingerprintParsed (given the parse or its failure) are the first definition's hashes", () =>
    Effect.gen(function*() {
      for (const body of trickyBodies) {
        let parsed: { readonly value: unknown } | undefined
        try {
          parsed = { value: JSON.parse(body) }
        } catch {
          parsed = undefined
        }
        assert.strictEqual(yield* Idempotency.fingerprint(body), firstFingerprint(body), body)
        assert.strictEqual(yield* Idempotency.fingerprintParsed(body, parsed), firstFingerprint(body), body)
      }
      // A blank body needs no parse: without one it is still the empty request.
      assert.strictEqual(yield* Idempotency.fingerprintParsed("", undefined), sha256(""))
      assert.strictEqual(yield* Idempotency.fingerprintParsed(" \n", undefined), sha256(""))
    }))
})

describe("Idempotency.keyProblem", () => {
  it.effect("refuses exactly the keys validateKey refuses, with the same detail", () =>
    Effect.gen(function*() {
      for (const k of ["a", "~", "0199a1b2-c3d4", "x".repeat(255), "", "x".repeat(256), "has space", "cl\u00e9", "nul\u0000"]) {
        const problem = Idempotency.keyProblem(k)
        const validated = yield* Effect.result(Idempotency.validateKey(k))
        if (validated._tag === "Success") {
          assert.isUndefined(problem, k)
        } else {
          assert.strictEqual(problem?._tag, "IdempotencyKeyInvalid", k)
          assert.strictEqual(problem?.detail, validated.failure.detail)
        }
      }
      assert.isDefined(Idempotency.keyProblem(""))
      assert.isUndefined(Idempotency.keyProblem("ok"))
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
