/**
 * Signed tokens for shared content (JWS, HS256, `jose`): the embed token an
 * embedding app puts in an iframe's URL (decision 0014), and the session
 * a public link's visitor holds after giving its password.
 *
 * Both name the grant they were issued for; whoever verifies one still
 * reads that grant, so revoking, pausing or expiring it refuses the token
 * on the very next request, however long the token had to run.
 *
 * Embed token claims (documented in docs/sharing.md):
 * `{ aud: "analytics:embed", sub: <grant_id>, tid: <tenant_id>,
 *    resource: { type, id }, params: { <dimension>: <value> }, attributes: {…}, origin?, iat, exp }`;
 * `origin`, when given, is the one page origin that may frame the embed and
 * talk to it (decision 0027).
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Result, Schema } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import { errors, jwtVerify, SignJWT } from "jose"
import { isCanonicalBase64Url } from "../platform/Crypto.ts"
import { randomBytes } from "../platform/Ids.ts"
import { ServiceSecrets } from "../platform/ServiceSecrets.ts"

/** The most an embed token may live, and its default: an embedding app mints a fresh one per page view. */
export const embedLifetimeSeconds = 600

/** How long a link session lasts after the password was given. */
export const sessionLifetimeSeconds = 3600

const embedAudience = "analytics:embed"
const sessionAudience = "analytics:link-session"

/** A scalar a locked parameter or an attribute may hold. */
const Scalar = Schema.Union([Schema.String, Schema.Number, Schema.Boolean])

/** Locked filter parameters: dimension name to the one value the viewer sees (Metabase's locked parameters). */
export const LockedParams = Schema.Record(Schema.String.check(Schema.isMinLength(1), Schema.isMaxCodePoints(200)), Scalar)
/** Locked filter parameters. */
export type LockedParams = typeof LockedParams.Type

/** Attributes that row-level security policies read for an embed's viewer (`region`…). */
export const ViewerAttributes = Schema.Record(Schema.String.check(Schema.isMinLength(1), Schema.isMaxCodePoints(200)), Scalar)
/** Viewer attributes. */
export type ViewerAttributes = typeof ViewerAttributes.Type

/** Whether `text` is a web origin spelled as browsers send it: `http(s)://host[:port]`, nothing more. */
const isOrigin = (text: string): boolean => {
  try {
    const url = new URL(text)
    return (url.protocol === "https:" || url.protocol === "http:") && url.origin === text
  } catch {
    return false
  }
}

/**
 * The embedding page's origin an embed token may name (decision 0027): the
 * embed page's `frame-ancestors`, and the one origin its messages go to and
 * come from. Spelled as `event.origin` is, so comparing is exact.
 */
export const EmbedOrigin = Schema.String.check(
  Schema.isMaxLength(2048),
  Schema.makeFilter((text) => isOrigin(text) || `Expected an origin such as "https://app.example.com": scheme, host and port only, lower case, no path or trailing slash`)
)

/** What a verified embed token says. */
export interface EmbedClaims {
  readonly grantId: string
  readonly tenantId: string
  readonly resource: { readonly type: string; readonly id: string }
  readonly params: LockedParams
  readonly attributes: ViewerAttributes
  /** The embedding page's origin (`https://app.example.com`): the only one that may frame it and exchange messages with it. */
  readonly origin?: string | undefined
  readonly expiresAt: Date
}

/** What a verified link session says: the grant, and which password it was opened with. */
export interface SessionClaims {
  readonly grantId: string
  /** A fingerprint of the password hash the session was opened with: a new password ends old sessions. */
  readonly passwordVersion: string
}

/** Why a token is refused: its signature, audience, algorithm or shape is wrong, or it has expired. */
export type TokenRefusal = "invalid" | "expired"

const EmbedPayload = Schema.Struct({
  sub: Schema.String,
  tid: Schema.String,
  resource: Schema.Struct({ type: Schema.String, id: Schema.String }),
  params: LockedParams,
  attributes: ViewerAttributes,
  origin: Schema.optionalKey(EmbedOrigin),
  exp: Schema.Number
})
const SessionPayload = Schema.Struct({ sub: Schema.String, pwv: Schema.String })

