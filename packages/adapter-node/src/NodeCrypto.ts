/**
 * Core's `Crypto` port on `node:crypto`: SHA-256, HMAC-SHA256 and
 * AES-256-GCM computed synchronously, without Web Crypto's promise and
 * thread-pool round trip per call (API token hashes, sealed cursors, signed
 * URLs and webhook signatures are all on the request path).
 *
 * @since 0.1.0
 */
import { Crypto, Ids } from "@analytics/core"
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
  },
  aesGcmKey: (raw) => {
    const key = NodeCryptoModule.createSecretKey(raw)
    const options = { authTagLength: Crypto.aeadTagLength }
    return Effect.succeed({
      // The token's bytes, cipher and base64url all in Node's own code: one allocation for the token's bytes.
      seal: (header, plain) =>
        Effect.sync(() => {
          // From core's pool of random bytes: Node's `randomBytes` per nonce calls OpenSSL's generator each time.
          const iv = Ids.randomBytesUnsafe(Crypto.aeadNonceLength)
          const cipher = NodeCryptoModule.createCipheriv("aes-256-gcm", key, iv, options).setAAD(header)
          const body = cipher.update(plain, "utf8")
          cipher.final()
          return Buffer.concat([header, iv, body, cipher.getAuthTag()]).toString("base64url")
        }),
      open: (header, token) =>
        Effect.sync(() => {
          // Node's decoder is lenient: only the one canonical spelling is a token.
          if (!Crypto.isCanonicalBase64Url(token)) return undefined
          const bytes = Buffer.from(token, "base64url")
          if (!Crypto.startsWithHeader(bytes, header)) return undefined
          const start = header.length + Crypto.aeadNonceLength
          const end = bytes.length - Crypto.aeadTagLength
          try {
            const decipher = NodeCryptoModule.createDecipheriv("aes-256-gcm", key, bytes.subarray(header.length, start), options)
              .setAAD(header)
              .setAuthTag(bytes.subarray(end))
            const plain = decipher.update(bytes.subarray(start, end))
            decipher.final()
            // Decoded once the tag is verified; a string output would make Node build a StringDecoder per opening.
            return plain.toString("utf8")
          } catch {
            // A wrong tag: not sealed with this key and header.
            return undefined
          }
        })
    })
  }
}

/** Provides the primitives to everything built on this layer. */
export const layer = Layer.succeed(Crypto.Crypto, primitives)
