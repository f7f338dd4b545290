/**
 * Datasets of the tenant's workspaces and their semantic queries.
 *
 * @since 0.1.0
 */
import { AuditLog, Dataset, DatasetRefresh, SemanticModel, SemanticQuery, SqlDialect, Workspace } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { Authentication, Idempotent, idempotencyHeader } from "../Middleware.ts"
import * as Endpoints from "../Endpoints.ts"
import * as Problems from "../Problems.ts"
import { queryProblems, QueryResultJson } from "../QueryResult.ts"
import { RateLimitClass } from "../RateLimitClass.ts"
import * as ResourceEndpoints from "../ResourceEndpoints.ts"

/** A dataset as the API shows it. */
export const DatasetJson = Schema.Struct({
  dataset_id: Dataset.DatasetId,
  workspace_id: Workspace.WorkspaceId,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  source: Dataset.DatasetSource,
  model: SemanticModel.Model,
  columns: Schema.Array(Schema.Struct({
    name: Schema.String,
    type: SemanticModel.DimensionType.annotate({ description: "The dimension type the column suggests" }),
    engine_type: Schema.String
  })).annotate({ description: "The columns of the rows as last loaded; empty before any" }),
  row_count: Schema.NullOr(Schema.Number),
  refreshed_at: Schema.NullOr(Schema.Date).annotate({ description: "When the rows were last loaded (or the table first read)" }),
  refresh_cron: Schema.NullOr(Schema.String).annotate({ description: "A PostgreSQL dataset's refresh schedule (cron, UTC)" }),
  created_at: Schema.Date,
  updated_at: Schema.Date
})


/** A refresh of a dataset, as its log keeps it. */
export const RefreshJson = Schema.Struct({
  refresh_id: Schema.String.annotate({ description: "As the refresh's dataset.refresh.* events name it" }),
  trigger: DatasetRefresh.Trigger.annotate({ description: "What started it: a file uploaded, POST /v1/datasets/{id}/refresh, or the dataset's schedule" }),
  requested_by: Schema.NullOr(AuditLog.Actor).annotate({ description: "Who started it; null for a scheduled refresh" }),
  status: DatasetRefresh.Status,
  row_count: Schema.NullOr(Schema.Number).annotate({ description: "The rows it found; null when it failed" }),
  error: Schema.NullOr(DatasetRefresh.Failure).annotate({ description: "Why it failed, as its dataset.refresh.failed event says" }),
  started_at: Schema.Date,
  finished_at: Schema.Date,
  duration_ms: Schema.Number
})

/** Datasets of the tenant's workspaces and their semantic queries. */
export const DatasetsGroup = ResourceEndpoints.group("datasets", {
  path: "/v1/datasets",
  json: DatasetJson,
  listDescription: "The datasets of a workspace (required), newest first.",
  create: {
    payload: Dataset.DatasetCreate,
    error: [Problems.Forbidden, Problems.NotFound, Problems.ModelInvalid, Problems.SourceInvalid, Problems.EngineUnavailable],
    description: "Creates a dataset in a workspace: an upload (PUT its file to /v1/datasets/{id}/data) or a table of the operator's PostgreSQL. Without a model, one is suggested from the columns. Tenant admins only."
  },
  update: {
    payload: Dataset.DatasetUpdate,
    error: [Problems.Forbidden, Problems.NotFound, Problems.ModelInvalid],
    description: "Renames or describes a dataset: its semantic model (dimensions, measures, row-level security) is checked against its columns. Tenant admins only."
  },
  remove: {
    error: [Problems.Forbidden, Problems.NotFound, Problems.DatasetInUse],
    description: "Deletes a dataset and its rows. A dataset that reports (a visual of it), dashboards (a tile of those reports) or alerts use is refused, 409 dataset/in-use naming each by id and name, and nothing is deleted: delete or change them first. Tenant admins only."
  }
})
  .add(
    HttpApiEndpoint.post("refresh", "/v1/datasets/:id/refresh", {
      params: ResourceEndpoints.idParams,
      headers: idempotencyHeader,
      success: DatasetJson,
      error: [Problems.Forbidden, Problems.NotFound, Problems.RefreshNeedsFile, Problems.SourceInvalid, Problems.EngineUnavailable, Problems.ModelInvalid]
    }).middleware(Idempotent).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Reads a PostgreSQL dataset's table again (columns, row count), with the dataset.refresh.* events; an upload dataset is refreshed by PUTting its file again. Tenant admins only."
    )
  )
  .add(Endpoints.list("refreshes", "/v1/datasets/:id/refreshes", {
    params: ResourceEndpoints.idParams,
    item: RefreshJson,
    error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound],
    description: "A dataset's refresh history, newest first: each refresh that ended (an upload, POST /v1/datasets/{id}/refresh, or its schedule), who started it, how it ended, its rows and duration. Tenant admins only."
  }))
  .add(
    HttpApiEndpoint.post("query", "/v1/datasets/:id/query", {
      params: ResourceEndpoints.idParams,
      headers: idempotencyHeader,
      payload: SemanticQuery.Query,
      success: QueryResultJson,
      error: queryProblems
    }).middleware(Idempotent).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "Runs a semantic query (measures, dimensions, time_dimensions, filters, order, limit) for the caller: row-level security applies, evaluated now. At most the plan's concurrent queries per workspace (429 rate-limit/query-concurrency)."
    )
  )
  .add(
    HttpApiEndpoint.post("sql", "/v1/datasets/:id/sql", {
      params: ResourceEndpoints.idParams,
      payload: SemanticQuery.Query,
      success: Schema.Struct({
        dialect: Schema.Literals(SqlDialect.dialectNames),
        sql: Schema.String,
        params: Schema.Array(Schema.Union([Schema.String, Schema.Number, Schema.Boolean]))
      }),
      error: [Problems.Forbidden, Problems.NotFound, Problems.QueryInvalid, Problems.NotLoaded, Problems.EngineUnavailable, Problems.ModelInvalid]
    }).annotate(RateLimitClass, "read").annotate(
      OpenApi.Description,
      "The SQL a query compiles to for the dataset's engine, with its bound parameters (a dry run: nothing is executed)."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Datasets queried through a semantic layer. Members query; tenant admins create and describe.")
