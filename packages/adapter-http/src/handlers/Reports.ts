/**
 * The handlers of `/v1/reports...`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { Datasets, Grants, Reports } from "@analytics/core"
import { Effect } from "effect"
import { analyticsTools } from "./AnalyticsTools.ts"
import { caller, respond, withoutTenant } from "./Handling.ts"
import { memberViews } from "./MemberViews.ts"
import * as ResourceHandlers from "./ResourceHandlers.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** `/v1/reports...`: members list, read and run visuals, and view what a grant lets them; tenant admins write. */
export const reportsLayer = ApiHandlers.group(Api, "reports", (handlers) =>
  Effect.gen(function*() {
    const tools = yield* analyticsTools
    const { queryResult, run } = tools
    const views = yield* memberViews(tools)
    return handlers
      .handleAll(ResourceHandlers.handlers(handlers, {
        name: "reports",
        useCases: Reports,
        owner: ResourceHandlers.tenantOf,
        run,
        toJson: withoutTenant,
        beforeUpdate: (member, id) => run(Grants.authorize(member, "report", id, "edit"))
      }))
      .handle("visualData", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("reports.visualData")
          const report = yield* run(Reports.get(member.tenantId, params.id))
          const security = yield* run(Datasets.securityContext(member))
          const visual = run(Reports.queryVisual(member.tenantId, params.id, params.visual_id, security, payload.filters ?? []))
          return respond(endpoint, yield* queryResult(member.tenantId, report.workspace_id, visual))
        }))
      .handle("view", ({ endpoint, params, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("reports.view")
          return respond(endpoint, yield* views.report(member, params.id, query))
        }))
  }))
