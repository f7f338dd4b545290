/**
 * The middleware the contract declares: authentication (bearer or session cookie), idempotency
 * of POSTs, and the rendering of validation failures. Declared here so the
 * OpenAPI document and the typed client know their problems; adapter-http
 * implements them.
 *
 * @since 0.1.0
 */
import type { Principal } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import * as Problems from "./Problems.ts"

/** The console's session cookie (decision 0022), an alternative to the bearer token. */
export const sessionCookie = HttpApiSecurity.apiKey({ in: "cookie", key: "analytics_session" }).pipe(
  HttpApiSecurity.annotate(
    OpenApi.Description,
    "The console's session (POST /api/session…). Requests that change something also need the X-CSRF-Token header from GET /api/session."
  )
)

/**
 * Authentication by bearer token or by the console's session cookie
 * (bearer wins when both are sent); provides the caller as `CurrentPrincipal`.
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication, {
  provides: Principal.CurrentPrincipal
}>()("@analytics/api/Authentication", {
  security: { bearer: HttpApiSecurity.bearer, session: sessionCookie },
  // Every /v1 request is counted at the edge (decision 0009); declared here so every authenticated endpoint documents its 429s.
  error: [Problems.Unauthenticated, Problems.CsrfFailed, Problems.ServiceUnavailable, ...Problems.rateLimitProblems]
}) {}

/** Idempotency-Key handling for a POST endpoint (replay, 409, 422). */
export class Idempotent extends HttpApiMiddleware.Service<Idempotent, {
  requires: Principal.CurrentPrincipal
}>()("@analytics/api/Idempotent", {
  error: [...Problems.idempotencyProblems, Problems.ServiceUnavailable]
}) {}

/** Renders request validation failures as `request/invalid` or `request/malformed-json` problems. */
export class Validation extends HttpApiMiddleware.Service<Validation>()("@analytics/api/Validation", {
  error: [Problems.InvalidRequest, Problems.MalformedJson]
}) {}

/** The `Idempotency-Key` request header, documented on every POST. */
export const idempotencyHeader = Schema.Struct({
  "idempotency-key": Schema.optionalKey(Schema.String.annotate({
    description:
      "Up to 255 printable ASCII characters. A retry with the same key and body replays the first response for 24 hours; another body answers 422; a retry while the first runs answers 409."
  }))
})
