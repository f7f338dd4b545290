/**
 * The handlers of `/v1/alerts...`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { Alerts } from "@analytics/core"
import { Effect } from "effect"
import { analyticsTools } from "./AnalyticsTools.ts"
import { caller, listRequest, respond, withoutTenant } from "./Handling.ts"
import * as ResourceHandlers from "./ResourceHandlers.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** `/v1/alerts...`: members read; tenant admins write and check. */
export const alertsLayer = ApiHandlers.group(Api, "alerts", (handlers) =>
  Effect.gen(function*() {
    const { run } = yield* analyticsTools
    return handlers
      .handleAll(ResourceHandlers.handlers(handlers, {
        name: "alerts",
        useCases: Alerts,
        owner: ResourceHandlers.tenantOf,
        run,
        toJson: withoutTenant
      }))
      .handle("check", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("alerts.check")
          return respond(endpoint, withoutTenant(yield* run(Alerts.checkNow(admin.tenantId, params.id))))
        }))
      .handle("history", ({ endpoint, params, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("alerts.history")
          const page = yield* run(Alerts.history(member.tenantId, params.id, yield* listRequest(query)))
          const data = page.data.map(({ tenant_id: _, alert_id: __, ...check }) => check)
          return respond(endpoint, { data, page: page.page })
        }))
  }))
