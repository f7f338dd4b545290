/**
 * The handlers of `/v1/reports...`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { Datasets, Grants, Reports } from "@analytics/core"
import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { analyticsTools } from "./AnalyticsTools.ts"
import { caller, listRequest, respond, withoutTenant } from "./Handling.ts"

/** `/v1/reports...`: members list, read and run visuals; tenant admins write. */
export const reportsLayer = HttpApiBuilder.group(Api, "reports", (handlers) =>
  Effect.gen(function*() {
    const { queryResult, run } = yield* analyticsTools
    return handlers
      .handle("list", ({ endpoint, query }) =>
        Effect.gen(function*() {
          const member = yield* caller("reports.list")
          const request = yield* listRequest(query)
          const page = yield* run(Reports.list(member.tenantId, query.workspace_id, request))
          return respond(endpoint, { data: page.data.map(withoutTenant), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const admin = yield* caller("reports.create")
          return respond(endpoint, withoutTenant(yield* run(Reports.create(admin.tenantId, payload))))
        }))
      .handle("get", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("reports.get")
          return respond(endpoint, withoutTenant(yield* run(Reports.get(member.tenantId, params.id))))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("reports.update")
          yield* run(Grants.authorize(member, "report", params.id, "edit"))
          return respond(endpoint, withoutTenant(yield* run(Reports.update(member.tenantId, params.id, payload))))
        }))
      .handle("delete", ({ params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("reports.delete")
          yield* run(Reports.remove(admin.tenantId, params.id))
        }))
      .handle("visualData", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("reports.visualData")
          const report = yield* run(Reports.get(member.tenantId, params.id))
          const security = yield* run(Datasets.securityContext(member))
          const visual = run(Reports.queryVisual(member.tenantId, params.id, params.visual_id, security, payload.filters ?? []))
          return respond(endpoint, yield* queryResult(member.tenantId, report.workspace_id, visual))
        }))
  }))
