/**
 * The handlers of `/v1/dashboards...`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { Dashboards, Datasets } from "@analytics/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { analyticsTools } from "./AnalyticsTools.ts"
import { caller, listRequest, respond, withoutTenant } from "./Handling.ts"

/** `/v1/dashboards...`: members read and run tiles; tenant admins write. */
export const dashboardsLayer = HttpApiBuilder.group(Api, "dashboards", (handlers) =>
  Effect.gen(function*() {
    const { queryResult, run } = yield* analyticsTools
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("dashboards.list")
          const page = yield* run(Dashboards.list(member.tenantId, query.workspace_id, yield* listRequest(query)))
          return respond(endpoint, { data: page.data.map(withoutTenant), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("dashboards.create")
          return respond(endpoint, withoutTenant(yield* run(Dashboards.create(admin.tenantId, payload))))
        }))
      .handle("get", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("dashboards.get")
          return respond(endpoint, withoutTenant(yield* run(Dashboards.get(member.tenantId, params.id))))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("dashboards.update")
          return respond(endpoint, withoutTenant(yield* run(Dashboards.update(admin.tenantId, params.id, payload))))
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("dashboards.delete")
          yield* run(Dashboards.remove(admin.tenantId, params.id))
        }))
      .handle("tileData", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("dashboards.tileData")
          const dashboard = yield* run(Dashboards.get(member.tenantId, params.id))
          const security = yield* run(Datasets.securityContext(member))
          const tile = run(Dashboards.queryTile(member.tenantId, params.id, params.tile_id, security))
          return respond(endpoint, yield* queryResult(member.tenantId, dashboard.workspace_id, tile))
        }))
  }))
