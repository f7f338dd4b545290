/**
 * The HTTP contract of the service, defined once: the server, the OpenAPI
 * 3.1 document and the typed client all derive from it.
 *
 * @since 0.1.0
 */
import { Plan, Principal, Tenant, Workspace } from "@analytics/core"
import { Schema } from "effect"
import {
  HttpApi,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity,
  OpenApi
} from "effect/http-api"
import * as Problems from "./Problems.ts"
import * as QueryParams from "./QueryParams.ts"
import { RateLimitClass } from "./RateLimiting.ts"

/** Bearer-token authentication; provides the caller as `CurrentPrincipal`. */
export class Authentication extends HttpApiMiddleware.Service<Authentication, {
  provides: Principal.CurrentPrincipal
}>()("@analytics/adapter-http/Authentication", {
  security: { bearer: HttpApiSecurity.bearer },
  // A tenant's requests are counted at the edge (spec 8.1); declared here so every authenticated endpoint documents its 429s.
  error: [Problems.Unauthenticated, Problems.ServiceUnavailable, ...Problems.rateLimitProblems]
}) {}

/** Idempotency-Key handling for a POST endpoint (replay, 409, 422). */
export class Idempotent extends HttpApiMiddleware.Service<Idempotent, {
  requires: Principal.CurrentPrincipal
}>()("@analytics/adapter-http/Idempotent", {
  error: [...Problems.idempotencyProblems, Problems.ServiceUnavailable]
}) {}

/** Renders request validation failures as `request/invalid` or `request/malformed-json` problems. */
export class Validation extends HttpApiMiddleware.Service<Validation>()("@analytics/adapter-http/Validation", {
  error: [Problems.InvalidRequest, Problems.MalformedJson]
}) {}

/** The `Idempotency-Key` request header, documented on every POST. */
const idempotencyHeader = Schema.Struct({
  "idempotency-key": Schema.optionalKey(Schema.String.annotate({
    description:
      "Up to 255 printable ASCII characters. A retry with the same key and body replays the first response for 24 hours; another body answers 422; a retry while the first runs answers 409."
  }))
})

/** The list envelope of spec 2.1. */
export const ListEnvelope = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    data: Schema.Array(item),
    page: Schema.Struct({
      limit: Schema.Int,
      next_cursor: Schema.NullOr(Schema.String),
      has_more: Schema.Boolean
    })
  })

// ---------------------------------------------------------------------------
// system

/** The liveness answer. */
export const Health = Schema.Struct({ status: Schema.Literal("ok"), version: Schema.String })

/** Public runtime configuration read by a frontend at boot. */
export const PublicConfig = Schema.Struct({
  version: Schema.String,
  urls: Schema.Struct({
    api: Schema.String,
    openapi: Schema.String,
    reference: Schema.String
  }),
  branding: Schema.Struct({
    name: Schema.String,
    logo_url: Schema.NullOr(Schema.String),
    primary_color: Schema.String
  }),
  features: Schema.Record(Schema.String, Schema.Boolean)
})

/** Health and public configuration; no token needed. */
export const SystemGroup = HttpApiGroup.make("system", { topLevel: true })
  .add(HttpApiEndpoint.get("health", "/healthz", { success: Health }).annotate(RateLimitClass, "read"))
  .add(HttpApiEndpoint.get("publicConfig", "/api/config/public", { success: PublicConfig }).annotate(RateLimitClass, "read"))
  .annotate(OpenApi.Description, "Liveness and public configuration; no token needed.")

// ---------------------------------------------------------------------------
// tenants (operator only)

/** A tenant as the API shows it. */
export const TenantJson = Schema.Struct({
  tenant_id: Tenant.TenantId,
  name: Tenant.Name,
  plan: Plan.Plan,
  limits: Schema.NullOr(Plan.NegotiatedLimits).annotate({
    description: "The custom plan's negotiated limits; null on other plans (their limits are the plan's)"
  }),
  created_at: Schema.Date
})

/** A plan, with negotiated limits when it is custom. */
const PlanChoice = {
  plan: Plan.Plan,
  limits: Schema.optionalKey(Plan.NegotiatedLimits)
}

/** A provisioned tenant, with its admin token shown this once. */
export const ProvisionedTenant = Schema.Struct({
  ...TenantJson.fields,
  token: Schema.String.annotate({ description: "The tenant's admin API token; shown once, stored only as a hash" })
})

/** Provisioning tenants: the operator token only. */
export const TenantsGroup = HttpApiGroup.make("tenants")
  .add(
    HttpApiEndpoint.post("create", "/v1/tenants", {
      headers: idempotencyHeader,
      payload: Schema.Struct({ name: Tenant.Name, ...PlanChoice }),
      success: ProvisionedTenant.pipe(HttpApiSchema.status(201)),
      error: Problems.Forbidden
    }).middleware(Idempotent).annotate(RateLimitClass, "write")
  )
  .add(
    HttpApiEndpoint.patch("changePlan", "/v1/tenants/:tenant_id", {
      params: { tenant_id: Schema.String },
      payload: Schema.Struct(PlanChoice),
      success: TenantJson,
      error: [Problems.Forbidden, Problems.NotFound]
    }).annotate(RateLimitClass, "write").annotate(
      OpenApi.Description,
      "Moves a tenant to another plan; its limits apply from its next request. Negotiated limits go with the custom plan only."
    )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Tenant provisioning and plans, for the service operator's token only.")

// ---------------------------------------------------------------------------
// workspaces

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
      success: ListEnvelope(WorkspaceJson),
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
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Workspaces of the caller's tenant.")

// ---------------------------------------------------------------------------

/** The whole API. */
export const Api = HttpApi.make("analytics")
  .add(SystemGroup)
  .add(TenantsGroup)
  .add(WorkspacesGroup)
  .middleware(Validation)
  .annotate(HttpApi.ParseOptions, { errors: "all", onExcessProperty: "error" })
  .annotate(HttpApi.HeadersParseOptions, { errors: "all" })
  // Responses are built from values the domain already validated: re-checking every row costs more than it catches.
  .annotate(HttpApi.SuccessParseOptions, { disableChecks: true })
  .annotate(OpenApi.Title, "Analytics Service API")
  .annotate(OpenApi.Version, "0.1.0")
  .annotate(
    OpenApi.Description,
    "Multi-tenant analytics: workspaces, datasets, reports, exports, sharing, webhooks. Errors are RFC 9457 problem+json with a `code` member."
  )
  .annotate(OpenApi.Transform, QueryParams.documentQueryParams)
