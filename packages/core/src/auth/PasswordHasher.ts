/**
 * Port: hashing public-link passwords (decision 0014). The core only ever
 * holds the hash; the algorithm comes from a layer. The default,
 * `layerPbkdf2`, runs on Web Crypto everywhere; on Node the host uses
 * Argon2id (`Argon2PasswordHasher` in `@analytics/adapter-node`).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import * as Base64 from "effect/encoding/Base64"

/** Hashes passwords and checks them against a stored hash. */
export class PasswordHasher extends Context.Service<PasswordHasher, {
  /** A self-describing hash (PHC string: algorithm, parameters, salt) of `password`. */
  readonly hash: (password: string) => Effect.Effect<string>
  /** Whether `password` matches `hash`; a malformed hash matches nothing. */
  readonly verify: (hash: string, password: string) => Effect.Effect<boolean>
}>()("@analytics/core/PasswordHasher") {
  /** PBKDF2-HMAC-SHA256 on Web Crypto with OWASP's iteration count (see `pbkdf2`). */
  static readonly layerPbkdf2 = Layer.sync(PasswordHasher, () => pbkdf2())
}

/** OWASP's minimum for PBKDF2-HMAC-SHA256 (Password Storage Cheat Sheet). */
export const pbkdf2Iterations = 600_000

const encoder = new TextEncoder()
const phc = /^\$pbkdf2-sha256\$i=(\d{1,7})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/

const derive = (password: string, salt: Uint8Array, iterations: number) =>
  Effect.promise(async () => {
    const key = await globalThis.crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"])
    const bits = await globalThis.crypto.subtle.deriveBits(
      { name: "PBKDF2", hash: "SHA-256", salt: salt as Uint8Array<ArrayBuffer>, iterations },
      key,
      256
    )
    return new Uint8Array(bits)
  })

/** Constant-time equality of two byte arrays of the same length. */
const equalBytes = (a: Uint8Array, b: Uint8Array): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i]
  return difference === 0
}

const unpadded = (bytes: Uint8Array) => Base64.encode(bytes).replace(/=+$/, "")
const decodeUnpadded = (text: string) => Base64.decode(text.padEnd(Math.ceil(text.length / 4) * 4, "="))

/**
 * A PasswordHasher on PBKDF2-HMAC-SHA256 (Web Crypto): 16 random bytes of
 * salt, a 32-byte key, as the PHC string
 * `$pbkdf2-sha256$i=<iterations>$<salt>$<key>` (unpadded base64). Verifying
 * reads the iterations from the hash, so a stronger count later still
 * verifies old hashes.
 */
export const pbkdf2 = (iterations: number = pbkdf2Iterations): PasswordHasher["Service"] => ({
  hash: (password) => {
    const salt = globalThis.crypto.getRandomValues(new Uint8Array(16))
    return Effect.map(
      derive(password, salt, iterations),
      (key) => `$pbkdf2-sha256$i=${iterations}$${unpadded(salt)}$${unpadded(key)}`
    )
  },
  verify: (hash, password) => {
    const match = phc.exec(hash)
    const salt = match === null ? undefined : decodeUnpadded(match[2])
    const expected = match === null ? undefined : decodeUnpadded(match[3])
    if (match === null || salt?._tag !== "Success" || expected?._tag !== "Success" || Number(match[1]) < 1) {
      return Effect.succeed(false)
    }
    return Effect.map(derive(password, salt.success, Number(match[1])), (key) => equalBytes(key, expected.success))
  }
})
