/**
 * Pagination cursors: opaque, tamper-proof base64url strings that carry
 * everything the next page needs (spec 4.1 and 4.5).
 *
 * A cursor is `base64url(payload) "." base64url(HMAC-SHA256(payload))`. The
 * payload binds the endpoint, the canonical query string and the sort, holds
 * the keyset position (sort value and primary key, so deletions never cause
 * skips and schema changes leave it valid unless the primary key changes), the
 * snapshot bound (rows created after the first page stay unseen) and the
 * issue time (valid for 24 hours).
 *
 * @since 0.1.0
 */
import { Clock, Context, Data, Duration, Effect, Layer, Result, Schema } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import { base64UrlEncode, decodeBase64UrlCanonical, hmacKey, isCanonicalBase64Url } from "./Crypto.ts"
import { randomBytes } from "./Ids.ts"
import { ServiceSecrets } from "./ServiceSecrets.ts"

/** How long a cursor stays valid after it is issued. */
export const cursorLifetime = Duration.hours(24)

/** What a cursor carries. */
export const CursorPayload = Schema.Struct({
  /** Format version. */
  v: Schema.Literal(1),
  /** The endpoint, e.g. `GET /v1/workspaces`. */
  e: Schema.String,
  /** SHA-256 (hex) of the canonical query string, without `cursor` and `limit`; a hash keeps cursors short. */
  q: Schema.String,
  /** The sort, e.g. `-created_at`. */
  s: Schema.String,
  /** The keyset position: the last row's sort value and id. */
  k: Schema.Tuple([Schema.Union([Schema.String, Schema.Number]), Schema.String]),
  /** The snapshot bound, epoch milliseconds: rows created later are not listed. */
  b: Schema.Number,
  /** When this cursor was issued, epoch milliseconds. */
  t: Schema.Number
})
/** What a cursor carries. */
export type CursorPayload = typeof CursorPayload.Type

/** The cursor was not issued by this service, or was altered. */
export class CursorInvalid extends Data.TaggedError("CursorInvalid")<{}> {
  readonly code = "pagination/cursor-invalid" as const
}
/** The cursor is older than 24 hours. */
export class CursorExpired extends Data.TaggedError("CursorExpired")<{ readonly issuedAt: Date }> {
  readonly code = "pagination/cursor-expired" as const
}
/** The cursor belongs to another endpoint or query string. */
export class CursorMismatch extends Data.TaggedError("CursorMismatch")<{}> {
  readonly code = "pagination/cursor-mismatch" as const
}
/** Any reason a cursor is refused. */
export type CursorError = CursorInvalid | CursorExpired | CursorMismatch

const decodePayload = Schema.decodeUnknownResult(Schema.fromJsonString(CursorPayload))

/** Signs and verifies cursors with one secret key. */
export interface CursorCodecShape {
  readonly encode: (payload: CursorPayload) => Effect.Effect<string>
  /** Verifies signature, binding and age; fails with the precise reason. */
  readonly decode: (
    cursor: string,
    binding: { readonly endpoint: string; readonly query: string }
  ) => Effect.Effect<CursorPayload, CursorError>
}

/** Builds a codec from raw key bytes. */
export const makeCodec = (keyBytes: Uint8Array): Effect.Effect<CursorCodecShape> =>
  Effect.map(hmacKey(keyBytes), (key) => ({
    encode: (payload) => {
      const body = base64UrlEncode(JSON.stringify(payload))
      return Effect.map(key.sign(body), (sig) => `${body}.${base64UrlEncode(sig)}`)
    },
    decode: (cursor, binding) =>
      Effect.gen(function*() {
        const dot = cursor.indexOf(".")
        if (dot <= 0 || cursor.length > 4096) return yield* new CursorInvalid()
        const body = cursor.slice(0, dot)
        const sigText = cursor.slice(dot + 1)
        // The decoder is lenient (padding, line breaks, unused bits): accept only the canonical spelling.
        const sig = decodeBase64UrlCanonical(sigText)
        if (sig === undefined || !isCanonicalBase64Url(body)) return yield* new CursorInvalid()
        if (!(yield* key.verify(sig, body))) return yield* new CursorInvalid()
        const json = Base64Url.decodeString(body)
        if (Result.isFailure(json)) return yield* new CursorInvalid()
        const payload = decodePayload(json.success)
        if (Result.isFailure(payload)) return yield* new CursorInvalid()
        const p = payload.success
        if (p.e !== binding.endpoint || p.q !== binding.query) return yield* new CursorMismatch()
        const now = yield* Clock.currentTimeMillis
        if (now - p.t > Duration.toMillis(cursorLifetime)) {
          return yield* new CursorExpired({ issuedAt: new Date(p.t) })
        }
        return p
      })
  }))

/** The cursor codec of this service, keyed by a secret shared by all its instances. */
export class CursorCodec extends Context.Service<CursorCodec, CursorCodecShape>()("@analytics/core/CursorCodec") {
  /** The codec keyed by the persisted `cursor-hmac` secret (created on first use). */
  static readonly layer = Layer.effect(
    CursorCodec,
    Effect.gen(function*() {
      const secrets = yield* ServiceSecrets
      const key = yield* secrets.getOrCreate("cursor-hmac", randomBytes(32).pipe(Effect.map(Base64Url.encode)))
      const bytes = Base64Url.decode(key)
      if (Result.isFailure(bytes)) return yield* Effect.die(new Error("The cursor-hmac secret is not base64url"))
      return yield* makeCodec(bytes.success)
    })
  )
}
