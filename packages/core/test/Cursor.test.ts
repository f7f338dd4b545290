import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Layer } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import { TestClock } from "effect/testing"
import { hmacKey } from "../src/Crypto.ts"
import {
  CursorCodec,
  type CursorCodecShape,
  type CursorError,
  cursorLifetime,
  type CursorPayload,
  makeCodec
} from "../src/Cursor.ts"
import { ServiceSecrets } from "../src/ServiceSecrets.ts"

const keyA = Uint8Array.from({ length: 32 }, (_, i) => i + 1)
const keyB = Uint8Array.from({ length: 32 }, (_, i) => 255 - i)

const binding = { endpoint: "GET /v1/workspaces", query: "sort=-created_at" }

const payload = (overrides: Partial<CursorPayload> = {}): CursorPayload => ({
  v: 1,
  e: binding.endpoint,
  q: binding.query,
  s: "-created_at",
  k: [1_767_225_600_987, "0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"],
  b: 1_767_225_600_000,
  t: 0,
  ...overrides
})

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** The error of a decode that must fail; a defect (or a success) fails the test. */
const decodeError = (
  codec: CursorCodecShape,
  cursor: string,
  b: { readonly endpoint: string; readonly query: string } = binding
): Effect.Effect<CursorError, Error> =>
  Effect.flatMap(Effect.exit(codec.decode(cursor, b)), (exit) => {
    if (Exit.isSuccess(exit)) return Effect.fail(new Error(`accepted ${JSON.stringify(cursor.slice(0, 80))}`))
    if (Cause.hasDies(exit.cause)) {
      return Effect.fail(new Error(`defect on ${JSON.stringify(cursor.slice(0, 80))}: ${Cause.pretty(exit.cause)}`))
    }
    const error = Cause.findErrorOption(exit.cause)
    return error._tag === "Some" ? Effect.succeed(error.value) : Effect.fail(new Error("no typed error"))
  })

/** A cursor whose body is `body` verbatim, correctly signed with `key`: reaches the checks after the signature. */
const signedWith = (key: Uint8Array, body: string) =>
  Effect.gen(function*() {
    const sig = yield* (yield* hmacKey(key)).sign(body)
    return `${body}.${Base64Url.encode(sig)}`
  })

