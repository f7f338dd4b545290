/**
 * Reports: named pages of visuals over datasets.
 *
 * @since 0.1.0
 */
import { Report, SemanticQuery, Tenant, Workspace } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { Authentication, Idempotent, idempotencyHeader } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import { queryProblems, QueryResultJson } from "../QueryResult.ts"
import { RateLimitClass } from "../RateLimitClass.ts"
import { ReportViewJson } from "../ViewerData.ts"
import * as ResourceEndpoints from "../ResourceEndpoints.ts"

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


/** Reports of the tenant's workspaces: pages of visuals over datasets. */
export const ReportsGroup = ResourceEndpoints.group("reports", {
  path: "/v1/reports",
  json: ReportJson,
  listDescription: "The reports of a workspace (required), newest first.",
  create: {
    payload: Report.ReportCreate,
    error: [Problems.Forbidden, Problems.NotFound, Problems.ReportInvalid],
    description: "Creates a report: named pages of visuals, each a semantic query of a dataset of the same workspace and an encoding of its columns. Tenant admins only."
  },
  update: {
    payload: Report.ReportUpdate,
    error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.ReportInvalid],
    description: "Changes a report; `pages` replaces every page. Tenant admins, and whoever a grant gives edit on the report or its workspace (as a user, or through a team or executive role they hold now)."
  }
})
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
  .add(
    HttpApiEndpoint.get("view", "/v1/reports/:id/view", {
      params: { id: Schema.String },
      query: {
        filters: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(8192)).annotate({
          description: "The report filters' values, as a JSON object (`{\"region\":[\"EU\"]}`), as the share page takes them"
        })),
        pages: Schema.optionalKey(Schema.Union([Tenant.Name, Schema.Array(Tenant.Name).check(Schema.isMaxLength(50))]).annotate({
          description: "Only these pages, by name (repeat the parameter for several); every page when absent"
        }))
      },
      success: ReportViewJson,
      error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.InvalidRequest, Problems.QueryConcurrency, Problems.ServiceUnavailable]
    }).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "The report as the caller sees it, as the browser's viewer draws it (the share page's data, without server-drawn charts): every visual run with the caller's row-level security and the chosen filters' values, each filter as a control offering the values the caller may see. " +
        "For whom a grant gives view on the report or its workspace (as a user, or through a team or executive role held now); tenant admins always. A visual that cannot be shown says why in words; the rest still show. " +
        "The view's queries take one slot of the workspace's concurrent queries (429 rate-limit/query-concurrency when every slot is busy)."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Reports: named pages of visuals. Members read them and run their visuals; tenant admins write them.")
