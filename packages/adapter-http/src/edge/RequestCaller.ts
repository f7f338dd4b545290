/**
 * Who a request comes from, resolved once at the edge (decision 0022), in
 * this order: an `Authorization: Bearer` token (which wins when present,
 * valid or not), then the console's session cookie. Rate limiting counts
 * the request against the caller's tenant, and authentication and the
 * CSRF check read the result (`ResolvedCaller`).
 *
 * @since 0.1.0
 */
import { Caller, Errors, Sessions, TenantCache } from "@analytics/core"
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder, HttpApiSecurity } from "effect/http-api"
import type { ResolvedCaller } from "./ResolvedCaller.ts"
import * as SessionCookie from "./SessionCookie.ts"

/** The bearer credential as the Authentication middleware reads it (only the `Authorization` header). */
export const bearer = HttpApiBuilder.securityDecode(HttpApiSecurity.bearer) as Effect.Effect<
  Redacted.Redacted<string>,
  never,
  HttpServerRequest.HttpServerRequest
>

/**
 * How the edge resolves a session cookie: by default it recognises none
 * (an app serving another contract through `edgeFor`, without stores);
 * the App provides `layerSessions` over its stores.
 */
export const SessionResolver = Context.Reference<
  (cookie: string) => Effect.Effect<Sessions.Resolved, Errors.Unauthenticated | Errors.StoreError>
>("@analytics/adapter-http/SessionResolver", {
  defaultValue: () => () => Effect.fail(new Errors.Unauthenticated({ detail: "Sessions are not served here" }))
})

/** Resolves session cookies against the stores in context, with the session lifetimes in context (`SessionCookie.SessionLifetimes`). */
export const layerSessions = Layer.effect(
  SessionResolver,
  Effect.gen(function*() {
    const lifetimes = yield* SessionCookie.SessionLifetimes
    const services = yield* Effect.context<Sessions.Services>()
    return (cookie: string) => Effect.provideContext(Sessions.resolve(cookie, lifetimes), services)
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
  const resolveSession = yield* SessionResolver
  /** The member a session cookie signs in, with its tenant and CSRF token. */
  const fromCookie = (cookie: string) =>
    Effect.gen(function*() {
      const session = yield* resolveSession(cookie)
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
  return Effect.gen(function*() {
    const token = Redacted.value(yield* bearer)
    if (token !== "") {
      return yield* resolve(Redacted.make(token)).pipe(
        Effect.map((caller): Resolution => ({ credential: token, caller, via: "token" })),
        Effect.orElseSucceed(() => undefined)
      )
    }
    const cookie = yield* SessionCookie.read
    if (cookie !== "") return yield* fromCookie(cookie).pipe(Effect.orElseSucceed(() => undefined))
    return undefined
  })
})
