/**
 * The compiled routes (`ApiRoutes`) answer as `HttpApiBuilder` does: one
 * small contract, served both ways over real sockets, asked the same
 * requests (successes as values and as responses, an empty success,
 * decoding failures of every slot, a missing or bad credential, a declared
 * problem, an unsupported media type, malformed JSON) and compared answer
 * by answer: status, media type and body. One endpoint has a text payload,
 * which the compiler leaves to `HttpApiBuilder`'s own route: it must be
 * served all the same.
 */
import { Middleware as Contract, Problems } from "@analytics/api"
import { Authenticator, Errors, Principal, type Tenant, TenantCache } from "@analytics/core"
import { NodeHttpServer } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Schema } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import * as ApiHandlers from "../src/edge/ApiHandlers.ts"
import { listen } from "./TestServer.ts"
import * as ApiRoutes from "../src/edge/ApiRoutes.ts"
import { authenticationLayer, validationLayer } from "../src/edge/Middleware.ts"

const Thing = Schema.Struct({ id: Schema.String, n: Schema.Number, at: Schema.Date })

const Things = HttpApiGroup.make("things")
  .add(HttpApiEndpoint.get("get", "/things/:id", {
    params: { id: Schema.String },
    query: { n: Schema.optionalKey(Schema.NumberFromString.check(Schema.isFinite())) },
    success: Thing,
    error: Problems.NotFound
  }))
  .add(HttpApiEndpoint.post("create", "/things", {
    payload: Schema.Struct({ name: Schema.String.check(Schema.isMinLength(1)), tags: Schema.optionalKey(Schema.Array(Schema.String)) }),
    success: Thing.pipe(HttpApiSchema.status(201)),
    error: Problems.Forbidden
  }))
  .add(HttpApiEndpoint.delete("remove", "/things/:id", { params: { id: Schema.String }, error: Problems.NotFound }))
  .add(HttpApiEndpoint.post("note", "/notes", { payload: Schema.String.pipe(HttpApiSchema.asText()), success: Schema.String }))
  .middleware(Contract.Authentication)

const TestApi = HttpApi.make("api-routes")
  .add(Things)
  .middleware(Contract.Validation)
  .annotate(HttpApi.ParseOptions, { errors: "all", onExcessProperty: "error" })

const at = new Date("2026-11-26T12:00:00.000Z")

/** The group's handlers, registered both ways: with `HttpApiBuilder.group` and with `ApiHandlers.group`. */
const things = {
  // A value: encoded by the endpoint's success schema.
  get: HttpApiBuilder.handler(TestApi, "things", "get", ({ params, query }) =>
    params.id === "missing"
      ? Effect.fail(new Problems.NotFound({ detail: `No thing ${params.id}` }))
      : Effect.succeed({ id: params.id, n: query.n ?? 0, at })),
  create: HttpApiBuilder.handler(TestApi, "things", "create", ({ payload }) =>
    Effect.flatMap(Principal.CurrentPrincipal, (principal) =>
      payload.name === "forbidden"
        ? Effect.fail(new Problems.Forbidden({ detail: "Not this one" }))
        : Effect.succeed({ id: `${principal._tag}:${payload.name}`, n: payload.tags?.length ?? 0, at }))),
  remove: HttpApiBuilder.handler(TestApi, "things", "remove", ({ params }) =>
    params.id === "missing" ? Effect.fail(new Problems.NotFound({ detail: "Gone" })) : Effect.void),
  // A response: passed through as it is.
  note: HttpApiBuilder.handler(TestApi, "things", "note", ({ payload }) =>
    Effect.succeed(HttpServerResponse.text([...payload].reverse().join(""), { status: 200 }) as never))
}

const builderHandlers = HttpApiBuilder.group(TestApi, "things", (handlers) => handlers.handleAll(things))
const compiledHandlers = ApiHandlers.group(TestApi, "things", (handlers) => handlers.handleAll(things))

const tenant = { tenant_id: "t1" } as unknown as Tenant.Tenant

/** One token, `good`, of a member of tenant `t1`. */
const credentials = Layer.mergeAll(
  Layer.succeed(Authenticator.Authenticator, {
    authenticate: (credential) =>
      Redacted.value(credential) === "good"
        ? Effect.succeed(new Principal.Member({ tenantId: tenant.tenant_id, userId: "u1", email: null, roles: ["member"] }))
        : Effect.fail(new Errors.Unauthenticated({ detail: "Unknown token" }))
  }),
  Layer.succeed(TenantCache.TenantCache, { get: (id) => Effect.succeed(id === tenant.tenant_id ? tenant : undefined) })
)

