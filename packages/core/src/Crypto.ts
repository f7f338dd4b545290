/**
 * The few primitives the core needs from Web Crypto (present in Node,
 * Deno, Bun and browsers, so the core stays free of Node).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Hex from "effect/encoding/Hex"

const encoder = new TextEncoder()

/** SHA-256 of a UTF-8 string, as lowercase hex. */
export const sha256Hex = (input: string): Effect.Effect<string> =>
  Effect.promise(() => crypto.subtle.digest("SHA-256", encoder.encode(input))).pipe(
    Effect.map((digest) => Hex.encode(new Uint8Array(digest)))
  )

/** Imports an HMAC-SHA256 key from its raw bytes. */
export const hmacKey = (raw: Uint8Array): Effect.Effect<CryptoKey> =>
  Effect.promise(() =>
    crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, [
      "sign",
      "verify"
    ])
  )

/** HMAC-SHA256 of a UTF-8 string. */
export const hmacSign = (key: CryptoKey, data: string): Effect.Effect<Uint8Array> =>
  Effect.promise(() => crypto.subtle.sign("HMAC", key, encoder.encode(data))).pipe(
    Effect.map((signature) => new Uint8Array(signature))
  )

/** Verifies an HMAC-SHA256 signature in constant time. */
export const hmacVerify = (key: CryptoKey, signature: Uint8Array, data: string): Effect.Effect<boolean> =>
  Effect.promise(() => crypto.subtle.verify("HMAC", key, signature as Uint8Array<ArrayBuffer>, encoder.encode(data)))