describe("Cursor", () => {
  it.effect("encode then decode gives the payload back, for numeric and string keyset values", () =>
    Effect.gen(function*() {
      const codec = yield* makeCodec(keyA)
      const numeric = payload()
      const text = payload({ s: "name", k: ["Ünïcødé ☃ 😀 \"quoted\" a.b", "0199a1b2-0000-7000-8000-000000000000"] })
      for (const p of [numeric, text]) {
        const cursor = yield* codec.encode(p)
        assert.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
        assert.deepStrictEqual(yield* codec.decode(cursor, binding), p)
      }
    }))

  it.effect("encoding is deterministic for one key and differs between keys", () =>
    Effect.gen(function*() {
      const a1 = yield* makeCodec(keyA)
      const a2 = yield* makeCodec(keyA)
      const b = yield* makeCodec(keyB)
      const p = payload()
      assert.strictEqual(yield* a1.encode(p), yield* a2.encode(p))
      assert.notStrictEqual(yield* a1.encode(p), yield* b.encode(p))
      assert.deepStrictEqual(yield* a2.decode(yield* a1.encode(p), binding), p)
    }))

  it.effect("changing any character of the payload part gives CursorInvalid", () =>
    Effect.gen(function*() {
      const codec = yield* makeCodec(keyA)
      const cursor = yield* codec.encode(payload())
      const dot = cursor.indexOf(".")
      let checked = 0
      for (let i = 0; i < dot; i++) {
        const at = alphabet.indexOf(cursor[i])
        for (const shift of [1, 2, 32]) {
          const tampered = cursor.slice(0, i) + alphabet[(at + shift) % 64] + cursor.slice(i + 1)
          const error = yield* decodeError(codec, tampered)
          assert.strictEqual(error._tag, "CursorInvalid", `payload position ${i}`)
          checked++
        }
      }
      assert.strictEqual(checked, dot * 3)
      assert.isAbove(dot, 100)
    }))

  it.effect("flipping any bit of any signature byte gives CursorInvalid", () =>
    Effect.gen(function*() {
      const codec = yield* makeCodec(keyA)
      const cursor = yield* codec.encode(payload())
      const [body, sigText] = cursor.split(".")
      const sig = Base64Url.decode(sigText)
      assert.isTrue(sig._tag === "Success")
      if (sig._tag !== "Success") return
      assert.strictEqual(sig.success.length, 32)
      for (let byte = 0; byte < 32; byte++) {
        for (let bit = 0; bit < 8; bit++) {
          const tampered = Uint8Array.from(sig.success)
          tampered[byte] ^= 1 << bit
          const error = yield* decodeError(codec, `${body}.${Base64Url.encode(tampered)}`)
          assert.strictEqual(error._tag, "CursorInvalid", `signature byte ${byte} bit ${bit}`)
        }
      }
      // the untampered cursor is still fine
      assert.deepStrictEqual(yield* codec.decode(cursor, binding), payload())
    }))

  it.effect("truncating or extending the payload or the signature gives CursorInvalid", () =>
    Effect.gen(function*() {
      const codec = yield* makeCodec(keyA)
      const cursor = yield* codec.encode(payload())
      const [body, sig] = cursor.split(".")
      const variants = [
        `${body.slice(0, -1)}.${sig}`,
        `${body}A.${sig}`,
        `A${body}.${sig}`,
        `${body}.${sig.slice(0, -1)}`,
        `${body}.${sig.slice(0, -4)}`,
        `${body}.${sig}AAAA`,
        `${body}.${sig}.`,
        `${body}..${sig}`,
        `${body}.`,
        `.${sig}`,
        `${sig}.${body}`,
        `${body}.${sig} `,
        ` ${body}.${sig}`,
        `${body}`
      ]
      for (const v of variants) {
        assert.strictEqual((yield* decodeError(codec, v))._tag, "CursorInvalid", v)
      }
    }))

  // Base64Url.decode is lenient (unused bits, padding, CR/LF): only the canonical spelling may pass.
  it.effect("changing the last signature character is detected (only canonical base64url passes)", () =>
    Effect.gen(function*() {
      const codec = yield* makeCodec(keyA)
      const cursor = yield* codec.encode(payload())
      assert.deepStrictEqual(yield* codec.decode(cursor, binding), payload())
      const accepted: Array<string> = []
      for (const c of alphabet) {
        if (c === cursor[cursor.length - 1]) continue
        const tampered = cursor.slice(0, -1) + c
        const exit = yield* Effect.exit(codec.decode(tampered, binding))
        if (Exit.isSuccess(exit)) accepted.push(tampered.slice(-3))
      }
      assert.deepStrictEqual(accepted, [])
    }))

  it.effect("a signature with `=` padding or a line break is refused (only canonical base64url passes)", () =>
    Effect.gen(function*() {
      const codec = yield* makeCodec(keyA)
      const cursor = yield* codec.encode(payload())
      assert.deepStrictEqual(yield* codec.decode(cursor, binding), payload())
      const accepted: Array<string> = []
      for (const tampered of [`${cursor}=`, `${cursor.slice(0, -10)}\n${cursor.slice(-10)}`, `${cursor}\r\n`]) {
        const exit = yield* Effect.exit(codec.decode(tampered, binding))
        if (Exit.isSuccess(exit)) accepted.push(JSON.stringify(tampered.slice(-12)))
      }
      assert.deepStrictEqual(accepted, [])
    }))

  it.effect("a payload segment in a non-canonical spelling is refused, even signed as it is", () =>
    Effect.gen(function*() {
      const codec = yield* makeCodec(keyA)
      // A payload whose segment leaves unused bits (its length not a multiple of 4): the JSON's length decides.
      let body = ""
      for (let b = 0; body === "" || body.length % 4 === 0; b++) body = (yield* codec.encode(payload({ b }))).split(".")[0]!
      // The same bytes, padded or with the last character's unused bits set.
      const padded = body + "=".repeat(4 - body.length % 4)
      const respelled = body.slice(0, -1) + alphabet[alphabet.indexOf(body[body.length - 1]!) ^ 1]
      for (const variant of [padded, respelled]) {
        assert.deepStrictEqual(Base64Url.decode(variant), Base64Url.decode(body), "decodes to the same bytes")
        assert.strictEqual((yield* decodeError(codec, yield* signedWith(keyA, variant)))._tag, "CursorInvalid", variant)
      }
      assert.strictEqual((yield* codec.decode(yield* signedWith(keyA, body), binding)).v, 1)
    }))

  it.effect("garbage strings give CursorInvalid, never a defect", () =>
    Effect.gen(function*() {
      const codec = yield* makeCodec(keyA)
      const valid = yield* codec.encode(payload())
      const garbage = [
        "",
        ".",
        "..",
        "abc",
        "no-dot-at-all_but_base64url",
        ".abc",
        "abc.",
        "!!!.###",
        "a.b.c",
        "eyJ2IjoxfQ",
        "%%%%.%%%%",
        "é.é",
        "\u0000.\u0000",
        "😀.😀",
        valid.replace(".", ""),
        valid.replace(".", "+"),
        `${valid.slice(0, 5)}+${valid.slice(6)}`,
        `${valid.slice(0, -5)}/${valid.slice(-4)}`,
        `${Base64Url.encode("not json at all")}.${valid.split(".")[1]}`,
        "x".repeat(4097),
        `${"A".repeat(4000)}.${"A".repeat(200)}`,
        `${valid}${".".repeat(4096)}`
      ]
      for (const g of garbage) {
        assert.strictEqual((yield* decodeError(codec, g))._tag, "CursorInvalid", JSON.stringify(g.slice(0, 40)))
      }
    }))

  it.effect("correctly signed bodies that are not base64url, not JSON or not a cursor give CursorInvalid", () =>
    Effect.gen(function*() {
      const codec = yield* makeCodec(keyA)
      const good = payload()
      const json = (value: unknown) => Base64Url.encode(JSON.stringify(value))
      const bodies = [
        "!!!not-base64!!!",
        "A",
        "%2F",
        Base64Url.encode(""),
        Base64Url.encode("not json"),
        Base64Url.encode("{\"v\":1,"),
        Base64Url.encode(new Uint8Array([0xff, 0xfe, 0xfd, 0x80, 0x81])),
        json(null),
        json(1),
        json("cursor"),
        json([]),
        json({}),
        json([good]),
        json({ ...good, v: 2 }),
        json({ ...good, v: "1" }),
        json({ ...good, e: 1 }),
        json({ ...good, q: null }),
        json({ ...good, s: ["name"] }),
        json({ ...good, k: [1] }),
        json({ ...good, k: [1, 2] }),
        json({ ...good, k: [true, "id"] }),
        json({ ...good, k: [1, "id", "extra"] }),
        json({ ...good, k: { 0: 1, 1: "id" } }),
        json({ ...good, b: "0" }),
        json({ ...good, t: null }),
        json({ v: 1, e: good.e, q: good.q, s: good.s, k: good.k, b: good.b })
      ]
      for (const body of bodies) {
        const cursor = yield* signedWith(keyA, body)
        assert.strictEqual((yield* decodeError(codec, cursor))._tag, "CursorInvalid", body.slice(0, 60))
      }
      // the helper itself produces cursors the codec accepts when the body is right
      assert.deepStrictEqual(yield* codec.decode(yield* signedWith(keyA, json(good)), binding), good)
    }))

  it.effect("a cursor signed with another key gives CursorInvalid", () =>
    Effect.gen(function*() {
      const a = yield* makeCodec(keyA)
      const b = yield* makeCodec(keyB)
      const cursor = yield* b.encode(payload())
      assert.strictEqual((yield* decodeError(a, cursor))._tag, "CursorInvalid")
      assert.deepStrictEqual(yield* b.decode(cursor, binding), payload())
    }))

  it.effect("another endpoint or query string gives CursorMismatch", () =>
    Effect.gen(function*() {
      const codec = yield* makeCodec(keyA)
      const cursor = yield* codec.encode(payload())
      const others = [
        { endpoint: "GET /v1/datasets", query: binding.query },
        { endpoint: "GET /v1/workspaces/", query: binding.query },
        { endpoint: "get /v1/workspaces", query: binding.query },
        { endpoint: binding.endpoint, query: "sort=created_at" },
        { endpoint: binding.endpoint, query: "" },
        { endpoint: binding.endpoint, query: `${binding.query}&q=x` }
      ]
      for (const other of others) {
        const error = yield* decodeError(codec, cursor, other)
        assert.strictEqual(error._tag, "CursorMismatch", JSON.stringify(other))
        assert.strictEqual(error.code, "pagination/cursor-mismatch")
      }
      assert.deepStrictEqual(yield* codec.decode(cursor, binding), payload())
    }))

  it.effect("valid exactly 24 hours after issue, CursorExpired 1 ms later", () =>
    Effect.gen(function*() {
      const issuedAt = 1_767_225_600_123
      yield* TestClock.setTime(issuedAt)
      const codec = yield* makeCodec(keyA)
      const cursor = yield* codec.encode(payload({ t: issuedAt }))
      assert.strictEqual(Duration.toMillis(cursorLifetime), 86_400_000)
      yield* TestClock.adjust(Duration.hours(23))
      assert.strictEqual((yield* codec.decode(cursor, binding)).t, issuedAt)
      yield* TestClock.setTime(issuedAt + 86_400_000)
      assert.strictEqual((yield* codec.decode(cursor, binding)).t, issuedAt)
      yield* TestClock.adjust(Duration.millis(1))
      const error = yield* decodeError(codec, cursor)
      assert.strictEqual(error._tag, "CursorExpired")
      if (error._tag === "CursorExpired") {
        assert.strictEqual(error.issuedAt.getTime(), issuedAt)
        assert.strictEqual(error.code, "pagination/cursor-expired")
      }
    }))

  it.effect("the error codes are the catalogued ones", () =>
    Effect.gen(function*() {
      const codec = yield* makeCodec(keyA)
      const error = yield* decodeError(codec, "garbage")
      assert.strictEqual(error.code, "pagination/cursor-invalid")
    }))

  describe("CursorCodec.layer", () => {
    const codecOver = (secrets: typeof ServiceSecrets.Service) =>
      Effect.provide(
        Effect.gen(function*() {
          return yield* CursorCodec
        }),
        Layer.fresh(CursorCodec.layer).pipe(Layer.provide(Layer.succeed(ServiceSecrets, secrets)))
      )

    it.effect("two codecs built over the same secrets accept each other's cursors", () =>
      Effect.gen(function*() {
        const secrets = yield* MemoryStores.serviceSecrets
        const one = yield* codecOver(secrets)
        const two = yield* codecOver(secrets)
        assert.notStrictEqual(one, two)
        const p = payload()
        assert.deepStrictEqual(yield* two.decode(yield* one.encode(p), binding), p)
        assert.deepStrictEqual(yield* one.decode(yield* two.encode(p), binding), p)
      }))

    it.effect("the key is the persisted cursor-hmac secret: 32 random bytes, base64url", () =>
      Effect.gen(function*() {
        const secrets = yield* MemoryStores.serviceSecrets
        const codec = yield* codecOver(secrets)
        const stored = yield* secrets.getOrCreate("cursor-hmac", Effect.succeed("must not be used"))
        assert.match(stored, /^[A-Za-z0-9_-]{43}$/)
        const raw = Base64Url.decode(stored)
        assert.isTrue(raw._tag === "Success" && raw.success.length === 32)
        if (raw._tag !== "Success") return
        const direct = yield* makeCodec(raw.success)
        assert.strictEqual(yield* codec.encode(payload()), yield* direct.encode(payload()))
      }))

    it.effect("codecs over different secrets reject each other's cursors", () =>
      Effect.gen(function*() {
        const one = yield* codecOver(yield* MemoryStores.serviceSecrets)
        const two = yield* codecOver(yield* MemoryStores.serviceSecrets)
        const cursor = yield* one.encode(payload())
        assert.strictEqual((yield* decodeError(two, cursor))._tag, "CursorInvalid")
        assert.deepStrictEqual(yield* one.decode(cursor, binding), payload())
      }))

    it.effect("a stored secret that is not base64url is a defect when the layer is built", () =>
      Effect.gen(function*() {
        const secrets = yield* MemoryStores.serviceSecrets
        yield* secrets.getOrCreate("cursor-hmac", Effect.succeed("not base64url!"))
        const exit = yield* Effect.exit(codecOver(secrets))
        assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      }))
  })
})
