/**
 * The bare `node:http` peer's work, written the same way (routing, bearer
 * check, query and body validation, the pages and the idempotent create by
 * hand, `JSON.stringify`, the shared rate-limiter-flexible limiters), served
 * by Effect's own platform instead: a plain `HttpRouter` with two routes,
 * turned into a Node handler by `NodeHttpServer.makeHandler`, as
 * `App.nodeHandler` mounts ours. What it costs over `node:http` is what
 * serving through Effect's platform costs for this work: the floor under
 * ours, which serves through the same platform (docs/decisions/0008).
 */
import { NodeHttpServer } from "@effect/platform-node"
import { ByteSize, Effect, Option, Scope } from "effect"
import { HttpIncomingMessage, HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as Http from "node:http"
import {
  authenticate,
  canonicalQuery,
  createScope,
  createWorkspace,
  fingerprintOf,
  invalidKey,
  isProblem,
  listPage,
  makeIdempotencyStore,
  makeRateLimits,
  makeTenant,
  makeWorkspaces,
  parseLimit,
  type Problem,
  rateLimitClassOf,
  replayedHeader,
  serve,
  type StoredResponse,
  type TokenRecord,
  validateCreate,
  workspaceJson,
  workspacesPath
} from "./shared.ts"

type Response = HttpServerResponse.HttpServerResponse

const tenant = makeTenant()
const rows = makeWorkspaces(tenant.tenantId)
const idempotency = makeIdempotencyStore()
const rateLimits = makeRateLimits()
const maxBodySize = ByteSize.mebibytes(1)

const problem = ({ status, code, detail }: Problem, headers: Record<string, string>): Response =>
  HttpServerResponse.text(JSON.stringify({ type: "about:blank", status, code, detail }), {
    status,
    headers,
    contentType: "application/problem+json"
  })

const json = (status: number, body: string, headers: Record<string, string>): Response =>
  HttpServerResponse.text(body, { status, headers, contentType: "application/json" })

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
        (outcome) => problem(outcome.problem ?? { status: 401, code: "auth/unauthenticated", detail: "The bearer token is not valid" }, outcome.headers)
      )
    }
    return Effect.flatMap(
      Effect.promise(() => rateLimits.tenant(member.tenantId, rateLimitClassOf(request.method))),
      (outcome) => outcome.problem === undefined ? serveMember(request, member, outcome.headers) : Effect.succeed(problem(outcome.problem, outcome.headers))
    )
  })

const first = (value: string | ReadonlyArray<string> | undefined): string | null =>
  value === undefined ? null : typeof value === "string" ? value : value[0] ?? null

const list = guarded((_request, member, headers) =>
  Effect.flatMap(HttpServerRequest.ParsedSearchParams, (params) => {
    for (const name in params) {
      if (name !== "limit" && name !== "cursor") {
        return Effect.succeed(problem({ status: 400, code: "request/invalid", detail: `Unknown query parameter ${name}` }, headers))
      }
    }
    const limit = parseLimit(first(params["limit"]))
    if (limit === undefined) {
      return Effect.succeed(problem({ status: 400, code: "request/invalid", detail: "limit must be an integer from 1 to 500" }, headers))
    }
    const cursor = first(params["cursor"]) ?? undefined
    if (cursor !== undefined && cursor.length === 0) {
      return Effect.succeed(problem({ status: 400, code: "request/invalid", detail: "cursor must not be empty" }, headers))
    }
    const query = canonicalQuery(Object.fromEntries(Object.entries(params).map(([name, value]) => [name, first(value)])))
    return Effect.map(
      Effect.promise(() => listPage(rows, limit, query, member.tenantId, cursor)),
      (page) => isProblem(page) ? problem(page, headers) : json(200, JSON.stringify(page), headers)
    )
  })
)

const create = guarded((request, member, headers) => {
  const key = request.headers["idempotency-key"]
  const text = Effect.provideService(request.text, HttpIncomingMessage.MaxBodySize, maxBodySize)
  return Effect.match(text, {
    onFailure: () => problem({ status: 413, code: "request/too-large", detail: "The body is too large" }, headers),
    onSuccess: (text) => {
      // The order of the service: the key, then the body, then the key's record, then the handler (its 403 kept for replay).
      if (key !== undefined) {
        const refused = invalidKey(key)
        if (refused !== undefined) return problem(refused, headers)
      }
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        return problem({ status: 400, code: "request/malformed-json", detail: "The request body is not valid JSON" }, headers)
      }
      const input = validateCreate(body)
      if (isProblem(input)) return problem(input, headers)
      const handle = (): StoredResponse =>
        member.roles.includes("admin")
          ? { status: 201, headers: {}, body: JSON.stringify(workspaceJson(createWorkspace(rows, member.tenantId, input))) }
          : { status: 403, headers: {}, body: JSON.stringify({ type: "about:blank", status: 403, code: "auth/forbidden" }) }
      const send = (stored: StoredResponse, replayed: boolean): Response => {
        const all = replayed ? { ...headers, ...stored.headers, [replayedHeader]: "true" } : { ...headers, ...stored.headers }
        return stored.status < 400
          ? json(stored.status, stored.body, all)
          : HttpServerResponse.text(stored.body, { status: stored.status, headers: all, contentType: "application/problem+json" })
      }
      if (key === undefined) return send(handle(), false)
      const decision = idempotency.begin(member.tenantId, createScope, key, fingerprintOf(body))
      if (decision._tag === "Refuse") return problem(decision.problem, headers)
      if (decision._tag === "Replay") return send(decision.response, true)
      const answer = handle()
      idempotency.complete(decision.reservation, answer)
      return send(answer, false)
    }
  })
})

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
