/**
 * The API's routes, each compiled once from the contract (docs/decisions/0008).
 *
 * `HttpApiBuilder.layer` serves every endpoint through a generic pipeline:
 * per request it merges the group's whole context into the request's, runs
 * each declared security scheme in turn (wrapping the credential, catching
 * each failure), then decodes, calls the handler and encodes through
 * schemas. This layer serves the groups' handlers (`ApiHandlers.group`)
 * with what each endpoint needs resolved when the app is built: its
 * decoders, its success encoder (the compiled `JsonResponse`), its
 * middleware, and the caller decided in one call (`principalResolver`, from
 * the edge's resolution of the credential). The OpenAPI document and the
 * typed client still come from the contract.
 *
 * A handler does not get its group's whole context merged into every
 * request's (a copy of every service per request): it uses the services it
 * captured when it was built (`Handling.captured`), and `ApiHandlers.group`
 * refuses to compile a handler that reads any other.
 *
 * Everything is read through Effect's public API: the handlers from
 * `ApiHandlers`' own registry, the middleware by its contract key. An
 * endpoint this compiler does not cover (a payload other than JSON, several
 * success schemas, streams, response headers, another security middleware;
 * today only `GET /v1/audit-log/csv`) is served by
 * `HttpApiBuilder.endpoint`, Effect's own pipeline for one endpoint.
 *
 * @since 0.1.0
 */
import { Middleware as Contract } from "@analytics/api"
import { Principal } from "@analytics/core"
import { Context, Effect, Schema, SchemaAST, SchemaIssue } from "effect"
import { HttpMethod, HttpRouter, HttpServerRequest, HttpServerRespondable, HttpServerResponse } from "effect/http"
import {
  HttpApi,
  HttpApiBuilder,
  type HttpApiEndpoint,
  HttpApiError,
  type HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema
} from "effect/http-api"
import { toProblem } from "./DomainProblems.ts"
import * as ApiHandlers from "./ApiHandlers.ts"
import * as JsonResponse from "./JsonResponse.ts"
import { principalResolver } from "./Middleware.ts"
import * as RequestBody from "./RequestBody.ts"
import * as RequestDecoder from "./RequestDecoder.ts"
import { ResolvedCaller } from "./ResolvedCaller.ts"

type Response = HttpServerResponse.HttpServerResponse
type Wrap = (effect: Effect.Effect<Response, unknown, unknown>, options: { readonly group: HttpApiGroup.Top; readonly endpoint: HttpApiEndpoint.Top }) => Effect.Effect<Response, unknown, unknown>

/** The parse options of each request slot, as HttpApiBuilder reads them from the annotations. */
const slotOptions = (annotations: Context.Context<never>) => {
  const fallback = Context.getOrUndefined(annotations, HttpApi.ParseOptions)
  const pick = (key: Context.Key<any, SchemaAST.ParseOptions>): SchemaAST.ParseOptions | undefined =>
    Context.getOrUndefined(annotations, key) ?? fallback
  return {
    params: pick(HttpApi.ParamsParseOptions),
    query: pick(HttpApi.QueryParseOptions),
    headers: pick(HttpApi.HeadersParseOptions),
    payload: pick(HttpApi.PayloadParseOptions)
  }
}

/** The responses of endpoints whose single success is empty (`HttpApiSchema.NoContent`, `Empty(n)`), by endpoint. */
const emptySuccesses = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>) => {
  const empties = new Map<HttpApiEndpoint.Top, Response>()
  HttpApi.reflect(api, {
    onGroup() {},
    onEndpoint({ endpoint, successes }) {
      if (successes.size !== 1) return
      const [[status, schemas]] = successes
      if (schemas.length === 1 && HttpApiSchema.isNoContent(schemas[0].ast)) empties.set(endpoint, HttpServerResponse.empty({ status }))
    }
  })
  return empties
}

/**
 * A failure as HttpApiBuilder answers it: a decoding failure no middleware
 * turned into a problem is a defect; a problem renders itself (every error
 * the contract declares is an `HttpApiError.Problem`, whose rendering is its
 * schema's encoding); anything else is a defect, as an undeclared error is
 * there.
 */
const answerFailure = (error: unknown): Effect.Effect<Response> =>
  HttpApiError.HttpApiSchemaError.is(error) || !HttpServerRespondable.isRespondable(error)
    ? Effect.die(error)
    : HttpServerRespondable.toResponse(error)

