/**
 * The middleware the contract declares: bearer authentication, idempotency
 * of POSTs, and the rendering of validation failures. Declared here so the
 * OpenAPI document and the typed client know their problems; adapter-http
 * implements them.
 *
 * @since 0.1.0
 */
import type { Principal } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiMiddleware, HttpApiSecurity } from "effect/http-api"
import * as Problems from "./Problems.ts"

/** Bearer-token authentication; provides the caller as `CurrentPrincipal`. */
export class Authentication extends HttpApiMiddleware.Service<Authentication, {
  provides: Principal.CurrentPrincipal
}>()("@analytics/api/Authentication", {
  security: { bearer: HttpApiSecurity.bearer },
  // Every /v1 request is counted at the edge (decision 0009); declared here so every authenticated endpoint documents its 429s.
  error: [Problems.Unauthenticated, Problems.ServiceUnavailable, ...Problems.rateLimitProblems]
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
