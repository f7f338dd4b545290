/**
 * Pagination cursors: opaque, tamper-proof base64url strings that carry
 * everything the next page needs (decision 0003).
 *
 * A cursor is one unpadded base64url string: a format byte, a 96-bit nonce
 * and the payload sealed with AES-256-GCM (the `Crypto` port), so its content is
 * neither readable nor alterable. The payload binds the endpoint, the whole
 * query string (`limit` included) and the tenant, and holds the sort, the
 * keyset position (sort value and primary key, so deletions never cause
 * skips and schema changes leave it valid unless the primary key changes),
 * the snapshot bound (rows created after the first page stay unseen) and
 * the issue time (valid for 24 hours).
 *
 * @since 0.1.0
 */
import { Clock, Context, Duration, Effect, Layer, Result, Schema } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import { aesGcmKey } from "./Crypto.ts"
import { randomBytes } from "./Ids.ts"
import { ServiceSecrets } from "./ServiceSecrets.ts"
import { TaggedFailure } from "./Errors.ts"

/** How long a cursor stays valid after it is issued. */
export const cursorLifetime = Duration.hours(24)

/** The longest cursor accepted, in characters (the `cursor` parameter's own bound). */
export const maxCursorLength = 4096

/** What a cursor carries. */
export const CursorPayload = Schema.Struct({
  /** Format version. */
  v: Schema.Literal(2),
  /** The endpoint, e.g. `GET /v1/workspaces`. */
  e: Schema.String,
  /** SHA-256 (hex) of the canonical query string, every parameter but `cursor` (`limit` included); a hash keeps cursors short. */
  q: Schema.String,
  /** The tenant whose list it continues. */
  n: Schema.String,
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

/** What a cursor is bound to: it continues only the list it was issued for. */
export interface CursorBinding {
  /** The endpoint, e.g. `GET /v1/workspaces`. */
  readonly endpoint: string
  /** SHA-256 (hex) of the canonical query string (`Pagination.canonicalQuery`). */
  readonly query: string
  /** The tenant of the caller. */
  readonly tenant: string
}

/** The cursor was not issued by this service, or was altered. */
export class CursorInvalid extends TaggedFailure("CursorInvalid")<{}> {
  /** The sentence its problem says. */
  get problemDetail(): string {
    return "The cursor was not issued by this service or was altered"
  }
  readonly code = "pagination/cursor-invalid" as const
}
/** The cursor is older than 24 hours. */
export class CursorExpired extends TaggedFailure("CursorExpired")<{ readonly issuedAt: Date }> {
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `The cursor was issued at ${this.issuedAt.toISOString()}; restart from the first page`
  }
  readonly code = "pagination/cursor-expired" as const
}
/** The cursor belongs to another endpoint, query string or tenant. */
export class CursorMismatch extends TaggedFailure("CursorMismatch")<{}> {
  /** The sentence its problem says. */
  get problemDetail(): string {
    return "The cursor belongs to another endpoint or query string; send the same query with it"
  }
  readonly code = "pagination/cursor-mismatch" as const
}
/** Any reason a cursor is refused. */
export type CursorError = CursorInvalid | CursorExpired | CursorMismatch

const isPayload = Schema.is(CursorPayload)

/** The payload a cursor's text holds, or `undefined` (the payload is a plain struct: checking it is decoding it, without running a parser fiber per page). */
const payloadOf = (json: string): CursorPayload | undefined => {
  let value: unknown
  try {
    value = JSON.parse(json)
  } catch {
    return undefined
  }
  return isPayload(value) ? value : undefined
}

/** The first byte of a sealed cursor: its format (the payload's `v` repeats it, sealed). */
export const formatByte = 2
/**
 * What the AES key is derived with from the stored secret (HKDF-SHA256,
 * empty salt): a key of its own for sealing, never the raw secret itself.
 */
export const keyInfo = "analytics cursor AES-256-GCM v2"

const encoder = new TextEncoder()

/** The AES-256-GCM key's 32 bytes derived from the cursor secret's raw bytes (HKDF-SHA256, `keyInfo`), once per codec. */
export const deriveKeyBytes = (secret: Uint8Array): Effect.Effect<Uint8Array> =>
  Effect.promise(async () => {
    const base = await globalThis.crypto.subtle.importKey("raw", secret as Uint8Array<ArrayBuffer>, "HKDF", false, ["deriveBits"])
    const bits = await globalThis.crypto.subtle.deriveBits(
      { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(keyInfo) },
      base,
      256
    )
    return new Uint8Array(bits)
  })

/** Seals and opens cursors with one secret key. */
export interface CursorCodecShape {
  readonly encode: (payload: CursorPayload) => Effect.Effect<string>
  /** Opens the cursor and checks its binding and age; fails with the precise reason. */
  readonly decode: (cursor: string, binding: CursorBinding) => Effect.Effect<CursorPayload, CursorError>
}

/**
 * Builds a codec from the cursor secret's raw bytes, sealing on the
 * platform's primitives (`Crypto`): one call to the platform per seal or
 * opening, the format byte as the sealed token's header.
 */
export const makeCodec = (secret: Uint8Array): Effect.Effect<CursorCodecShape> =>
  Effect.map(Effect.flatMap(deriveKeyBytes(secret), aesGcmKey), (key) => {
    const header = Uint8Array.of(formatByte)
    const lifetime = Duration.toMillis(cursorLifetime)
    /** The payload of an opened cursor's text, checked against its binding and age at `now`. */
    const check = (json: string | undefined, binding: CursorBinding, now: number): Effect.Effect<CursorPayload, CursorError> => {
      const p = json === undefined ? undefined : payloadOf(json)
      if (p === undefined) return Effect.fail(new CursorInvalid())
      if (p.e !== binding.endpoint || p.q !== binding.query || p.n !== binding.tenant) return Effect.fail(new CursorMismatch())
      if (now - p.t > lifetime) return Effect.fail(new CursorExpired({ issuedAt: new Date(p.t) }))
      return Effect.succeed(p)
    }
    return {
      encode: (payload) => key.seal(header, JSON.stringify(payload)),
      decode: (cursor, binding) =>
        cursor.length > maxCursorLength
          ? Effect.fail(new CursorInvalid())
          : Effect.flatMap(key.open(header, cursor), (json) =>
            Effect.flatMap(Clock.currentTimeMillis, (now) => check(json, binding, now)))
    }
  })

/** The cursor codec of this service, keyed by a secret shared by all its instances. */
export class CursorCodec extends Context.Service<CursorCodec, CursorCodecShape>()("@analytics/core/CursorCodec") {
  /**
   * The codec keyed by the persisted `cursor-hmac` secret (created on first
   * use; the name is the one it has always been stored under, when it keyed
   * an HMAC): the sealing key is derived from it.
   */
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
