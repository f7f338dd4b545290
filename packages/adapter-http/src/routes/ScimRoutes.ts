/**
 * SCIM 2.0 at `/scim/v2` (RFC 7644): Users, Groups and the discovery
 * documents, for the tenant's identity provider (a token issued by
 * `POST /v1/scim-tokens`). Served beside the HttpApi contract, because SCIM
 * has its own media type, error body and schemas; the edge (rate limits,
 * body cap) is the same.
 *
 * @since 0.1.0
 */
import { type Errors, type Group, Policy, Scim, ScimProvisioning, type Tenant, type User } from "@analytics/core"
import { Effect, Layer, Result } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { ServiceInfo } from "../ServiceInfo.ts"
import { ResolvedCaller } from "../edge/ResolvedCaller.ts"

/** Where SCIM is served. */
export const prefix = "/scim/v2"

const respond = (status: number, body: unknown) =>
  HttpServerResponse.jsonUnsafe(body, { status, contentType: Scim.mediaType })

const failure = (error: Scim.ScimError) => respond(error.status, Scim.errorBody(error))

/** The tenant of the identity provider's token, or a SCIM 401/403. */
const tenantOf = Effect.flatMap(Effect.serviceOption(ResolvedCaller), (resolved): Effect.Effect<Tenant.TenantId, Scim.ScimError> => {
  const unauthenticated = new Scim.ScimError({ status: 401, detail: "Send the tenant's SCIM token as Authorization: Bearer <token>" })
  if (resolved._tag === "None") return Effect.fail(unauthenticated)
  return Policy.authorizeScim(resolved.value.caller.principal).pipe(
    Effect.mapError(() => new Scim.ScimError({ status: 403, detail: "Only a SCIM token (POST /v1/scim-tokens) may provision" })),
    Effect.filterOrFail(() => resolved.value.caller.tenant !== undefined, () => unauthenticated)
  )
})

/** The media types a SCIM body may come as (RFC 7644 §3.1: identity providers send either). */
const bodyTypes = new Set([Scim.mediaType, "application/json"])

/** The request's JSON body; a SCIM 415 for another media type, 413 over the edge's cap, 400 invalidSyntax when it is not JSON. */
const body = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
  const type = (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase()
  if (!bodyTypes.has(type)) {
    return Effect.fail(new Scim.ScimError({ status: 415, detail: `Send the body as ${Scim.mediaType}` }))
  }
  return Effect.mapError(request.json, (error) =>
    error._tag === "HttpServerError" && error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"
      ? new Scim.ScimError({ status: 413, detail: "The body is too large" })
      : new Scim.ScimError({ status: 400, scimType: "invalidSyntax", detail: "The body is not JSON" }))
})

/** The `filter` (parsed; a SCIM 400 when unsupported), `startIndex` (1-based) and `count` (at most `Scim.maxResults`) of a list request. */
const listQuery = Effect.flatMap(HttpServerRequest.ParsedSearchParams, (params) => {
  const number = (value: unknown, fallback: number) => {
    const n = typeof value === "string" ? Number.parseInt(value, 10) : Number.NaN
    return Number.isFinite(n) ? n : fallback
  }
  return Result.match(Scim.parseFilter(typeof params.filter === "string" ? params.filter : undefined), {
    onFailure: Effect.fail,
    onSuccess: (filter) =>
      Effect.succeed({
        filter,
        startIndex: Math.max(1, number(params.startIndex, 1)),
        count: Math.min(Scim.maxResults, Math.max(0, number(params.count, 100)))
      })
  })
})

/** Runs a SCIM handler: errors become SCIM error bodies; the store failing is 503. */
const handle = <R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, Scim.ScimError | Errors.StoreError, R>) =>
  effect.pipe(
    Effect.catchTags({
      ScimError: (error) => Effect.succeed(failure(error)),
      StoreError: () => Effect.succeed(failure(new Scim.ScimError({ status: 503, detail: "The store is unavailable; retry later" })))
    })
  )

const idParam = Effect.map(HttpRouter.params, (params) => params.id ?? "")

/** Every SCIM route, as `[method, path]` (the edge's 404/405 answers know them). */
export const routes: ReadonlyArray<readonly [string, string]> = [
  ["GET", `${prefix}/ServiceProviderConfig`],
  ["GET", `${prefix}/ResourceTypes`],
  ["GET", `${prefix}/Schemas`],
  ["GET", `${prefix}/Users`],
  ["POST", `${prefix}/Users`],
  ["GET", `${prefix}/Users/:id`],
  ["PUT", `${prefix}/Users/:id`],
  ["PATCH", `${prefix}/Users/:id`],
  ["DELETE", `${prefix}/Users/:id`],
  ["GET", `${prefix}/Groups`],
  ["POST", `${prefix}/Groups`],
  ["GET", `${prefix}/Groups/:id`],
  ["PUT", `${prefix}/Groups/:id`],
  ["PATCH", `${prefix}/Groups/:id`],
  ["DELETE", `${prefix}/Groups/:id`]
]

