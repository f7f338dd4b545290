/**
 * The handlers of `/v1/dashboards...`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { Dashboards, Datasets } from "@analytics/core"
import { Effect } from "effect"
import { analyticsTools } from "./AnalyticsTools.ts"
import { caller, respond, withoutTenant } from "./Handling.ts"
import { memberViews } from "./MemberViews.ts"
import * as ResourceHandlers from "./ResourceHandlers.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** `/v1/dashboards...`: members read and run tiles, and view what a grant lets them; tenant admins write. */
export const dashboardsLayer = ApiHandlers.group(Api, "dashboards", (handlers) =>
  Effect.gen(function*() {
    const tools = yield* analyticsTools
    const { queryResult, run } = tools
    const views = yield* memberViews(tools)
    return handlers
      .handleAll(ResourceHandlers.handlers(handlers, {
        name: "dashboards",
        useCases: Dashboards,
        owner: ResourceHandlers.tenantOf,
        run,
        toJson: withoutTenant
      }))
      .handle("tileData", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("dashboards.tileData")
          const dashboard = yield* run(Dashboards.get(member.tenantId, params.id))
          const security = yield* run(Datasets.securityContext(member))
          const tile = run(Dashboards.queryTile(member.tenantId, params.id, params.tile_id, security))
          return respond(endpoint, yield* queryResult(member.tenantId, dashboard.workspace_id, tile))
        }))
      .handle("view", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("dashboards.view")
          return respond(endpoint, yield* views.dashboard(member, params.id))
        }))
  }))
