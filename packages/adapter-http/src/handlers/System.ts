/**
 * The handlers of `GET /healthz` and `GET /api/config/public`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { publicConfig, ServiceInfo } from "../ServiceInfo.ts"
import { respond } from "./Handling.ts"

/** `GET /healthz` and `GET /api/config/public`. */
export const systemLayer = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function*() {
    const info = yield* ServiceInfo
    const health = { status: "ok", version: info.version } as const
    const config = publicConfig(info)
    return handlers
      .handle("health", ({ endpoint }) => Effect.sync(() => respond(endpoint, health)))
      .handle("publicConfig", ({ endpoint }) => Effect.sync(() => respond(endpoint, config)))
  }))
