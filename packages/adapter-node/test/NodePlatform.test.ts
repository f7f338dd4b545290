/**
 * The Node primitives give the same answers as core's Web Crypto default
 * (hex digests, HMAC signatures, AES-GCM seals, verification both ways) and reach core's
 * functions when provided; Argon2id hashes verify their password only.
 */
import { Crypto, PasswordHasher } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import { Argon2PasswordHasher, NodeCrypto } from "../src/index.ts"

describe("NodeCrypto", () => {
  it.effect("agrees with Web Crypto on SHA-256 and HMAC-SHA256", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(fc.string({ unit: "grapheme" }), fc.uint8Array({ minLength: 1, maxLength: 64 }), async (text, raw) => {
          const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)
          assert.strictEqual(await run(NodeCrypto.primitives.sha256Hex(text)), await run(Crypto.webCrypto.sha256Hex(text)))
          const node = await run(NodeCrypto.primitives.hmacKey(raw))
          const web = await run(Crypto.webCrypto.hmacKey(raw))
          const signature = await run(node.sign(text))
          assert.deepStrictEqual(signature, await run(web.sign(text)))
          assert.isTrue(await run(web.verify(signature, text)))
          assert.isTrue(await run(node.verify(await run(web.sign(text)), text)))
          assert.isFalse(await run(node.verify(signature.subarray(1), text)))
          assert.isFalse(await run(node.verify(signature, `${text}.`)))
        }),
        { numRuns: 50 }
      )
    ))

  it.effect("seals tokens Web Crypto opens and opens Web Crypto's, and opens nothing altered, re-spelled or under another header", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ minLength: 32, maxLength: 32 }),
          fc.string({ maxLength: 200, unit: "grapheme" }),
          fc.uint8Array({ minLength: 1, maxLength: 8 }),
          async (raw, plain, header) => {
            const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)
            const node = await run(NodeCrypto.primitives.aesGcmKey(raw))
            const web = await run(Crypto.webCrypto.aesGcmKey(raw))
            const fromNode = await run(node.seal(header, plain))
            const fromWeb = await run(web.seal(header, plain))
            // A fresh nonce per seal: two tokens of one text differ, and each side opens both.
            assert.notStrictEqual(fromNode, fromWeb)
            for (const token of [fromNode, fromWeb]) {
              assert.isTrue(Crypto.isCanonicalBase64Url(token))
              assert.strictEqual(await run(node.open(header, token)), plain)
              assert.strictEqual(await run(web.open(header, token)), plain)
            }
            // The header leads the token in clear: the same bytes, then nonce, ciphertext and tag.
            const bytes = Buffer.from(fromNode, "base64url")
            assert.deepStrictEqual([...bytes.subarray(0, header.length)], [...header])
            assert.strictEqual(bytes.length, header.length + 12 + Buffer.byteLength(plain) + 16)
            const altered = Buffer.from(bytes.map((b, i) => (i === bytes.length - 1 ? b ^ 1 : b))).toString("base64url")
            const otherHeader = Uint8Array.of(...header, 0)
            const truncated = bytes.subarray(0, header.length + 27).toString("base64url")
            // One byte more in a 4n + 2 text's last character is the same bytes, spelled otherwise.
            const padded = `${fromNode}=`
            for (const opener of [node, web]) {
              assert.isUndefined(await run(opener.open(header, altered)))
              assert.isUndefined(await run(opener.open(otherHeader, fromNode)))
              assert.isUndefined(await run(opener.open(header, truncated)))
              assert.isUndefined(await run(opener.open(header, padded)))
            }
          }
        ),
        { numRuns: 50 }
      )
    ))

  it.effect("is what core's functions use once provided", () =>
    Effect.gen(function*() {
      let calls = 0
      const counting: Crypto.Primitives = {
        ...NodeCrypto.primitives,
        sha256Hex: (input) => Effect.suspend(() => (calls++, NodeCrypto.primitives.sha256Hex(input)))
      }
      const digest = yield* Crypto.sha256Hex("abc").pipe(Effect.provideService(Crypto.Crypto, counting))
      assert.strictEqual(digest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
      assert.strictEqual(calls, 1)
      assert.strictEqual(yield* Crypto.sha256Hex("abc"), digest, "Web Crypto without a layer")
      assert.strictEqual(calls, 1)
    }))
})

describe("Argon2PasswordHasher", () => {
  it.effect("hashes with Argon2id and OWASP's parameters, and verifies the password only", () =>
    Effect.gen(function*() {
      const hasher = yield* Effect.provide(Effect.service(PasswordHasher.PasswordHasher), Argon2PasswordHasher.layer)
      const hash = yield* hasher.hash("correct horse battery")
      assert.match(hash, /^\$argon2id\$v=19\$m=19456,p=1,t=2\$/)
      assert.isTrue(yield* hasher.verify(hash, "correct horse battery"))
      assert.isFalse(yield* hasher.verify(hash, "correct horse batterY"))
      assert.isFalse(yield* hasher.verify("$pbkdf2-sha256$i=1000$c2FsdA$aGFzaA", "correct horse battery"))
    }))
})
