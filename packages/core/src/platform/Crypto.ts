/**
 * The few cryptographic primitives the core needs, behind a port. The
 * default runs on Web Crypto, everywhere; a platform adapter may provide a
 * faster one (`NodeCrypto` in `@analytics/adapter-node` hashes, signs and
 * seals synchronously, which matters on the request path: each Web Crypto
 * call is a promise and a thread-pool round trip).
 *
 * @since 0.1.0
 */
import { Context, Effect } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Hex from "effect/encoding/Hex"
import { randomBytesUnsafe } from "./Ids.ts"

/** An HMAC-SHA256 key, prepared once for many signatures. */
export interface HmacKey {
  readonly sign: (data: string) => Effect.Effect<Uint8Array>
  /** Constant-time comparison of a signature against the data's. */
  readonly verify: (signature: Uint8Array, data: string) => Effect.Effect<boolean>
}

/**
 * An AES-256-GCM key, prepared once for many seals. It seals text into one
 * unpadded base64url token, `header ‖ nonce (12 bytes) ‖ ciphertext ‖ tag
 * (16 bytes)`, the header authenticated as associated data and the nonce
 * fresh from the platform's secure generator: one call per seal or opening,
 * so a platform can do the bytes, the cipher and the base64url in its own
 * code (the cursor of every list page is one).
 */
export interface AeadKey {
  /** The token of `plain` (UTF-8) under `header`, with a fresh random nonce. */
  readonly seal: (header: Uint8Array, plain: string) => Effect.Effect<string>
  /**
   * The text `token` seals, or `undefined` when it is not one `seal` made
   * with this key and header: not canonical base64url, too short, another
   * header, or altered.
   */
  readonly open: (header: Uint8Array, token: string) => Effect.Effect<string | undefined>
}

/** AES-GCM's nonce length in a sealed token, in bytes. */
export const aeadNonceLength = 12
/** AES-GCM's tag length in a sealed token, in bytes. */
export const aeadTagLength = 16

/** What a platform provides: SHA-256, HMAC-SHA256 and AES-256-GCM. */
export interface Primitives {
  /** SHA-256 of a UTF-8 string, as lowercase hex. */
  readonly sha256Hex: (input: string) => Effect.Effect<string>
  /** Prepares an HMAC-SHA256 key from its raw bytes. */
  readonly hmacKey: (raw: Uint8Array) => Effect.Effect<HmacKey>
  /** Prepares an AES-256-GCM key from its 32 raw bytes. */
  readonly aesGcmKey: (raw: Uint8Array) => Effect.Effect<AeadKey>
}

const encoder = new TextEncoder()

/** The primitives on Web Crypto (`globalThis.crypto.subtle`). */
export const webCrypto: Primitives = {
  sha256Hex: (input) =>
    Effect.map(
      Effect.promise(() => globalThis.crypto.subtle.digest("SHA-256", encoder.encode(input))),
      (digest) => Hex.encode(new Uint8Array(digest))
    ),
  hmacKey: (raw) =>
    Effect.map(
      Effect.promise(() =>
        globalThis.crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, [
          "sign",
          "verify"
        ])
      ),
      (key): HmacKey => ({
        sign: (data) =>
          Effect.map(
            Effect.promise(() => globalThis.crypto.subtle.sign("HMAC", key, encoder.encode(data))),
            (s) => new Uint8Array(s)
          ),
        verify: (signature, data) =>
          Effect.promise(() =>
            globalThis.crypto.subtle.verify("HMAC", key, signature as Uint8Array<ArrayBuffer>, encoder.encode(data))
          )
      })
    ),
  aesGcmKey: (raw) =>
    Effect.map(
      Effect.promise(() =>
        globalThis.crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, { name: "AES-GCM" }, false, ["encrypt", "decrypt"])
      ),
      (key): AeadKey => ({
        seal: (header, plain) =>
          Effect.promise(async () => {
            const nonce = randomBytesUnsafe(aeadNonceLength)
            const sealed = new Uint8Array(
              await globalThis.crypto.subtle.encrypt(
                { name: "AES-GCM", iv: nonce, additionalData: header as Uint8Array<ArrayBuffer> },
                key,
                encoder.encode(plain)
              )
            )
            const bytes = new Uint8Array(header.length + aeadNonceLength + sealed.length)
            bytes.set(header)
            bytes.set(nonce, header.length)
            bytes.set(sealed, header.length + aeadNonceLength)
            return base64UrlEncode(bytes)
          }),
        open: (header, token) => {
          const bytes = decodeBase64UrlCanonical(token)
          if (bytes === undefined || !startsWithHeader(bytes, header)) return Effect.succeed(undefined)
          const start = header.length + aeadNonceLength
          return Effect.promise(() =>
            globalThis.crypto.subtle.decrypt(
              { name: "AES-GCM", iv: bytes.subarray(header.length, start) as Uint8Array<ArrayBuffer>, additionalData: header as Uint8Array<ArrayBuffer> },
              key,
              bytes.subarray(start) as Uint8Array<ArrayBuffer>
            ).then((plain) => utf8Decoder.decode(plain), () => undefined)
          )
        }
      })
    )
}

