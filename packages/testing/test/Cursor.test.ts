import { Cursor, ServiceSecrets } from "@analytics/core"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Layer } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import { TestClock } from "effect/testing"

const keyA = Uint8Array.from({ length: 32 }, (_, i) => i + 1)
const keyB = Uint8Array.from({ length: 32 }, (_, i) => 255 - i)

const tenant = "0199a1b2-c3d4-7e5f-8a6b-000000000001"
const binding: Cursor.CursorBinding = {
  endpoint: "GET /v1/workspaces",
  query: "5b0c6f9d2f1e6a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f70819200",
  tenant
}

const payload = (overrides: Partial<Cursor.CursorPayload> = {}): Cursor.CursorPayload => ({
  v: 2,
  e: binding.endpoint,
  q: binding.query,
  n: binding.tenant,
  s: "-created_at",
  k: [1_767_225_600_987, "0199a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b"],
  b: 1_767_225_600_000,
  t: 0,
  ...overrides
})

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** The error of a decode that must fail; a defect (or a success) fails the test. */
const decodeError = (
  codec: Cursor.CursorCodecShape,
  cursor: string,
  b: Cursor.CursorBinding = binding
): Effect.Effect<Cursor.CursorError, Error> =>
  Effect.flatMap(Effect.exit(codec.decode(cursor, b)), (exit) => {
    if (Exit.isSuccess(exit)) return Effect.fail(new Error(`accepted ${JSON.stringify(cursor.slice(0, 80))}`))
    if (Cause.hasDies(exit.cause)) {
      return Effect.fail(new Error(`defect on ${JSON.stringify(cursor.slice(0, 80))}: ${Cause.pretty(exit.cause)}`))
    }
    const error = Cause.findErrorOption(exit.cause)
    return error._tag === "Some" ? Effect.succeed(error.value) : Effect.fail(new Error("no typed error"))
  })

/** The bytes of a cursor (it is canonical base64url). */
const bytesOf = (cursor: string): Uint8Array => {
  const bytes = Base64Url.decode(cursor)
  if (bytes._tag !== "Success") throw new Error(`not base64url: ${cursor}`)
  return bytes.success
}

/**
 * A cursor sealing `plain` verbatim with the key derived from `secret`, as
 * the codec seals (format byte, nonce, AES-256-GCM with the format byte as
 * associated data): reaches the checks after the seal is opened.
 */
const sealedWith = (secret: Uint8Array, plain: Uint8Array | string, format = Cursor.formatByte) =>
  Effect.gen(function*() {
    const raw = yield* Cursor.deriveKeyBytes(secret)
    const key = yield* Effect.promise(() => crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, "AES-GCM", false, ["encrypt"]))
    const nonce = crypto.getRandomValues(new Uint8Array(12))
    const data = typeof plain === "string" ? new TextEncoder().encode(plain) : plain
    const sealed = new Uint8Array(
      yield* Effect.promise(() =>
        crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: Uint8Array.of(format) }, key, data as Uint8Array<ArrayBuffer>)
      )
    )
    return Base64Url.encode(Uint8Array.of(format, ...nonce, ...sealed))
  })

