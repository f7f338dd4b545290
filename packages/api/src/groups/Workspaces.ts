/**
 * The workspaces of the caller's tenant.
 *
 * @since 0.1.0
 */
import { Tenant, Workspace } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoints from "../Endpoints.ts"
import * as ListEnvelope from "../ListEnvelope.ts"
import { Authentication, Idempotent, idempotencyHeader } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import * as QueryParams from "../QueryParams.ts"
import { RateLimitClass } from "../RateLimitClass.ts"

/** A workspace as the API shows it. */
export const WorkspaceJson = Schema.Struct({
  workspace_id: Workspace.WorkspaceId,
  name: Tenant.Name,
  description: Schema.NullOr(Schema.String),
  created_at: Schema.Date
})

/** Workspaces of the caller's tenant. */
export const WorkspacesGroup = HttpApiGroup.make("workspaces")
  .add(
    HttpApiEndpoint.get("list", "/v1/workspaces", {
      query: {
        limit: QueryParams.limit,
        cursor: QueryParams.cursor,
        sort: QueryParams.sort(Workspace.workspaceSortFields)
      },
      success: ListEnvelope.make(WorkspaceJson),
      error: [...Problems.cursorProblems, Problems.Forbidden]
    }).annotate(RateLimitClass, "read")
  )
  .add(
    HttpApiEndpoint.post("create", "/v1/workspaces", {
      headers: idempotencyHeader,
      payload: Workspace.WorkspaceCreate,
      success: WorkspaceJson.pipe(HttpApiSchema.status(201)),
      error: Problems.Forbidden
    }).middleware(Idempotent).annotate(RateLimitClass, "write")
  )
  .add(Endpoints.get("get", "/v1/workspaces/:workspace_id", {
    params: { workspace_id: Workspace.WorkspaceId },
    success: WorkspaceJson,
    error: [Problems.Forbidden, Problems.NotFound],
    description: "One workspace of the caller's tenant (a deep link's title): any member may read it, as the list; 404 for an id this tenant has not."
  }))
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Workspaces of the caller's tenant.")