/** `Content-Type` without parameters, lower case (HttpApiBuilder's reading; none means JSON). */
const mediaTypeOf = (header: string | undefined): string => {
  const normalized = (header ?? "application/json").toLowerCase().trim()
  const index = normalized.indexOf(";")
  return index === -1 ? normalized : normalized.slice(0, index).trim()
}

const invalidJson = () =>
  Effect.fail(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message: "Expected a valid JSON body" })))

/** Fills one slot of the handler's request (`params`, `query`, ...), or answers the request (a 415) instead. */
type Step = (request: Record<string, unknown>, context: Context.Context<never>) => Effect.Effect<Record<string, unknown> | Response, HttpApiError.HttpApiSchemaError>

/**
 * The request decoders of `endpoint`, in HttpApiBuilder's order (params,
 * headers, query, payload), with its parse options; `undefined` when its
 * payload is not JSON.
 */
const decodersOf = (endpoint: HttpApiEndpoint.Top, options: ReturnType<typeof slotOptions>): ReadonlyArray<Step> | undefined => {
  const steps: Array<Step> = []
  const slot = <A>(name: string, kind: HttpApiError.HttpApiSchemaError["kind"], decode: (input: unknown) => Effect.Effect<A, Schema.SchemaError>, input: (context: Context.Context<never>) => unknown): Step =>
    (request, context) => Effect.map(HttpApiError.HttpApiSchemaError.wrap(kind, decode(input(context))), (value) => {
      request[name] = value
      return request
    })
  if (endpoint.params !== undefined) {
    const decode = RequestDecoder.make(endpoint.params as Schema.Codec<unknown, unknown>, options.params)
    steps.push(slot("params", "Params", decode, (context) => Context.getUnsafe(context, HttpRouter.RouteContext).params))
  }
  if (endpoint.headers !== undefined) {
    const decode = RequestDecoder.make(endpoint.headers as Schema.Codec<unknown, unknown>, options.headers)
    steps.push(slot("headers", "Headers", decode, (context) => Context.getUnsafe(context, HttpServerRequest.HttpServerRequest).headers))
  }
  if (endpoint.query !== undefined) {
    const decode = RequestDecoder.make(Schema.toCodecArrayFromSingle(endpoint.query) as Schema.Codec<unknown, unknown>, options.query)
    steps.push(slot("query", "Query", decode, (context) => Context.getUnsafe(context, HttpServerRequest.ParsedSearchParams)))
  }
  if (endpoint.payload.size > 0) {
    if (endpoint.payload.size !== 1 || !HttpMethod.hasBody(endpoint.method)) return undefined
    const [[contentType, { encoding, schemas }]] = endpoint.payload
    if (encoding._tag !== "Json") return undefined
    const decode = RequestDecoder.make(Schema.Union(schemas as ReadonlyArray<Schema.Top>) as unknown as Schema.Codec<unknown, unknown>, options.payload)
    const nullOnEmpty = (schemas as ReadonlyArray<Schema.Top>).some((schema) => SchemaAST.isNull(SchemaAST.toEncoded(schema.ast)))
    steps.push((request, context) => {
      const httpRequest = Context.getUnsafe(context, HttpServerRequest.HttpServerRequest)
      const sent = mediaTypeOf(httpRequest.headers["content-type"])
      if (sent !== contentType) return Effect.succeed(HttpServerResponse.text(`Unsupported content-type: ${sent}`, { status: 415 }))
      return Effect.map(
        // The body as the idempotency middleware already parsed it, if it did: parsed once per request.
        HttpApiError.HttpApiSchemaError.wrap("Payload", Effect.flatMap(RequestBody.json(httpRequest), ({ parsed, text }) => {
          if (text === "") return decode(nullOnEmpty ? null : undefined)
          return parsed === undefined ? invalidJson() : decode(parsed.value)
        })),
        (payload) => {
          request["payload"] = payload
          return request
        }
      )
    })
  }
  return steps
}

/**
 * The route of one endpoint, compiled; `undefined` when the endpoint needs
 * what only `HttpApiBuilder` does (see the module's description).
 */
