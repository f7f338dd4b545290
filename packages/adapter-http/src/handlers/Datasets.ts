/**
 * The handlers of `/v1/datasets...`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { Alerts, type Dataset, DatasetDeletion, Datasets } from "@analytics/core"
import { Effect } from "effect"
import { analyticsTools } from "./AnalyticsTools.ts"
import { caller, listRequest, respond } from "./Handling.ts"
import * as ResourceHandlers from "./ResourceHandlers.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** A dataset as the API shows it. */
export const datasetJson = (d: Dataset.Dataset) => ({
  dataset_id: d.dataset_id,
  workspace_id: d.workspace_id,
  name: d.name,
  description: d.description,
  source: d.source,
  model: d.model,
  columns: d.columns.map((c) => ({ name: c.name, type: c.type, engine_type: c.engineType })),
  row_count: d.row_count,
  refreshed_at: d.refreshed_at,
  refresh_cron: d.refresh_cron,
  created_at: d.created_at,
  updated_at: d.updated_at
})

/** `/v1/datasets...`: members list, read and query; tenant admins create, describe and delete. */
export const datasetsLayer = ApiHandlers.group(Api, "datasets", (handlers) =>
  Effect.gen(function*() {
    const { queryResult, run } = yield* analyticsTools
    return handlers
      .handleAll(ResourceHandlers.handlers(handlers, {
        name: "datasets",
        // A dataset that reports, dashboards or alerts use is refused (409 dataset/in-use), nothing deleted.
        useCases: { ...Datasets, remove: DatasetDeletion.remove },
        owner: ResourceHandlers.tenantOf,
        run,
        toJson: datasetJson
      }))
      .handle("refresh", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const admin = yield* caller("datasets.refresh")
          const dataset = yield* run(Datasets.refresh(admin.tenantId, params.id, { trigger: "manual", requested_by: { type: "user", id: admin.userId } }))
          yield* run(Alerts.afterRefresh(admin.tenantId, dataset.dataset_id))
          return respond(endpoint, datasetJson(dataset))
        }))
      .handle("refreshes", ({ endpoint, params, query }) =>
        Effect.gen(function*() {
          const admin = yield* caller("datasets.refreshes")
          const page = yield* run(Datasets.refreshes(admin.tenantId, params.id, yield* listRequest(query)))
          const data = page.data.map(({ tenant_id: _, dataset_id: __, ...refresh }) => refresh)
          return respond(endpoint, { data, page: page.page })
        }))
      .handle("query", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("datasets.query")
          const dataset = yield* run(Datasets.get(member.tenantId, params.id))
          const security = yield* run(Datasets.securityContext(member))
          return respond(endpoint, yield* queryResult(member.tenantId, dataset.workspace_id, run(Datasets.query(member.tenantId, params.id, payload, security))))
        }))
      .handle("sql", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("datasets.sql")
          const security = yield* run(Datasets.securityContext(member))
          const { compiled, dialect } = yield* run(Datasets.compile(member.tenantId, params.id, payload, security))
          return respond(endpoint, { dialect, sql: compiled.sql, params: compiled.params })
        }))
  }))