/** Decodes an opened token's text (invalid sequences become U+FFFD, as Node's decoder does: the text was sealed by this key). */
const utf8Decoder = new TextDecoder()

/** Whether `bytes` are long enough for a sealed token under `header` and begin with it. */
export const startsWithHeader = (bytes: Uint8Array, header: Uint8Array): boolean => {
  if (bytes.length < header.length + aeadNonceLength + aeadTagLength) return false
  for (let i = 0; i < header.length; i++) if (bytes[i] !== header[i]) return false
  return true
}

/** The platform's primitives: Web Crypto unless a layer provides others. */
export const Crypto = Context.Reference<Primitives>("@analytics/core/Crypto", { defaultValue: () => webCrypto })

/** SHA-256 of a UTF-8 string, as lowercase hex, on the platform's primitives. */
export const sha256Hex = (input: string): Effect.Effect<string> => Crypto.use((crypto) => crypto.sha256Hex(input))

/** Prepares an HMAC-SHA256 key from its raw bytes, on the platform's primitives. */
export const hmacKey = (raw: Uint8Array): Effect.Effect<HmacKey> => Crypto.use((crypto) => crypto.hmacKey(raw))

/** Prepares an AES-256-GCM key from its 32 raw bytes, on the platform's primitives. */
export const aesGcmKey = (raw: Uint8Array): Effect.Effect<AeadKey> => Crypto.use((crypto) => crypto.aesGcmKey(raw))

const base64UrlAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** Every 12 bits as their two characters: three bytes are two lookups. */
const base64UrlPairs = Array.from({ length: 4096 }, (_, i) => base64UrlAlphabet[i >> 6]! + base64UrlAlphabet[i & 63]!)

/**
 * Unpadded base64url of a UTF-8 string or of bytes: `Base64Url.encode`'s
 * text, written two characters per lookup (about three times as fast; every
 * cursor, token and signature is written with it).
 */
export const base64UrlEncode = (input: string | Uint8Array): string => {
  const bytes = typeof input === "string" ? encoder.encode(input) : input
  const length = bytes.length
  const whole = length - (length % 3)
  let out = ""
  let i = 0
  for (; i < whole; i += 3) {
    const b1 = bytes[i + 1]!
    out += base64UrlPairs[(bytes[i]! << 4) | (b1 >> 4)]! + base64UrlPairs[((b1 & 15) << 8) | bytes[i + 2]!]!
  }
  if (length - whole === 1) {
    const b0 = bytes[i]!
    out += base64UrlAlphabet[b0 >> 2]! + base64UrlAlphabet[(b0 & 3) << 4]!
  } else if (length - whole === 2) {
    const b1 = bytes[i + 1]!
    out += base64UrlPairs[(bytes[i]! << 4) | (b1 >> 4)]! + base64UrlAlphabet[(b1 & 15) << 2]!
  }
  return out
}

/**
 * The bytes of `text` when it is canonical unpadded base64url, the one
 * spelling `base64UrlEncode` gives them; otherwise `undefined`. Decoders
 * are lenient (padding `=`, line breaks, a last character whose unused bits
 * are set, all decode to the same bytes): a signature, a token segment or a
 * cursor has exactly one accepted spelling. That spelling is the alphabet
 * only, never a length of 4n + 1, and a last character whose unused low bits
 * (4 after 4n + 2 characters, 2 after 4n + 3) are zero: checked before
 * decoding, without encoding the bytes again.
 */
export const decodeBase64UrlCanonical = (text: string): Uint8Array | undefined => {
  if (!isCanonicalBase64Url(text)) return undefined
  const bytes = Base64Url.decode(text)
  return bytes._tag === "Success" ? bytes.success : undefined
}

/**
 * Whether `text` is canonical unpadded base64url (see
 * `decodeBase64UrlCanonical`), from its characters alone: a platform may
 * then decode it with its own, lenient, decoder.
 */
export const isCanonicalBase64Url = (text: string): boolean => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return false
  const rest = text.length % 4
  if (rest === 1) return false
  return rest === 0 || (base64UrlAlphabet.indexOf(text[text.length - 1]!) & (rest === 2 ? 0b1111 : 0b11)) === 0
}
