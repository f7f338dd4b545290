/**
 * The few cryptographic primitives the core needs. Where the runtime has
 * Node's `crypto` module (found at run time through
 * `process.getBuiltinModule`, so the core imports nothing from Node) they
 * run synchronously, which matters on the request path: Web Crypto's
 * promise-based calls each cost a thread-pool round trip. Elsewhere (Deno,
 * browsers, workers) they fall back to Web Crypto.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Hex from "effect/encoding/Hex"

/** The part of `node:crypto` used here. */
interface NodeCrypto {
  readonly hash: (algorithm: string, data: string, encoding: "hex") => string
  readonly createHmac: (algorithm: string, key: unknown) => {
    update(data: string): { digest(): Uint8Array }
  }
  readonly createSecretKey: (key: Uint8Array) => unknown
  readonly timingSafeEqual: (a: Uint8Array, b: Uint8Array) => boolean
}

const nodeCrypto: NodeCrypto | undefined = (() => {
  const candidate = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule?.("node:crypto") as Partial<NodeCrypto> | undefined
  return typeof candidate?.hash === "function" && typeof candidate.createHmac === "function"
    ? candidate as NodeCrypto
    : undefined
})()

const encoder = new TextEncoder()

/** The part of Node's `Buffer` used here. */
interface NodeBuffer {
  readonly from: (input: string | ArrayBufferLike, offsetOrEncoding?: number | "utf8", length?: number) => {
    toString(encoding: "base64url"): string
  }
}

const nodeBuffer: NodeBuffer | undefined = nodeCrypto === undefined
  ? undefined
  : ((globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(
    "node:buffer"
  ) as { Buffer?: NodeBuffer } | undefined)?.Buffer

/**
 * Unpadded base64url of a UTF-8 string or of bytes, as `Base64Url.encode`
 * spells it; Node's native encoder where there is one (several times faster).
 */
export const base64UrlEncode: (input: string | Uint8Array) => string = nodeBuffer !== undefined
  ? (input) =>
    typeof input === "string"
      ? nodeBuffer.from(input, "utf8").toString("base64url")
      : nodeBuffer.from(input.buffer, input.byteOffset, input.byteLength).toString("base64url")
  : Base64Url.encode

/**
 * The bytes of `text` when it is canonical unpadded base64url, the one
 * spelling `base64UrlEncode` gives them; otherwise `undefined`. Decoders
 * are lenient (padding `=`, line breaks, a last character whose unused bits
 * are set, all decode to the same bytes): a signature, a token segment or a
 * cursor has exactly one accepted spelling, checked by re-encoding what was
 * decoded and comparing it with what was received.
 */
export const decodeBase64UrlCanonical = (text: string): Uint8Array | undefined => {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined
  const bytes = Base64Url.decode(text)
  return bytes._tag === "Success" && base64UrlEncode(bytes.success) === text ? bytes.success : undefined
}

/** Whether `text` is canonical unpadded base64url (see `decodeBase64UrlCanonical`). */
export const isCanonicalBase64Url = (text: string): boolean => decodeBase64UrlCanonical(text) !== undefined

/** SHA-256 of a UTF-8 string, as lowercase hex. */
export const sha256Hex: (input: string) => Effect.Effect<string> = nodeCrypto !== undefined
  ? (input) => Effect.sync(() => nodeCrypto.hash("sha256", input, "hex"))
  : (input) =>
    Effect.map(
      Effect.promise(() => crypto.subtle.digest("SHA-256", encoder.encode(input))),
      (digest) => Hex.encode(new Uint8Array(digest))
    )

/** An HMAC-SHA256 key, prepared once for many signatures. */
export interface HmacKey {
  readonly sign: (data: string) => Effect.Effect<Uint8Array>
  /** Constant-time comparison of a signature against the data's. */
  readonly verify: (signature: Uint8Array, data: string) => Effect.Effect<boolean>
}

/** Prepares an HMAC-SHA256 key from its raw bytes. */
export const hmacKey = (raw: Uint8Array): Effect.Effect<HmacKey> => {
  if (nodeCrypto !== undefined) {
    const key = nodeCrypto.createSecretKey(raw)
    const sign = (data: string) => nodeCrypto.createHmac("sha256", key).update(data).digest()
    return Effect.succeed({
      sign: (data) => Effect.sync(() => sign(data)),
      verify: (signature, data) =>
        Effect.sync(() => {
          const expected = sign(data)
          return signature.length === expected.length && nodeCrypto.timingSafeEqual(signature, expected)
        })
    })
  }
  return Effect.map(
    Effect.promise(() =>
      crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, [
        "sign",
        "verify"
      ])
    ),
    (key): HmacKey => ({
      sign: (data) =>
        Effect.map(Effect.promise(() => crypto.subtle.sign("HMAC", key, encoder.encode(data))), (s) => new Uint8Array(s)),
      verify: (signature, data) =>
        Effect.promise(() =>
          crypto.subtle.verify("HMAC", key, signature as Uint8Array<ArrayBuffer>, encoder.encode(data))
        )
    })
  )
}
