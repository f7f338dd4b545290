/**
 * Dashboards: visuals pinned from reports.
 *
 * @since 0.1.0
 */
import { Dashboard, Workspace } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as ListEnvelope from "../ListEnvelope.ts"
import { Authentication, Idempotent, idempotencyHeader } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import * as QueryParams from "../QueryParams.ts"
import { queryProblems, QueryResultJson } from "../QueryResult.ts"
import { RateLimitClass } from "../RateLimitClass.ts"

/** A dashboard as the API shows it. */
export const DashboardJson = Schema.Struct({
  dashboard_id: Dashboard.DashboardId,
  workspace_id: Workspace.WorkspaceId,
  name: Schema.String,
  tiles: Schema.Array(Dashboard.Tile),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const dashboardParams = { id: Schema.String }

/** Dashboards: visuals pinned from reports. */
export const DashboardsGroup = HttpApiGroup.make("dashboards")
  .add(
    HttpApiEndpoint.get("list", "/v1/dashboards", {
      query: { workspace_id: Workspace.WorkspaceId, ...QueryParams.page },
      success: ListEnvelope.make(DashboardJson),
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/dashboards", {
      headers: idempotencyHeader,
      payload: Dashboard.DashboardCreate,
      success: DashboardJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.DashboardInvalid]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Creates a dashboard of tiles, each pinning a visual of a report of the same workspace on a 24-column grid. Tenant admins only."
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/dashboards/:id", { params: dashboardParams, success: DashboardJson, error: [Problems.Forbidden, Problems.NotFound] })
      .annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/dashboards/:id", {
      params: dashboardParams,
      payload: Dashboard.DashboardUpdate,
      success: DashboardJson,
      error: [Problems.Forbidden, Problems.NotFound, Problems.DashboardInvalid]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.delete("delete", "/v1/dashboards/:id", {
      params: dashboardParams,
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.post("tileData", "/v1/dashboards/:id/tiles/:tile_id/query", {
      params: { id: Schema.String, tile_id: Schema.String },
      headers: idempotencyHeader,
      success: QueryResultJson,
      error: queryProblems
    }).middleware(Idempotent).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "Runs a tile's report visual for the caller.")
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Dashboards: visuals pinned from reports. Members read them; tenant admins write them.")
