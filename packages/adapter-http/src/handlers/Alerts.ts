/**
 * The handlers of `/v1/alerts...`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { Alerts } from "@analytics/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { analyticsTools } from "./AnalyticsTools.ts"
import { caller, listRequest, respond, withoutTenant } from "./Handling.ts"

/** `/v1/alerts...`: members read; tenant admins write and check. */
export const alertsLayer = HttpApiBuilder.group(Api, "alerts", (handlers) =>
  Effect.gen(function*() {
    const { run } = yield* analyticsTools
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("alerts.list")
          const page = yield* run(Alerts.list(member.tenantId, query.workspace_id, yield* listRequest(query)))
          return respond(endpoint, { data: page.data.map(withoutTenant), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("alerts.create")
          return respond(endpoint, withoutTenant(yield* run(Alerts.create(admin.tenantId, payload))))
        }))
      .handle("get", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("alerts.get")
          return respond(endpoint, withoutTenant(yield* run(Alerts.get(member.tenantId, params.id))))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("alerts.update")
          return respond(endpoint, withoutTenant(yield* run(Alerts.update(admin.tenantId, params.id, payload))))
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("alerts.delete")
          yield* run(Alerts.remove(admin.tenantId, params.id))
        }))
      .handle("check", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("alerts.check")
          return respond(endpoint, withoutTenant(yield* run(Alerts.checkNow(admin.tenantId, params.id))))
        }))
  }))
