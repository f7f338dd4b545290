/**
 * The handlers of `GET /healthz` and `GET /api/config/public`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { Effect } from "effect"
import { publicConfig, ServiceInfo } from "../ServiceInfo.ts"
import { respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** `GET /healthz` and `GET /api/config/public`. */
export const systemLayer = ApiHandlers.group(Api, "system", (handlers) =>
  Effect.gen(function*() {
    const info = yield* ServiceInfo
    const health = { status: "ok", version: info.version } as const
    const config = publicConfig(info)
    return handlers
      .handle("health", ({ endpoint }) => Effect.sync(() => respond(endpoint, health)))
      .handle("publicConfig", ({ endpoint }) => Effect.sync(() => respond(endpoint, config)))
  }))
