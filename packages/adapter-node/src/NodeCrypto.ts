/**
 * Core's `Crypto` port on `node:crypto`: SHA-256 and HMAC-SHA256 computed
 * synchronously, without Web Crypto's promise and thread-pool round trip
 * per call (API token hashes, cursors, signed URLs and webhook signatures
 * are all on the request path).
 *
 * @since 0.1.0
 */
import { Crypto } from "@analytics/core"
import { Effect, Layer } from "effect"
import * as NodeCryptoModule from "node:crypto"

/** The primitives on `node:crypto`. */
export const primitives: Crypto.Primitives = {
  sha256Hex: (input) => Effect.sync(() => NodeCryptoModule.hash("sha256", input, "hex")),
  hmacKey: (raw) => {
    const key = NodeCryptoModule.createSecretKey(raw)
    const sign = (data: string) => NodeCryptoModule.createHmac("sha256", key).update(data).digest()
    return Effect.succeed({
      sign: (data) => Effect.sync(() => new Uint8Array(sign(data))),
      verify: (signature, data) =>
        Effect.sync(() => {
          const expected = sign(data)
          return signature.length === expected.length && NodeCryptoModule.timingSafeEqual(signature, expected)
        })
    })
  }
}

/** Provides the primitives to everything built on this layer. */
export const layer = Layer.succeed(Crypto.Crypto, primitives)
