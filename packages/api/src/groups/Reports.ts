/**
 * Reports: named pages of visuals over datasets.
 *
 * @since 0.1.0
 */
import { Report, SemanticQuery, Workspace } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as ListEnvelope from "../ListEnvelope.ts"
import { Authentication, Idempotent, idempotencyHeader } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import * as QueryParams from "../QueryParams.ts"
import { queryProblems, QueryResultJson } from "../QueryResult.ts"
import { RateLimitClass } from "../RateLimitClass.ts"

/** A report as the API shows it. */
export const ReportJson = Schema.Struct({
  report_id: Report.ReportId,
  workspace_id: Workspace.WorkspaceId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  pages: Schema.Array(Report.Page),
  filters: Schema.Array(Report.ReportFilter),
  settings: Report.Settings,
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** The path parameters of one report. */
export const reportParams = { id: Schema.String }

/** Reports of the tenant's workspaces: pages of visuals over datasets. */
export const ReportsGroup = HttpApiGroup.make("reports")
  .add(
    HttpApiEndpoint.get("list", "/v1/reports", {
      query: { workspace_id: Workspace.WorkspaceId, ...QueryParams.page },
      success: ListEnvelope.make(ReportJson),
      error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read").annotate(OpenApi.Description, "The reports of a workspace (required), newest first.")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/reports", {
      headers: idempotencyHeader,
      payload: Report.ReportCreate,
      success: ReportJson.pipe(HttpApiSchema.status(201)),
      error: [Problems.Forbidden, Problems.NotFound, Problems.ReportInvalid]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Creates a report: named pages of visuals, each a semantic query of a dataset of the same workspace and an encoding of its columns. Tenant admins only."
    )
  )
  .add(
    HttpApiEndpoint.get("get", "/v1/reports/:id", {
      params: reportParams,
      success: ReportJson,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.patch("update", "/v1/reports/:id", {
      params: reportParams,
      payload: Report.ReportUpdate,
      success: ReportJson,
      error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.ReportInvalid]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Changes a report; `pages` replaces every page. Tenant admins, and whoever a grant gives edit on the report or its workspace (as a user, or through a team or executive role they hold now)."
    )
  )
  .add(
    HttpApiEndpoint.delete("delete", "/v1/reports/:id", {
      params: reportParams,
      success: HttpApiSchema.NoContent,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.post("visualData", "/v1/reports/:id/visuals/:visual_id/query", {
      params: { id: Schema.String, visual_id: Schema.String },
      headers: idempotencyHeader,
      payload: Schema.Struct({ filters: Schema.optionalKey(SemanticQuery.Query.fields.filters) }),
      success: QueryResultJson,
      error: queryProblems
    }).middleware(Idempotent).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "Runs one visual's query for the caller (row-level security applies), with extra `filters` if given, cancelled after the report's query_timeout_seconds."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Reports: named pages of visuals. Members read them and run their visuals; tenant admins write them.")
