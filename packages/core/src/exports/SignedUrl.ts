/**
 * Signed result URLs (decision 0015: valid for 1 hour): the path and its
 * expiry signed with HMAC-SHA256 under a service secret, so that whoever
 * holds the URL may fetch the file until it expires, and nobody can change
 * what it points to or when it ends.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Result } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import { decodeBase64UrlCanonical, hmacKey } from "../platform/Crypto.ts"
import { randomBytes } from "../platform/Ids.ts"
import { ServiceSecrets } from "../platform/ServiceSecrets.ts"

/** How long a result URL stays valid. */
export const validityMillis = 60 * 60 * 1000

/** Why a signed URL is refused. */
export type Refusal = "invalid" | "expired"

/** Signs and checks the query (`expires`, `signature`) that makes a path fetchable. */
export class UrlSigner extends Context.Service<UrlSigner, {
  /** The query parameters that let `path` be fetched until `expiresAt`. */
  readonly sign: (path: string, expiresAt: Date) => Effect.Effect<{ readonly expires: string; readonly signature: string }>
  /** Whether `signature` and `expires` were made for `path` by this service, and are still valid at `now`. */
  readonly verify: (path: string, expires: string, signature: string, now: number) => Effect.Effect<Result.Result<void, Refusal>>
}>()("@analytics/core/UrlSigner") {
  /** Signs with the `result-url-hmac` service secret (made on first use, shared by every instance). */
  static readonly layer = Layer.effect(
    UrlSigner,
    Effect.gen(function*() {
      const secret = yield* (yield* ServiceSecrets).getOrCreate("result-url-hmac", randomBytes(32).pipe(Effect.map(Base64Url.encode)))
      const raw = Base64Url.decode(secret)
      if (Result.isFailure(raw)) return yield* Effect.die(new Error("The result-url-hmac secret is not base64url"))
      return yield* make(raw.success)
    })
  )
}

/** A signer with `key`. */
export const make = (key: Uint8Array): Effect.Effect<UrlSigner["Service"]> =>
  Effect.map(hmacKey(key), (hmac) => {
    const data = (path: string, expires: string) => `${path}\n${expires}`
    return {
      sign: (path, expiresAt) => {
        const expires = String(Math.floor(expiresAt.getTime() / 1000))
        return Effect.map(hmac.sign(data(path, expires)), (signature) => ({ expires, signature: Base64Url.encode(signature) }))
      },
      verify: (path, expires, signature, now) =>
        Effect.gen(function*() {
          // Only the spelling this service gives: no padding, no other last character decoding to the same bytes.
          const bytes = decodeBase64UrlCanonical(signature)
          if (!/^\d{1,12}$/.test(expires) || bytes === undefined) return Result.fail<Refusal>("invalid")
          if (!(yield* hmac.verify(bytes, data(path, expires)))) return Result.fail<Refusal>("invalid")
          return Number(expires) * 1000 <= now ? Result.fail<Refusal>("expired") : Result.succeed(undefined)
        })
    }
  })
