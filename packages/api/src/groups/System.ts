/**
 * Liveness and public configuration: the endpoints that need no token.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { RateLimitClass } from "../RateLimitClass.ts"

// ---------------------------------------------------------------------------
// system

/** The liveness answer. */
export const Health = Schema.Struct({ status: Schema.Literal("ok"), version: Schema.String })

/** Public runtime configuration read by a frontend at boot. */
export const PublicConfig = Schema.Struct({
  version: Schema.String,
  urls: Schema.Struct({
    api: Schema.String,
    openapi: Schema.String,
    reference: Schema.String
  }),
  branding: Schema.Struct({
    name: Schema.String,
    logo_url: Schema.NullOr(Schema.String),
    primary_color: Schema.String
  }),
  features: Schema.Record(Schema.String, Schema.Boolean),
  webhooks: Schema.Struct({
    egress_ips: Schema.Array(Schema.String).annotate({
      description: "The fixed addresses deliveries come from, for receivers' allowlists; empty when not fixed"
    })
  })
})

/** Health and public configuration; no token needed. */
export const SystemGroup = HttpApiGroup.make("system", { topLevel: true })
  .add(HttpApiEndpoint.get("health", "/healthz", { success: Health }).annotate(RateLimitClass, "read"))
  .add(HttpApiEndpoint.get("publicConfig", "/api/config/public", { success: PublicConfig }).annotate(RateLimitClass, "read"))
  .annotate(OpenApi.Description, "Liveness and public configuration; no token needed.")