/** The contract served by `routes` (HttpApiBuilder's or the compiled ones); its base URL. */
const serve = <R, A>(routes: Layer.Layer<never, never, R>, handlers: Layer.Layer<A>) =>
  Effect.flatMap(
    HttpRouter.toHttpEffect(routes.pipe(
      Layer.provide(handlers.pipe(Layer.provideMerge(Layer.mergeAll(authenticationLayer, validationLayer)))),
      Layer.provide(credentials),
      Layer.provide(NodeHttpServer.layerHttpServices)
    ) as unknown as Layer.Layer<never, never, HttpRouter.HttpRouter>),
    listen
  )

interface Ask {
  readonly method: string
  readonly path: string
  readonly token?: string
  readonly body?: string
  readonly contentType?: string
}

const asks: ReadonlyArray<Ask> = [
  { method: "GET", path: "/things/a?n=2", token: "good" },
  { method: "GET", path: "/things/a", token: "good" },
  { method: "GET", path: "/things/missing", token: "good" },
  { method: "GET", path: "/things/a?n=two", token: "good" },
  { method: "GET", path: "/things/a?other=1", token: "good" },
  { method: "GET", path: "/things/a?n=1&n=2", token: "good" },
  { method: "GET", path: "/things/a" },
  { method: "GET", path: "/things/a", token: "bad" },
  { method: "POST", path: "/things", token: "good", body: `{"name":"x","tags":["a","b"]}` },
  { method: "POST", path: "/things", token: "good", body: `{"name":""}` },
  { method: "POST", path: "/things", token: "good", body: `{"name":"x","extra":true}` },
  { method: "POST", path: "/things", token: "good", body: `{"name":` },
  { method: "POST", path: "/things", token: "good", body: "" },
  { method: "POST", path: "/things", token: "good", body: `{"name":"forbidden"}` },
  { method: "POST", path: "/things", token: "good", body: `{"name":"x"}`, contentType: "text/plain" },
  { method: "POST", path: "/things", token: "good", body: `{"name":"x"}`, contentType: "application/json; charset=utf-8" },
  { method: "POST", path: "/things", body: `{"name":"x"}` },
  { method: "DELETE", path: "/things/a", token: "good" },
  { method: "DELETE", path: "/things/missing", token: "good" },
  { method: "POST", path: "/notes", token: "good", body: "drawer", contentType: "text/plain" },
  { method: "POST", path: "/notes", body: "drawer", contentType: "text/plain" }
]

const answer = (base: string, ask: Ask) =>
  Effect.promise(async () => {
    const headers: Record<string, string> = {}
    if (ask.token !== undefined) headers["authorization"] = `Bearer ${ask.token}`
    if (ask.body !== undefined) headers["content-type"] = ask.contentType ?? "application/json"
    const response = await fetch(base + ask.path, { method: ask.method, headers, ...(ask.body === undefined ? {} : { body: ask.body }) })
    return { status: response.status, contentType: response.headers.get("content-type"), body: await response.text() }
  })

describe("ApiRoutes", () => {
  it.live("answers every request as HttpApiBuilder does, compiled or not", () =>
    Effect.scoped(Effect.gen(function*() {
      const builder = yield* serve(HttpApiBuilder.layer(TestApi), builderHandlers as Layer.Layer<unknown>)
      const compiled = yield* serve(ApiRoutes.layer(TestApi), compiledHandlers as Layer.Layer<unknown>)
      const statuses: Array<number> = []
      for (const ask of asks) {
        const expected = yield* answer(builder, ask)
        const actual = yield* answer(compiled, ask)
        assert.deepStrictEqual(actual, expected, `${ask.method} ${ask.path} ${ask.body ?? ""}`)
        statuses.push(actual.status)
      }
      // The requests reach every kind of answer (so the comparison is not of one kind only).
      assert.deepStrictEqual(
        statuses,
        [200, 200, 404, 400, 400, 400, 401, 401, 201, 400, 400, 400, 400, 403, 415, 201, 401, 204, 404, 200, 401]
      )
    })))
})
