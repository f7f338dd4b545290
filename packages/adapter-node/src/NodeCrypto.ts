/**
 * Core's `Crypto` port on `node:crypto`: SHA-256, HMAC-SHA256 and
 * AES-256-GCM computed synchronously, without Web Crypto's promise and
 * thread-pool round trip per call (API token hashes, sealed cursors, signed
 * URLs and webhook signatures are all on the request path).
 *
 * @since 0.1.0
 */
import { Crypto } from "@analytics/core"
import { Effect, Layer } from "effect"
import * as NodeCryptoModule from "node:crypto"

/** AES-GCM's tag length, in bytes (Web Crypto's default, which sealed cursors use). */
const tagLength = 16

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
  },
  aesGcmKey: (raw) => {
    const key = NodeCryptoModule.createSecretKey(raw)
    return Effect.succeed({
      seal: (nonce, plain, aad) =>
        Effect.sync(() => {
          const cipher = NodeCryptoModule.createCipheriv("aes-256-gcm", key, nonce, { authTagLength: tagLength }).setAAD(aad)
          // A Buffer is a Uint8Array: returned as it is, not copied.
          return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()])
        }),
      open: (nonce, sealed, aad) =>
        Effect.sync(() => {
          if (sealed.length < tagLength) return undefined
          try {
            const decipher = NodeCryptoModule.createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: tagLength }).setAAD(aad)
            decipher.setAuthTag(sealed.subarray(sealed.length - tagLength))
            return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - tagLength)), decipher.final()])
          } catch {
            // A wrong tag: not sealed with this key, nonce and associated data.
            return undefined
          }
        })
    })
  }
}

/** Provides the primitives to everything built on this layer. */
export const layer = Layer.succeed(Crypto.Crypto, primitives)
