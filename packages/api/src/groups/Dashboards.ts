/**
 * Dashboards: visuals pinned from reports.
 *
 * @since 0.1.0
 */
import { Dashboard, Workspace } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { Authentication, Idempotent, idempotencyHeader } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import { queryProblems, QueryResultJson } from "../QueryResult.ts"
import { RateLimitClass } from "../RateLimitClass.ts"
import { DashboardViewJson } from "../ViewerData.ts"
import * as ResourceEndpoints from "../ResourceEndpoints.ts"

/** A dashboard as the API shows it. */
export const DashboardJson = Schema.Struct({
  dashboard_id: Dashboard.DashboardId,
  workspace_id: Workspace.WorkspaceId,
  name: Schema.String,
  tiles: Schema.Array(Dashboard.Tile),
  created_at: Schema.Date,
  updated_at: Schema.Date
})


/** Dashboards: visuals pinned from reports. */
export const DashboardsGroup = ResourceEndpoints.group("dashboards", {
  path: "/v1/dashboards",
  json: DashboardJson,
  create: {
    payload: Dashboard.DashboardCreate,
    error: [Problems.Forbidden, Problems.NotFound, Problems.DashboardInvalid],
    description: "Creates a dashboard of tiles, each pinning a visual of a report of the same workspace on a 24-column grid. Tenant admins only."
  },
  update: {
    payload: Dashboard.DashboardUpdate,
    error: [Problems.Forbidden, Problems.NotFound, Problems.DashboardInvalid]
  }
})
  .add(
    HttpApiEndpoint.post("tileData", "/v1/dashboards/:id/tiles/:tile_id/query", {
      params: { id: Schema.String, tile_id: Schema.String },
      headers: idempotencyHeader,
      success: QueryResultJson,
      error: queryProblems
    }).middleware(Idempotent).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "Runs a tile's report visual for the caller.")
  )
  .add(
    HttpApiEndpoint.get("view", "/v1/dashboards/:id/view", {
      params: { id: Schema.String },
      success: DashboardViewJson,
      error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.QueryConcurrency, Problems.ServiceUnavailable]
    }).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "The dashboard as the caller sees it, each tile's visual as the browser's viewer draws it, run with the caller's row-level security, in the grid's order. " +
        "For whom a grant gives view on the dashboard or its workspace; tenant admins always. Its queries take one slot of the workspace's concurrent queries, as a report's view."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Dashboards: visuals pinned from reports. Members read them; tenant admins write them.")
