/**
 * The handlers of `GET /healthz` and `GET /api/config/public`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { ServiceInfo } from "../ServiceInfo.ts"
import { respond } from "./Handling.ts"

/** `GET /healthz` and `GET /api/config/public`. */
export const systemLayer = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function*() {
    const info = yield* ServiceInfo
    const health = { status: "ok", version: info.version } as const
    const publicConfig = {
      version: info.version,
      urls: {
        api: `${info.publicBaseUrl}/v1`,
        openapi: `${info.publicBaseUrl}/v1/openapi.json`,
        reference: `${info.publicBaseUrl}/v1/docs`
      },
      branding: {
        name: info.branding.name,
        logo_url: info.branding.logoUrl,
        primary_color: info.branding.primaryColor
      },
      features: info.features,
      webhooks: { egress_ips: info.webhookEgressAddresses }
    }
    return handlers
      .handle("health", ({ endpoint }) => Effect.sync(() => respond(endpoint, health)))
      .handle("publicConfig", ({ endpoint }) => Effect.sync(() => respond(endpoint, publicConfig)))
  }))
