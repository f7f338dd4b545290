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

  it.effect("agrees with Web Crypto on AES-256-GCM both ways, and opens nothing altered", () =>
    Effect.promise(() =>
      fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ minLength: 32, maxLength: 32 }),
          fc.uint8Array({ minLength: 12, maxLength: 12 }),
          fc.uint8Array({ maxLength: 200 }),
          fc.uint8Array({ minLength: 1, maxLength: 8 }),
          async (raw, nonce, plain, aad) => {
            const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)
            const node = await run(NodeCrypto.primitives.aesGcmKey(raw))
            const web = await run(Crypto.webCrypto.aesGcmKey(raw))
            const sealed = await run(node.seal(nonce, plain, aad))
            assert.deepStrictEqual(sealed, await run(web.seal(nonce, plain, aad)))
            assert.deepStrictEqual(await run(web.open(nonce, sealed, aad)), plain)
            assert.deepStrictEqual(await run(node.open(nonce, sealed, aad)), plain)
            const altered = Uint8Array.from(sealed, (b, i) => (i === 0 ? b ^ 1 : b))
            assert.isUndefined(await run(node.open(nonce, altered, aad)))
            assert.isUndefined(await run(web.open(nonce, altered, aad)))
            assert.isUndefined(await run(node.open(nonce, sealed, Uint8Array.of(...aad, 0))))
            assert.isUndefined(await run(node.open(nonce, sealed.subarray(0, 8), aad)))
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
