/**
 * The bare `node:http` peer's work, with the same functions of `shared.ts`
 * (the bearer check, the shared rate-limiter-flexible limiters, `listQuery`,
 * `listPage`, `answerCreate`, `JSON.stringify`), served by Effect's own
 * platform instead: a plain `HttpRouter` with two routes, turned into a Node
 * handler by `NodeHttpServer.makeHandler`, as `App.nodeHandler` mounts ours.
 * What it costs over `node:http` is what serving through Effect's platform
 * costs for this work: the floor under ours, which serves through the same
 * platform (docs/decisions/0008).
 */
import { NodeHttpServer } from "@effect/platform-node"
import { ByteSize, Effect, Option, Scope } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Http from "node:http"
import {
  answerCreate,
  authenticate,
  isProblem,
  listPage,
  listQuery,
  makePeer,
  maxBodyBytes,
  type Problem,
  rateLimitClassOf,
  serve,
  type TokenRecord,
  tooLarge,
  unauthenticated,
  workspacesPath,
  type Written,
  writtenPage,
  writtenProblem
} from "./shared.ts"

type Response = HttpServerResponse.HttpServerResponse

const { tenant, rows, idempotency, rateLimits } = makePeer()
const maxBodySize = ByteSize.bytes(maxBodyBytes)

/** `written` as Effect's response, with the limit headers. */
const respond = ({ status, headers, body, contentType }: Written, limitHeaders: Record<string, string>): Response =>
  HttpServerResponse.text(body, { status, headers: { ...limitHeaders, ...headers }, contentType })

const problem = (refused: Problem, limitHeaders: Record<string, string>): Response => respond(writtenProblem(refused), limitHeaders)

/**
 * The bearer token, then the tenant's limits in the request's class; without
 * a valid token, the request counted per client address, then 401 (or 429).
 * Every answer carries the limit headers.
 */
const guarded = <R>(
  serveMember: (request: HttpServerRequest.HttpServerRequest, member: TokenRecord, headers: Record<string, string>) => Effect.Effect<Response, never, R>
) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
    const member = authenticate(tenant.tokens, request.headers["authorization"])
    if (member === undefined) {
      return Effect.map(
        Effect.promise(() => rateLimits.client(Option.getOrUndefined(request.remoteAddress))),
        (outcome) => problem(outcome.problem ?? unauthenticated, outcome.headers)
      )
    }
    return Effect.flatMap(
      Effect.promise(() => rateLimits.tenant(member.tenantId, rateLimitClassOf(request.method))),
      (outcome) => outcome.problem === undefined ? serveMember(request, member, outcome.headers) : Effect.succeed(problem(outcome.problem, outcome.headers))
    )
  })

/** The first of a repeated parameter, as `URLSearchParams.get` reads it. */
const first = (value: string | ReadonlyArray<string>): string => typeof value === "string" ? value : value[0] ?? ""

const list = guarded((_request, member, headers) =>
  Effect.flatMap(HttpServerRequest.ParsedSearchParams, (params) => {
    const checked = listQuery(Object.fromEntries(Object.entries(params).map(([name, value]) => [name, first(value)])))
    if (isProblem(checked)) return Effect.succeed(problem(checked, headers))
    return Effect.map(
      Effect.promise(() => listPage(rows, checked.limit, checked.query, member.tenantId, checked.cursor)),
      (page) => respond(writtenPage(page), headers)
    )
  })
)

const create = guarded((request, member, headers) =>
  Effect.match(Effect.provideService(request.text, HttpIncomingMessage.MaxBodySize, maxBodySize), {
    onFailure: () => problem(tooLarge, headers),
    onSuccess: (text) => respond(answerCreate(rows, idempotency, member, request.headers["idempotency-key"], text), headers)
  })
)

const routes = HttpRouter.addAll([
  HttpRouter.route("GET", workspacesPath, list),
  HttpRouter.route("POST", workspacesPath, create)
])

const scope = Effect.runSync(Scope.make())
const handler = await Effect.runPromise(
  Effect.gen(function*() {
    const httpEffect = yield* HttpRouter.toHttpEffect(routes)
    return yield* NodeHttpServer.makeHandler(httpEffect, { scope })
  }).pipe(Scope.provide(scope))
)

await serve("effect", Http.createServer(handler), () => Promise.resolve(tenant.token))
