/**
 * Signed result URLs: a signature verifies for its path until it expires,
 * and only in the one spelling the service gives it.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Result } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import { base64UrlEncode, decodeBase64UrlCanonical, isCanonicalBase64Url } from "../src/platform/Crypto.ts"
import * as SignedUrl from "../src/exports/SignedUrl.ts"

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const now = 1_830_000_000_000
const refusal = (result: Result.Result<void, SignedUrl.Refusal>) => Result.isFailure(result) ? result.failure : "accepted"

describe("SignedUrl", () => {
  it.effect("a signature verifies for its path until it expires; another path or a later expiry is refused", () =>
    Effect.gen(function*() {
      const signer = yield* SignedUrl.make(new Uint8Array(32).fill(3))
      const { expires, signature } = yield* signer.sign("/v1/jobs/a/file", new Date(now + 60_000))
      assert.strictEqual(refusal(yield* signer.verify("/v1/jobs/a/file", expires, signature, now)), "accepted")
      assert.strictEqual(refusal(yield* signer.verify("/v1/jobs/a/file", expires, signature, now + 60_000)), "expired")
      assert.strictEqual(refusal(yield* signer.verify("/v1/jobs/b/file", expires, signature, now)), "invalid")
      assert.strictEqual(refusal(yield* signer.verify("/v1/jobs/a/file", String(Number(expires) + 1), signature, now)), "invalid")
    }))

  it.effect("only the canonical signature: `=` appended, a respelled last character, a line break or anything appended is refused", () =>
    Effect.gen(function*() {
      const signer = yield* SignedUrl.make(new Uint8Array(32).fill(3))
      const { expires, signature } = yield* signer.sign("/p", new Date(now + 60_000))
      // HMAC-SHA256: 32 bytes in 43 characters, whose last carries 2 unused bits.
      const respelled = signature.slice(0, -1) + alphabet[alphabet.indexOf(signature[42]!) ^ 1]
      assert.deepStrictEqual(Base64Url.decode(respelled), Base64Url.decode(signature), "the same bytes")
      for (const variant of [`${signature}=`, `${signature}==`, respelled, `${signature}\n`, `${signature.slice(0, 20)}\r\n${signature.slice(20)}`, `${signature}A`, ""]) {
        assert.strictEqual(refusal(yield* signer.verify("/p", expires, variant, now)), "invalid", JSON.stringify(variant))
      }
    }))
})

describe("base64UrlEncode", () => {
  it("writes what Base64Url.encode writes, for bytes of every length to 300 and for text", () => {
    let seed = 7
    for (let length = 0; length <= 300; length++) {
      const bytes = Uint8Array.from({ length }, () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % 256)
      assert.strictEqual(base64UrlEncode(bytes), Base64Url.encode(bytes), String(length))
    }
    for (const text of ["", "a", "ab", "abc", "Grüße, 世界 🙂", "x".repeat(1000)]) assert.strictEqual(base64UrlEncode(text), Base64Url.encode(text), text)
  })
})

describe("decodeBase64UrlCanonical", () => {
  it("decodes exactly what base64UrlEncode spells, and nothing else", () => {
    for (const length of [0, 1, 2, 3, 4, 31, 32, 33]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 37 + 11) % 256)
      const text = Base64Url.encode(bytes)
      assert.deepStrictEqual(decodeBase64UrlCanonical(text), bytes, text)
      assert.isFalse(isCanonicalBase64Url(`${text}=`))
      assert.isFalse(isCanonicalBase64Url(text.replace(/.$/, (c) => alphabet[alphabet.indexOf(c) ^ 1]!)) && length % 3 !== 0)
    }
    for (const bad of ["a", "ab+c", "ab/c", "ab c", "AA==", "AB", "AAB"]) assert.isFalse(isCanonicalBase64Url(bad), bad)
  })

  it("accepts a text exactly when encoding what it decodes to spells it again (every text of 1 to 3 characters, after any prefix)", () => {
    for (const prefix of ["", "AAAA", "_-9z"]) {
      const texts = [...alphabet].flatMap((a) => [a, ...[...alphabet].flatMap((b) => [a + b, ...[...alphabet].map((c) => a + b + c)])])
      for (const tail of texts) {
        const text = prefix + tail
        const decoded = Base64Url.decode(text)
        const respells = decoded._tag === "Success" && Base64Url.encode(decoded.success) === text
        assert.strictEqual(isCanonicalBase64Url(text), respells, text)
      }
    }
  })
})
