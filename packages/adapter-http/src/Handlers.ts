/**
 * The handlers of each group of the API: thin translations between the
 * contract and the core's use cases.
 *
 * @since 0.1.0
 */
import { Cursor, Principal, type Tenant, TenantStore, Tenants, Transactor, WorkspaceStore, Workspaces } from "@analytics/core"
import type { Workspace } from "@analytics/core/Workspace"
import { Context, Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "./Api.ts"
import * as JsonResponse from "./JsonResponse.ts"
import * as Problems from "./Problems.ts"
import { toProblem } from "./ProblemMapping.ts"
import { ServiceInfo } from "./ServiceInfo.ts"
import { pathOf } from "./Url.ts"

/**
 * Captures services when the handlers are built and provides them to each
 * request as overlays on its context: O(1) per service, where providing a
 * whole captured `Context` would copy the request's (large) context per call.
 */
const captured = <const Keys extends ReadonlyArray<Context.Key<any, any>>>(...keys: Keys) =>
  Effect.map(
    Effect.context<Keys[number]["Identifier"]>(),
    (context) => {
      const services = keys.map((key) => [key, Context.get(context, key)] as const)
      return <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Keys[number]["Identifier"]>> =>
        Effect.updateContext(effect, (requestContext: Context.Context<any>) => {
          let next = requestContext
          for (const [key, service] of services) next = Context.add(next, key, service)
          return next
        }) as any
    }
  )

/** The caller, who must be a tenant member (not the operator). */
const currentMember = Effect.flatMap(Principal.CurrentPrincipal, (principal) =>
  principal._tag === "Member"
    ? Effect.succeed(principal)
    : Effect.fail(new Problems.Forbidden({ detail: "The operator token may only provision tenants" })))

/** The caller, who must be the operator. */
const currentOperator = Effect.flatMap(Principal.CurrentPrincipal, (principal) =>
  principal._tag === "Operator"
    ? Effect.succeed(principal)
    : Effect.fail(new Problems.Forbidden({ detail: "Only the operator token may provision tenants and change plans" })))

/** What a list needs from the request: the path it binds (prefix-free) and its raw query parameters. */
const listContext = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
  Effect.map(HttpServerRequest.ParsedSearchParams, (params) => ({
    endpoint: `${request.method} ${pathOf(request.url)}`,
    params
  })))

/**
 * Every handler answers its success with the endpoint's compiled JSON encoder
 * (same body, status and content type as HttpApiBuilder's Schema encoding,
 * without walking the schema per response).
 */
const respond = JsonResponse.make(Api)

const workspaceJson = (w: Workspace) => ({
  workspace_id: w.workspace_id,
  name: w.name,
  description: w.description,
  created_at: w.created_at
})

/** `GET /healthz` and `GET /api/config/public`. */
export const systemLayer = HttpApiBuilder.group(Api, "system", (handlers) =>
  Effect.gen(function*() {
    const info = yield* ServiceInfo
    const health = { status: "ok", version: info.version } as const
    const publicConfig = {
      version: info.version,
      urls: {
        api: `${info.publicBaseUrl}/v1`,
        openapi: `${info.publicBaseUrl}/v1/openapi.json`,
        reference: `${info.publicBaseUrl}/v1/docs`
      },
      branding: {
        name: info.branding.name,
        logo_url: info.branding.logoUrl,
        primary_color: info.branding.primaryColor
      },
      features: info.features
    }
    return handlers
      .handle("health", ({ endpoint }) => Effect.sync(() => respond(endpoint, health)))
      .handle("publicConfig", ({ endpoint }) => Effect.sync(() => respond(endpoint, publicConfig)))
  }))

/** A tenant as the API shows it. */
const tenantJson = (tenant: Tenant.Tenant) => ({ ...tenant, limits: tenant.limits ?? null })

/** `POST /v1/tenants`, `PATCH /v1/tenants/{tenant_id}`. */
export const tenantsLayer = HttpApiBuilder.group(Api, "tenants", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(TenantStore.TenantStore, Transactor.Transactor)
    return handlers
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          yield* currentOperator
          const { tenant, token } = yield* Effect.mapError(provide(Tenants.provision(payload)), toProblem)
          return respond(endpoint, { ...tenantJson(tenant), token })
        }))
      .handle("changePlan", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          yield* currentOperator
          const tenant = yield* Effect.mapError(
            provide(Tenants.changePlan(params.tenant_id as Tenant.TenantId, payload)),
            toProblem
          )
          return respond(endpoint, tenantJson(tenant))
        }))
  }))

/** `GET|POST /v1/workspaces`. */
export const workspacesLayer = HttpApiBuilder.group(Api, "workspaces", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(WorkspaceStore.WorkspaceStore, Cursor.CursorCodec)
    return handlers
      .handle("list", (request) =>
        Effect.gen(function*() {
          const member = yield* currentMember
          const { endpoint, params } = yield* listContext
          const page = yield* Effect.mapError(
            provide(Workspaces.list(member.tenantId, {
              endpoint,
              params,
              limit: request.query.limit,
              cursor: request.query.cursor,
              sort: request.query.sort
            })),
            toProblem
          )
          return respond(request.endpoint, { data: page.data.map(workspaceJson), page: page.page })
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const member = yield* currentMember
          const workspace = yield* Effect.mapError(provide(Workspaces.create(member.tenantId, payload)), toProblem)
          return respond(endpoint, workspaceJson(workspace))
        }))
  }))