/** Signs and verifies share tokens with the service's persisted key. */
export class ShareTokens extends Context.Service<ShareTokens, {
  /** An embed token for `claims`, living `lifetimeSeconds` from `now`. */
  readonly signEmbed: (claims: Omit<EmbedClaims, "expiresAt">, now: number, lifetimeSeconds: number) => Effect.Effect<string>
  /** The claims of an embed token, or why it is refused. */
  readonly verifyEmbed: (token: string, now: number) => Effect.Effect<Result.Result<EmbedClaims, TokenRefusal>>
  /** A link session for `claims`, living `sessionLifetimeSeconds` from `now`. */
  readonly signSession: (claims: SessionClaims, now: number) => Effect.Effect<string>
  /** The claims of a link session, or why it is refused. */
  readonly verifySession: (token: string, now: number) => Effect.Effect<Result.Result<SessionClaims, TokenRefusal>>
}>()("@analytics/core/ShareTokens") {
  /** Tokens signed with the `share-hmac` service secret (made on first use, shared by every instance). */
  static readonly layer = Layer.effect(
    ShareTokens,
    Effect.gen(function*() {
      const secrets = yield* ServiceSecrets
      const encoded = yield* secrets.getOrCreate("share-hmac", randomBytes(32).pipe(Effect.map(Base64Url.encode)))
      const key = Base64Url.decode(encoded)
      if (Result.isFailure(key)) return yield* Effect.die(new Error("The share-hmac secret is not base64url"))
      return make(key.success)
    })
  )
}

/**
 * Whether a compact JWS is three segments of canonical unpadded base64url
 * (RFC 7515 §2: no padding, and one spelling per byte string): nothing
 * appended, no `=`, no last character with unused bits set.
 */
export const isCanonicalJws = (token: string): boolean => {
  const segments = token.split(".")
  return segments.length === 3 && segments.every((segment) => segment !== "" && isCanonicalBase64Url(segment))
}

/** Share tokens signed with `key` (at least 32 bytes). */
export const make = (key: Uint8Array): ShareTokens["Service"] => {
  const sign = (audience: string, subject: string, claims: Record<string, unknown>, now: number, lifetimeSeconds: number) =>
    Effect.promise(() =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setAudience(audience)
        .setSubject(subject)
        .setIssuedAt(Math.floor(now / 1000))
        .setExpirationTime(Math.floor(now / 1000) + lifetimeSeconds)
        .sign(key)
    )
  const verify = <A>(token: string, audience: string, now: number, schema: Schema.Decoder<A>): Effect.Effect<Result.Result<A, TokenRefusal>> =>
    // jose decodes leniently (a padded or otherwise respelled signature verifies): only the canonical spelling is accepted.
    !isCanonicalJws(token) ? Effect.succeed(Result.fail("invalid" as const)) : Effect.promise(() =>
      jwtVerify(token, key, { audience, algorithms: ["HS256"], requiredClaims: ["exp", "sub"], currentDate: new Date(now) }).then(
        ({ payload }) => {
          const decoded = Schema.decodeUnknownResult(schema)(payload)
          return Result.isSuccess(decoded) ? Result.succeed(decoded.success) : Result.fail("invalid" as const)
        },
        (error): Result.Result<A, TokenRefusal> => Result.fail(error instanceof errors.JWTExpired ? "expired" : "invalid")
      )
    )
  return {
    signEmbed: (claims, now, lifetimeSeconds) =>
      sign(embedAudience, claims.grantId, {
        tid: claims.tenantId,
        resource: claims.resource,
        params: claims.params,
        attributes: claims.attributes,
        ...(claims.origin === undefined ? {} : { origin: claims.origin })
      }, now, lifetimeSeconds),
    verifyEmbed: (token, now) =>
      Effect.map(verify(token, embedAudience, now, EmbedPayload), Result.map((p) => ({
        grantId: p.sub,
        tenantId: p.tid,
        resource: p.resource,
        params: p.params,
        attributes: p.attributes,
        ...(p.origin === undefined ? {} : { origin: p.origin }),
        expiresAt: new Date(p.exp * 1000)
      }))),
    signSession: (claims, now) => sign(sessionAudience, claims.grantId, { pwv: claims.passwordVersion }, now, sessionLifetimeSeconds),
    verifySession: (token, now) =>
      Effect.map(verify(token, sessionAudience, now, SessionPayload), Result.map((p) => ({ grantId: p.sub, passwordVersion: p.pwv })))
  }
}