const compile = (
  api: Pick<HttpApi.Top, "annotations">,
  group: HttpApiGroup.Top,
  runtime: ApiHandlers.Registered,
  context: Context.Context<never>,
  respond: ((value: unknown) => Response) | undefined,
  authenticated: <E, R>(app: Effect.Effect<Response, E, R>) => Effect.Effect<Response, unknown, R>
): HttpRouter.Route<any, any> | undefined => {
  const { endpoint, handler } = runtime
  if (respond === undefined) return undefined
  const annotations = Context.merge(Context.merge(api.annotations, group.annotations), endpoint.annotations)
  const steps = decodersOf(endpoint, slotOptions(annotations))
  if (steps === undefined) return undefined
  const answer = (value: unknown): Response => HttpServerResponse.isHttpServerResponse(value) ? value : respond(value)
  const handle = (request: Record<string, unknown> | Response) =>
    HttpServerResponse.isHttpServerResponse(request) ? Effect.succeed(request) : Effect.map(handler(request), answer)
  let app: Effect.Effect<Response, unknown, unknown> = Effect.withFiber((fiber) => {
    const request: Record<string, unknown> = {
      request: Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest),
      endpoint,
      group
    }
    if (steps.length === 0) return handle(request)
    let decoded: Effect.Effect<Record<string, unknown> | Response, unknown> = steps[0](request, fiber.context)
    for (let i = 1; i < steps.length; i++) {
      const step = steps[i]
      decoded = Effect.flatMap(decoded, (sofar) => HttpServerResponse.isHttpServerResponse(sofar) ? Effect.succeed(sofar) : step(sofar, fiber.context))
    }
    return Effect.flatMap(decoded, handle)
  })
  // In the contract's order, innermost first, as HttpApiBuilder applies them.
  for (const key of endpoint.middlewares) {
    if (key === Contract.Authentication) {
      app = authenticated(app)
    } else if (HttpApiMiddleware.isSecurity(key as HttpApiMiddleware.AnyService)) {
      return undefined
    } else {
      app = (Context.getUnsafe(context, key as Context.Key<unknown, Wrap>))(app, { group, endpoint })
    }
  }
  const served = Effect.catch(Effect.withErrorReporting(app), answerFailure)
  return HttpRouter.route(
    endpoint.method,
    // The path as HttpApiBuilder registers it (its `:param` names are the contract's).
    endpoint.path as HttpRouter.PathInput,
    served as Effect.Effect<Response>,
    { uninterruptible: runtime.uninterruptible }
  )
}

/**
 * The route of an endpoint this module does not compile, as `HttpApiBuilder`
 * serves it (`HttpApiBuilder.endpoint`: decoding, middleware, encoding
 * through the endpoint's schemas, the building context provided per request).
 */
const generic = (api: HttpApi.HttpApi<string, any>, group: HttpApiGroup.Top, runtime: ApiHandlers.Registered) =>
  Effect.map(
    (HttpApiBuilder.endpoint as (...args: ReadonlyArray<unknown>) => Effect.Effect<Effect.Effect<Response>>)(api, group.identifier, runtime.endpoint.identifier, runtime.handler),
    (served) => HttpRouter.route(runtime.endpoint.method, runtime.endpoint.path as HttpRouter.PathInput, served, { uninterruptible: runtime.uninterruptible })
  )

/**
 * Registers every endpoint of `api` on the `HttpRouter`, compiled where it
 * can be, else as `HttpApiBuilder` builds it. Needs the groups' layers
 * (`ApiHandlers.group`) and the contract's middleware implementations.
 */
export const layer = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>) =>
  HttpRouter.use(Effect.fnUntraced(function*(router) {
    const context = yield* Effect.context<never>()
    const { principalOf } = yield* principalResolver
    const authenticated = <E, R>(app: Effect.Effect<Response, E, R>): Effect.Effect<Response, unknown, R> =>
      Effect.withFiber((fiber) =>
        Effect.matchEffect(
          principalOf(
            Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest),
            Context.getOrUndefined(fiber.context, ResolvedCaller)
          ),
          {
            onFailure: (error) => Effect.fail(toProblem(error)),
            onSuccess: (principal) => Effect.provideService(app, Principal.CurrentPrincipal, principal)
          }
        )
      )
    const json = JsonResponse.responders(api)
    const empties = emptySuccesses(api)
    const routes: Array<HttpRouter.Route<any, any>> = []
    for (const group of Object.values(api.groups) as ReadonlyArray<HttpApiGroup.Top>) {
      const registered = Context.getOrUndefined(context, ApiHandlers.keyOf(group.identifier))
      if (registered === undefined) {
        return yield* Effect.die(new Error(`HttpApiGroup "${group.identifier}" not found: provide ApiHandlers.group(api, "${group.identifier}", ...)`))
      }
      for (const runtime of registered) {
        const respond = json.get(runtime.endpoint) ?? (empties.has(runtime.endpoint) ? () => empties.get(runtime.endpoint)! : undefined)
        routes.push(compile(api, group, runtime, context, respond, authenticated) ?? (yield* generic(api, group, runtime)))
      }
    }
    yield* (router.addAll(routes) as Effect.Effect<void>)
  }))
