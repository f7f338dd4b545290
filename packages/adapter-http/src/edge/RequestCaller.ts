/**
 * Who a request comes from, resolved once at the edge (decision 0022), in
 * this order: an `Authorization: Bearer` token (which wins when present,
 * valid or not), then the console's session cookie, then the embedding
 * app's own sign-in (`Authenticator.authenticateRequest`). Rate limiting
 * counts the request against the caller's tenant, and authentication and
 * the CSRF check read the result (`ResolvedCaller`).
 *
 * @since 0.1.0
 */
import { Authenticator, Caller, Errors, Principal, type ServiceSecrets, Sessions, TenantCache } from "@analytics/core"
import { Clock, Context, Duration, Effect, Exit, Layer } from "effect"
import { HttpServerRequest } from "effect/http"
import type { ResolvedCaller } from "./ResolvedCaller.ts"
import * as SessionCookie from "./SessionCookie.ts"

/**
 * The bearer token of an `Authorization` header, `""` when there is none:
 * what `HttpApiBuilder.securityDecode(HttpApiSecurity.bearer)` reads (RFC
 * 9110: the scheme case-insensitive, then one or more spaces), without
 * wrapping it in `Redacted`, for the edge's hot path.
 */
export const bearerToken = (authorization: string | undefined): string => {
  if (authorization === undefined || authorization.length <= 6 || authorization.charCodeAt(6) !== 32) return ""
  if (authorization.slice(0, 6).toLowerCase() !== "bearer") return ""
  let start = 7
  while (authorization.charCodeAt(start) === 32) start++
  return authorization.slice(start)
}

/** What the edge needs of the stores to recognise a console session or an embedded user. */
export interface SessionSupport {
  /** The session a cookie names, as it is now. */
  readonly resolve: (cookie: string) => Effect.Effect<Sessions.Resolved, Errors.Unauthenticated | Errors.StoreError>
  /** The embedded channel's CSRF tokens of a member now (this day's, the day before's). */
  readonly embeddedCsrf: (member: Principal.Member) => Effect.Effect<{ readonly current: string; readonly previous: string }, Errors.StoreError>
}

const unsupported = new Errors.Unauthenticated({ detail: "Sessions are not served here" })

/**
 * How the edge recognises sessions: by default it recognises none (an app
 * serving another contract through `App.withEdge`, without stores); the App
 * provides `layerSessions` over its stores.
 */
export const SessionResolver = Context.Reference<SessionSupport>("@analytics/adapter-http/SessionResolver", {
  defaultValue: () => ({
    resolve: () => Effect.fail(unsupported),
    embeddedCsrf: () => Effect.fail(new Errors.StoreError({ operation: "SessionResolver.embeddedCsrf", cause: unsupported }))
  })
})

/** Sessions over the stores in context, with the session lifetimes in context (`SessionCookie.SessionLifetimes`). */
export const layerSessions = Layer.effect(
  SessionResolver,
  Effect.gen(function*() {
    const lifetimes = yield* SessionCookie.SessionLifetimes
    const services = yield* Effect.context<Sessions.Services | ServiceSecrets.ServiceSecrets>()
    // Made on first use: the secret is read from the store once it answers (a failure, the store down, is not kept).
    const tokens = yield* Effect.cachedWithTTL(Effect.provideContext(Sessions.embeddedCsrf, services), (exit) => Exit.isSuccess(exit) ? Duration.infinity : Duration.zero)
    return {
      resolve: (cookie: string) => Effect.provideContext(Sessions.resolve(cookie, lifetimes), services),
      embeddedCsrf: (member: Principal.Member) =>
        Effect.flatMap(tokens, (csrf) => Effect.flatMap(Clock.currentTimeMillis, (now) => csrf.at(member.tenantId, member.userId, now)))
    }
  })
)

/** A resolution as the edge provides it. */
export type Resolution = ResolvedCaller["Service"]

/**
 * Builds the per-request resolver from the services in context: the request's
 * caller, or `undefined` when it has no valid credential (authentication then
 * answers it; rate limiting counts it by client address).
 */
export const make = Effect.gen(function*() {
  const resolve = yield* Caller.resolver
  const tenants = yield* TenantCache.TenantCache
  const sessions = yield* SessionResolver
  const authenticateRequest = (yield* Authenticator.Authenticator).authenticateRequest
  /** The member a session cookie signs in, with its tenant and CSRF token. */
  const fromCookie = (cookie: string) =>
    Effect.gen(function*() {
      const session = yield* sessions.resolve(cookie)
      const tenant = yield* tenants.get(session.member.tenantId)
      const resolution: Resolution = {
        credential: cookie,
        caller: { principal: session.member, tenant },
        via: "session",
        session,
        csrfToken: yield* Sessions.csrfToken(cookie)
      }
      return resolution
    })
  /** The member the embedding app's sign-in names, on the embedded channel, with its CSRF tokens. */
  const fromEmbedder = (
    authenticateRequest: NonNullable<Authenticator.Authenticator["Service"]["authenticateRequest"]>,
    request: HttpServerRequest.HttpServerRequest
  ) =>
    Effect.gen(function*() {
      const principal = yield* authenticateRequest({ headers: request.headers, cookies: request.cookies })
      // The operator provisions tenants through its token only.
      if (principal === undefined || principal._tag !== "Member") return undefined
      const member = new Principal.Member({ ...principal, channel: "embedded" })
      const tenant = yield* tenants.get(member.tenantId)
      const csrf = yield* sessions.embeddedCsrf(member)
      const resolution: Resolution = {
        credential: "",
        caller: { principal: member, tenant },
        via: "embedded",
        csrfToken: csrf.current,
        previousCsrfToken: csrf.previous
      }
      return resolution
    })
  const notSignedIn = () => Effect.succeed(undefined)
  return (request: HttpServerRequest.HttpServerRequest): Effect.Effect<Resolution | undefined, Errors.StoreError> => {
    const token = bearerToken(request.headers["authorization"])
    if (token !== "") {
      return Effect.matchEffect(resolve(token), {
        onFailure: notSignedIn,
        onSuccess: (caller) => Effect.succeed<Resolution>({ credential: token, caller, via: "token" })
      })
    }
    // A session or sign-in that is not valid is no caller; a store that cannot answer fails the request (503), it signs no one out.
    const cookie = SessionCookie.of(request)
    if (cookie !== "") return fromCookie(cookie).pipe(Effect.catchTag("Unauthenticated", notSignedIn))
    // Most anonymous requests (health checks, shared links) end here, in one step.
    if (authenticateRequest === undefined) return notSignedIn()
    return fromEmbedder(authenticateRequest, request).pipe(Effect.catchTag("Unauthenticated", notSignedIn))
  }
})
