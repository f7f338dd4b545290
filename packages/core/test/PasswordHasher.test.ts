/**
 * Core's default password hasher, PBKDF2-SHA256 on Web Crypto: a salted PHC
 * string that verifies its password and nothing else, iterations read from
 * the hash, and malformed hashes matching nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { pbkdf2, pbkdf2Iterations } from "../src/auth/PasswordHasher.ts"

describe("PBKDF2 password hasher", () => {
  it.effect("hashes to a salted PHC string that verifies the password only", () =>
    Effect.gen(function*() {
      const hasher = pbkdf2(1_000)
      const first = yield* hasher.hash("correct horse battery")
      const second = yield* hasher.hash("correct horse battery")
      assert.match(first, /^\$pbkdf2-sha256\$i=1000\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
      assert.notStrictEqual(first, second, "each hash has its own salt")
      assert.isTrue(yield* hasher.verify(first, "correct horse battery"))
      assert.isTrue(yield* hasher.verify(second, "correct horse battery"))
      assert.isFalse(yield* hasher.verify(first, "correct horse batterY"))
      assert.isFalse(yield* hasher.verify(first, ""))
    }))

  it.effect("verifies with the iterations the hash names, so a stronger default still accepts old hashes", () =>
    Effect.gen(function*() {
      const old = yield* pbkdf2(1_000).hash("s3cret-pass")
      assert.isTrue(yield* pbkdf2(2_000).verify(old, "s3cret-pass"))
      assert.isFalse(yield* pbkdf2(1_000).verify(old.replace("i=1000", "i=1001"), "s3cret-pass"))
      assert.strictEqual(pbkdf2Iterations, 600_000)
    }))

  it.effect("matches nothing with a malformed or foreign hash", () =>
    Effect.gen(function*() {
      const hasher = pbkdf2(1_000)
      for (
        const hash of [
          "",
          "plain",
          "$pbkdf2-sha256$i=0$c2FsdHNhbHRzYWx0c2FsdA$aGFzaA",
          "$pbkdf2-sha256$i=1000$$aGFzaA",
          "$pbkdf2-sha512$i=1000$c2FsdA$aGFzaA",
          "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA"
        ]
      ) assert.isFalse(yield* hasher.verify(hash, "anything"), hash)
    }))
})