describe("Cursor", () => {
  it.effect("encode then decode gives the payload back, for numeric and string keyset values", () =>
    Effect.gen(function*() {
      const codec = yield* Cursor.makeCodec(keyA)
      const numeric = payload()
      const text = payload({ s: "name", k: ["Ünïcødé ☃ 😀 \"quoted\" a.b", "0199a1b2-0000-7000-8000-000000000000"] })
      for (const p of [numeric, text]) {
        const cursor = yield* codec.encode(p)
        // One base64url string: no dot, no padding, nothing else.
        assert.match(cursor, /^[A-Za-z0-9_-]+$/)
        assert.deepStrictEqual(yield* codec.decode(cursor, binding), p)
      }
    }))

  it.effect("the content is sealed: its bytes are not JSON and show none of the payload's values", () =>
    Effect.gen(function*() {
      const codec = yield* Cursor.makeCodec(keyA)
      const p = payload({ s: "name", k: ["Visible name", "0199a1b2-0000-7000-8000-000000000000"] })
      const cursor = yield* codec.encode(p)
      const bytes = bytesOf(cursor)
      const latin1 = String.fromCharCode(...bytes)
      // Strings of 4 bytes or more: a shorter one turns up in random bytes now and then.
      for (const value of ["{\"v\":", "GET /", "/v1/workspaces", tenant, "Visible name", "0199a1b2", "created_at", "name", p.q.slice(0, 8)]) {
        assert.notInclude(latin1, value)
      }
      assert.throws(() => JSON.parse(new TextDecoder().decode(bytes)))
      // format byte, 12-byte nonce, then ciphertext as long as the JSON plus a 16-byte tag
      assert.strictEqual(bytes[0], Cursor.formatByte)
      assert.strictEqual(bytes.length, 1 + 12 + new TextEncoder().encode(JSON.stringify(p)).length + 16)
    }))

  it.effect("each encoding is sealed with a fresh nonce: two cursors of one payload differ, both open", () =>
    Effect.gen(function*() {
      const a1 = yield* Cursor.makeCodec(keyA)
      const a2 = yield* Cursor.makeCodec(keyA)
      const p = payload()
      const one = yield* a1.encode(p)
      const two = yield* a1.encode(p)
      assert.notStrictEqual(one, two)
      assert.notDeepEqual(bytesOf(one).subarray(1, 13), bytesOf(two).subarray(1, 13))
      assert.deepStrictEqual(yield* a2.decode(one, binding), p)
      assert.deepStrictEqual(yield* a2.decode(two, binding), p)
    }))

  it.effect("changing any character gives CursorInvalid", () =>
    Effect.gen(function*() {
      const codec = yield* Cursor.makeCodec(keyA)
      const cursor = yield* codec.encode(payload())
      let checked = 0
      for (let i = 0; i < cursor.length; i++) {
        const at = alphabet.indexOf(cursor[i])
        for (const shift of [1, 2, 32]) {
          const tampered = cursor.slice(0, i) + alphabet[(at + shift) % 64] + cursor.slice(i + 1)
          const error = yield* decodeError(codec, tampered)
          assert.strictEqual(error._tag, "CursorInvalid", `position ${i}`)
          checked++
        }
      }
      assert.strictEqual(checked, cursor.length * 3)
      assert.isAbove(cursor.length, 200)
    }))

  it.effect("flipping any bit of any byte (format, nonce, ciphertext, tag) gives CursorInvalid", () =>
    Effect.gen(function*() {
      const codec = yield* Cursor.makeCodec(keyA)
      const cursor = yield* codec.encode(payload())
      const bytes = bytesOf(cursor)
      for (let byte = 0; byte < bytes.length; byte++) {
        for (let bit = 0; bit < 8; bit++) {
          const tampered = Uint8Array.from(bytes)
          tampered[byte] ^= 1 << bit
          const error = yield* decodeError(codec, Base64Url.encode(tampered))
          assert.strictEqual(error._tag, "CursorInvalid", `byte ${byte} bit ${bit}`)
        }
      }
      // the untampered cursor is still fine
      assert.deepStrictEqual(yield* codec.decode(cursor, binding), payload())
    }))

  it.effect("truncating or extending the cursor gives CursorInvalid", () =>
    Effect.gen(function*() {
      const codec = yield* Cursor.makeCodec(keyA)
      const cursor = yield* codec.encode(payload())
      const bytes = bytesOf(cursor)
      const variants = [
        cursor.slice(0, -1),
        cursor.slice(0, -4),
        cursor.slice(1),
        cursor.slice(4),
        `${cursor}A`,
        `${cursor}AAAA`,
        `A${cursor}`,
        `${cursor}.`,
        `.${cursor}`,
        `${cursor.slice(0, 40)}.${cursor.slice(40)}`,
        `${cursor} `,
        ` ${cursor}`,
        Base64Url.encode(bytes.subarray(0, bytes.length - 1)),
        Base64Url.encode(bytes.subarray(0, 1 + 12 + 16)),
        Base64Url.encode(bytes.subarray(0, 1 + 12)),
        Base64Url.encode(Uint8Array.of(...bytes, 0)),
        Base64Url.encode(Uint8Array.of(...bytes, ...bytes))
      ]
      for (const v of variants) {
        assert.strictEqual((yield* decodeError(codec, v))._tag, "CursorInvalid", v.slice(0, 40))
      }
    }))

  // Base64Url.decode is lenient (unused bits, padding, CR/LF): only the canonical spelling may pass.
  it.effect("a non-canonical spelling of a valid cursor is refused: `=` padding, a line break, unused bits set", () =>
    Effect.gen(function*() {
      const codec = yield* Cursor.makeCodec(keyA)
      // A cursor whose length leaves unused bits in its last character (its byte length not a multiple of 3).
      let cursor = ""
      for (let b = 0; cursor === "" || cursor.length % 4 === 0; b++) cursor = yield* codec.encode(payload({ b }))
      assert.isDefined(yield* codec.decode(cursor, binding))
      const padded = cursor + "=".repeat(4 - cursor.length % 4)
      const respelled = cursor.slice(0, -1) + alphabet[alphabet.indexOf(cursor[cursor.length - 1]!) ^ 1]
      const broken = `${cursor.slice(0, -10)}\n${cursor.slice(-10)}`
      for (const variant of [padded, respelled, broken, `${cursor}\r\n`]) {
        assert.deepStrictEqual(Base64Url.decode(variant), Base64Url.decode(cursor), "decodes to the same bytes")
        assert.strictEqual((yield* decodeError(codec, variant))._tag, "CursorInvalid", JSON.stringify(variant.slice(-6)))
      }
    }))

  it.effect("garbage strings give CursorInvalid, never a defect", () =>
    Effect.gen(function*() {
      const codec = yield* Cursor.makeCodec(keyA)
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
        // the format before sealing: base64url(JSON) "." base64url(HMAC)
        `${Base64Url.encode(JSON.stringify({ ...payload(), v: 1 }))}.${"A".repeat(43)}`,
        Base64Url.encode(JSON.stringify(payload())),
        valid.replace(valid[10]!, "+"),
        `${valid.slice(0, 5)}+${valid.slice(6)}`,
        `${valid.slice(0, -5)}/${valid.slice(-4)}`,
        "x".repeat(4097),
        "A".repeat(4096),
        `${valid}${".".repeat(4096)}`
      ]
      for (const g of garbage) {
        assert.strictEqual((yield* decodeError(codec, g))._tag, "CursorInvalid", JSON.stringify(g.slice(0, 40)))
      }
    }))

  it.effect("correctly sealed contents that are not UTF-8, not JSON or not a cursor give CursorInvalid", () =>
    Effect.gen(function*() {
      const codec = yield* Cursor.makeCodec(keyA)
      const good = payload()
      const json = (value: unknown) => JSON.stringify(value)
      const contents: Array<string | Uint8Array> = [
        "",
        "not json",
        "{\"v\":2,",
        new Uint8Array([0xff, 0xfe, 0xfd, 0x80, 0x81]),
        json(null),
        json(1),
        json("cursor"),
        json([]),
        json({}),
        json([good]),
        json({ ...good, v: 1 }),
        json({ ...good, v: 3 }),
        json({ ...good, v: "2" }),
        json({ ...good, e: 1 }),
        json({ ...good, q: null }),
        json({ ...good, n: 7 }),
        json({ ...good, s: ["name"] }),
        json({ ...good, k: [1] }),
        json({ ...good, k: [1, 2] }),
        json({ ...good, k: [true, "id"] }),
        json({ ...good, k: [1, "id", "extra"] }),
        json({ ...good, k: { 0: 1, 1: "id" } }),
        json({ ...good, b: "0" }),
        json({ ...good, t: null }),
        json({ v: 2, e: good.e, q: good.q, s: good.s, k: good.k, b: good.b, t: good.t })
      ]
      for (const content of contents) {
        const cursor = yield* sealedWith(keyA, content)
        assert.strictEqual((yield* decodeError(codec, cursor))._tag, "CursorInvalid", String(content).slice(0, 60))
      }
      // A right payload sealed under another format byte (the associated data) does not open either.
      assert.strictEqual((yield* decodeError(codec, yield* sealedWith(keyA, json(good), 1)))._tag, "CursorInvalid")
      // the helper itself produces cursors the codec accepts when the content is right
      assert.deepStrictEqual(yield* codec.decode(yield* sealedWith(keyA, json(good)), binding), good)
    }))

  it.effect("a cursor sealed with another key gives CursorInvalid", () =>
    Effect.gen(function*() {
      const a = yield* Cursor.makeCodec(keyA)
      const b = yield* Cursor.makeCodec(keyB)
      const cursor = yield* b.encode(payload())
      assert.strictEqual((yield* decodeError(a, cursor))._tag, "CursorInvalid")
      assert.deepStrictEqual(yield* b.decode(cursor, binding), payload())
    }))

  it.effect("another endpoint, query string or tenant gives CursorMismatch", () =>
    Effect.gen(function*() {
      const codec = yield* Cursor.makeCodec(keyA)
      const cursor = yield* codec.encode(payload())
      const others: Array<Cursor.CursorBinding> = [
        { ...binding, endpoint: "GET /v1/datasets" },
        { ...binding, endpoint: "GET /v1/workspaces/" },
        { ...binding, endpoint: "get /v1/workspaces" },
        { ...binding, query: binding.query.replace(/.$/, "1") },
        { ...binding, query: "" },
        { ...binding, tenant: "0199a1b2-c3d4-7e5f-8a6b-000000000002" },
        { ...binding, tenant: "" },
        { ...binding, tenant: tenant.toUpperCase() }
      ]
      for (const other of others) {
        const error = yield* decodeError(codec, cursor, other)
        assert.strictEqual(error._tag, "CursorMismatch", JSON.stringify(other))
        assert.strictEqual(error.code, "pagination/cursor-mismatch")
      }
      assert.deepStrictEqual(yield* codec.decode(cursor, binding), payload())
    }))

  it.effect("valid exactly 24 hours after issue, CursorExpired 1 ms later; a tampered old cursor is CursorInvalid", () =>
    Effect.gen(function*() {
      const issuedAt = 1_767_225_600_123
      yield* TestClock.setTime(issuedAt)
      const codec = yield* Cursor.makeCodec(keyA)
      const cursor = yield* codec.encode(payload({ t: issuedAt }))
      assert.strictEqual(Duration.toMillis(Cursor.cursorLifetime), 86_400_000)
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
      // Checks run seal, binding, age: an old cursor of another tenant is a mismatch, an altered one invalid.
      assert.strictEqual((yield* decodeError(codec, cursor, { ...binding, tenant: "other" }))._tag, "CursorMismatch")
      const bytes = bytesOf(cursor)
      bytes[bytes.length - 1] ^= 1
      assert.strictEqual((yield* decodeError(codec, Base64Url.encode(bytes)))._tag, "CursorInvalid")
    }))

  it.effect("the error codes are the catalogued ones", () =>
    Effect.gen(function*() {
      const codec = yield* Cursor.makeCodec(keyA)
      const error = yield* decodeError(codec, "garbage")
      assert.strictEqual(error.code, "pagination/cursor-invalid")
    }))

  describe("CursorCodec.layer", () => {
    const codecOver = (secrets: typeof ServiceSecrets.ServiceSecrets.Service) =>
      Effect.provide(
        Effect.gen(function*() {
          return yield* Cursor.CursorCodec
        }),
        Layer.fresh(Cursor.CursorCodec.layer).pipe(Layer.provide(Layer.succeed(ServiceSecrets.ServiceSecrets, secrets)))
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

    it.effect("the key is derived from the persisted cursor-hmac secret: 32 random bytes, base64url", () =>
      Effect.gen(function*() {
        const secrets = yield* MemoryStores.serviceSecrets
        const codec = yield* codecOver(secrets)
        const stored = yield* secrets.getOrCreate("cursor-hmac", Effect.succeed("must not be used"))
        assert.match(stored, /^[A-Za-z0-9_-]{43}$/)
        const raw = Base64Url.decode(stored)
        assert.isTrue(raw._tag === "Success" && raw.success.length === 32)
        if (raw._tag !== "Success") return
        const direct = yield* Cursor.makeCodec(raw.success)
        assert.deepStrictEqual(yield* direct.decode(yield* codec.encode(payload()), binding), payload())
        assert.deepStrictEqual(yield* codec.decode(yield* direct.encode(payload()), binding), payload())
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