/** The SCIM routes, on the `HttpRouter`, over the stores and publisher in context. */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const info = yield* ServiceInfo
  const baseUrl = `${info.publicBaseUrl}${prefix}`
  const services = yield* Effect.context<ScimProvisioning.Services>()
  const run = <A, E, R extends ScimProvisioning.Services>(effect: Effect.Effect<A, E, R>) =>
    Effect.provideContext(effect, services) as Effect.Effect<A, E, Exclude<R, ScimProvisioning.Services>>
  const user = (status: number, u: User.User) => respond(status, Scim.userResource(u, baseUrl))
  /** A group as a SCIM resource, with its members. */
  const groupResource = (tenantId: Tenant.TenantId, g: Group.Group) =>
    Effect.map(run(ScimProvisioning.membersOf(tenantId, g)), (members) => Scim.groupResource(g, members, baseUrl))
  const group = (status: number, tenantId: Tenant.TenantId, g: Group.Group) =>
    Effect.map(groupResource(tenantId, g), (resource) => respond(status, resource))
  const route = (
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
    path: string,
    effect: Effect.Effect<HttpServerResponse.HttpServerResponse, Scim.ScimError | Errors.StoreError, HttpRouter.Provided>
  ) =>
    HttpRouter.add(method, `${prefix}${path}` as HttpRouter.PathInput, handle(effect))
  const noContent = HttpServerResponse.empty({ status: 204 })
  return Layer.mergeAll(
    route("GET", "/ServiceProviderConfig", Effect.succeed(respond(200, Scim.serviceProviderConfig(`${info.publicBaseUrl}/v1/docs`)))),
    route("GET", "/ResourceTypes", Effect.succeed(respond(200, Scim.listResponse(Scim.resourceTypes(baseUrl), 2, 1)))),
    route("GET", "/Schemas", Effect.succeed(respond(200, Scim.listResponse(Scim.schemas(baseUrl), 2, 1)))),
    route("GET", "/Users", Effect.gen(function*() {
      const tenantId = yield* tenantOf
      const { count, filter, startIndex } = yield* listQuery
      const { total, users } = yield* run(ScimProvisioning.listUsers(tenantId, filter, startIndex, count))
      return respond(200, Scim.listResponse(users.map((u) => Scim.userResource(u, baseUrl)), total, startIndex))
    })),
    route("POST", "/Users", Effect.gen(function*() {
      const tenantId = yield* tenantOf
      return user(201, yield* run(ScimProvisioning.createUser(tenantId, yield* body)))
    })),
    route("GET", "/Users/:id", Effect.gen(function*() {
      const tenantId = yield* tenantOf
      return user(200, yield* run(ScimProvisioning.getUser(tenantId, yield* idParam)))
    })),
    route("PUT", "/Users/:id", Effect.gen(function*() {
      const tenantId = yield* tenantOf
      return user(200, yield* run(ScimProvisioning.replaceUser(tenantId, yield* idParam, yield* body)))
    })),
    route("PATCH", "/Users/:id", Effect.gen(function*() {
      const tenantId = yield* tenantOf
      return user(200, yield* run(ScimProvisioning.patchUser(tenantId, yield* idParam, yield* body)))
    })),
    route("DELETE", "/Users/:id", Effect.gen(function*() {
      const tenantId = yield* tenantOf
      yield* run(ScimProvisioning.deleteUser(tenantId, yield* idParam))
      return noContent
    })),
    route("GET", "/Groups", Effect.gen(function*() {
      const tenantId = yield* tenantOf
      const { count, filter, startIndex } = yield* listQuery
      const { groups, total } = yield* run(ScimProvisioning.listGroups(tenantId, filter, startIndex, count))
      const resources = yield* Effect.forEach(groups, (g) => groupResource(tenantId, g))
      return respond(200, Scim.listResponse(resources, total, startIndex))
    })),
    route("POST", "/Groups", Effect.gen(function*() {
      const tenantId = yield* tenantOf
      return yield* group(201, tenantId, yield* run(ScimProvisioning.createGroup(tenantId, yield* body)))
    })),
    route("GET", "/Groups/:id", Effect.gen(function*() {
      const tenantId = yield* tenantOf
      return yield* group(200, tenantId, yield* run(ScimProvisioning.getGroup(tenantId, yield* idParam)))
    })),
    route("PUT", "/Groups/:id", Effect.gen(function*() {
      const tenantId = yield* tenantOf
      return yield* group(200, tenantId, yield* run(ScimProvisioning.replaceGroup(tenantId, yield* idParam, yield* body)))
    })),
    route("PATCH", "/Groups/:id", Effect.gen(function*() {
      const tenantId = yield* tenantOf
      return yield* group(200, tenantId, yield* run(ScimProvisioning.patchGroup(tenantId, yield* idParam, yield* body)))
    })),
    route("DELETE", "/Groups/:id", Effect.gen(function*() {
      const tenantId = yield* tenantOf
      yield* run(ScimProvisioning.deleteGroup(tenantId, yield* idParam))
      return noContent
    }))
  )
}))

