/**
 * Rate limiting at the HTTP edge (spec 8.1): every request of an
 * authenticated tenant is counted against its plan in the class its
 * endpoint declares, refused with a 429 problem when either layer is
 * exhausted, and every response it gets carries the limit headers.
 *
 * @since 0.1.0
 */
import { Caller, Limiter, Metrics, Plan, RateLimit, type Tenant } from "@analytics/core"
import { Clock, Context, Effect, Redacted } from "effect"
import { FindMyWay, type HttpMethod, HttpServerRequest, HttpServerResponse, ProblemDetails } from "effect/http"
import { HttpApi, HttpApiBuilder, type HttpApiGroup, HttpApiSecurity } from "effect/http-api"
import { undeclared } from "./Problems.ts"
import { ResolvedCaller } from "./ResolvedCaller.ts"
import { pathOf } from "./Url.ts"

/**
 * The endpoint class an endpoint is counted in: every endpoint of the API
 * declares one (`.annotate(RateLimitClass, "read")`); `classifier` refuses an
 * API where one does not.
 */
export class RateLimitClass extends Context.Service<RateLimitClass, RateLimit.EndpointClass>()(
  "@analytics/adapter-http/RateLimitClass"
) {}

/**
 * The class of each route of `api`. A request that matches no route is
 * counted as `read` for GET and HEAD, as `write` otherwise. Throws when an
 * endpoint declares no class.
 */
export const classifier = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>
): (method: string, path: string) => RateLimit.EndpointClass => {
  const router = FindMyWay.make<RateLimit.EndpointClass>({ ignoreTrailingSlash: true })
  const missing: Array<string> = []
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      const endpointClass = Context.getOrUndefined(mergedAnnotations, RateLimitClass)
      if (endpointClass === undefined) missing.push(`${endpoint.method} ${endpoint.path}`)
      else router.on(endpoint.method, endpoint.path as FindMyWay.PathInput, endpointClass)
    }
  })
  if (missing.length > 0) throw new Error(`Endpoints without a RateLimitClass: ${missing.join(", ")}`)
  return (method, path) =>
    router.find(method as HttpMethod.HttpMethod, path)?.handler ??
      (method === "GET" || method === "HEAD" ? "read" : "write")
}

const iso = (epochMillis: number): string => new Date(epochMillis).toISOString()
const secondsUntil = (epochMillis: number, now: number): number => Math.max(0, Math.ceil((epochMillis - now) / 1000))
const capitalized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1)
const periodSeconds = (rule: RateLimit.Rule) =>
  Math.round((rule._tag === "Bucket" ? rule.fillMillis : rule.windowMillis) / 1000)

/**
 * The headers of spec 8.1 (`X-RateLimit-Limit-Burst`... for the quotas
 * named `burst` and `sustained`), and the IETF draft's `RateLimit-Policy`
 * and `RateLimit` (draft-ietf-httpapi-ratelimit-headers) naming each quota.
 */
export const headers = (
  quotas: ReadonlyArray<RateLimit.Quota>,
  decision: RateLimit.Decision,
  now: number
): Record<string, string> => {
  const result: Record<string, string> = {}
  const policies: Array<string> = []
  const states: Array<string> = []
  quotas.forEach((quota, i) => {
    const status = decision.statuses[i]
    const name = capitalized(quota.name)
    result[`x-ratelimit-limit-${name}`] = String(status.limit)
    result[`x-ratelimit-remaining-${name}`] = String(status.remaining)
    result[`x-ratelimit-reset-${name}`] = iso(status.resetAt)
    policies.push(`"${quota.name}";q=${status.limit};w=${periodSeconds(quota.rule)}`)
    states.push(`"${quota.name}";r=${status.remaining};t=${secondsUntil(status.resetAt, now)}`)
  })
  result["ratelimit-policy"] = policies.join(", ")
  result["ratelimit"] = states.join(", ")
  return result
}

/** The 429 problem for a request refused by its tenant's limits, with `Retry-After`. */
export const tooManyRequests = (
  quotas: ReadonlyArray<RateLimit.Quota>,
  decision: RateLimit.Decision,
  now: number
): HttpServerResponse.HttpServerResponse => {
  const refused = decision.statuses[quotas.findIndex((quota) => quota.name === decision.refusedBy)]
  const sustained = decision.refusedBy === "sustained"
  const body = undeclared(
    sustained ? "rate-limit/sustained-exceeded" : "rate-limit/burst-exceeded",
    sustained
      ? `The hourly limit of ${refused.limit} requests of this class is reached`
      : `The burst limit of ${refused.limit} requests per minute of this class is reached`,
    { retry_after: decision.retryAfterSeconds }
  )
  return HttpServerResponse.jsonUnsafe(body, {
    status: 429,
    contentType: ProblemDetails.contentType,
    headers: { ...headers(quotas, decision, now), "retry-after": String(decision.retryAfterSeconds) }
  })
}

/** The bearer credential as the Authentication middleware reads it (only the `Authorization` header, whatever the declared type says). */
const bearer = HttpApiBuilder.securityDecode(HttpApiSecurity.bearer) as Effect.Effect<
  Redacted.Redacted<string>,
  never,
  HttpServerRequest.HttpServerRequest
>

/**
 * A 429 problem answered by a per-operation limit carries `retry_after` in
 * its body (handlers answer through the contract, which sets no headers);
 * this copies it into `Retry-After`, and counts the refusal by its code.
 */
const withRetryAfter = (
  response: HttpServerResponse.HttpServerResponse,
  endpointClass: () => string
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  if (response.status !== 429 || response.headers["retry-after"] !== undefined || response.body._tag !== "Uint8Array") {
    return Effect.succeed(response)
  }
  try {
    const { code, retry_after } = JSON.parse(new TextDecoder().decode(response.body.body)) as { code?: unknown; retry_after?: unknown }
    const counted = Metrics.rateLimitRejected(endpointClass(), typeof code === "string" ? code : "unknown")
    return Effect.as(
      counted,
      typeof retry_after === "number" ? HttpServerResponse.setHeader(response, "retry-after", String(retry_after)) : response
    )
  } catch {
    return Effect.succeed(response)
  }
}

/**
 * Wraps an HTTP app with the rate limits of `api`'s routes. Requests without
 * a valid tenant credential (anonymous, the operator, unknown tokens) are not
 * counted: authentication answers them.
 */
export const middleware = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  // By default, the tenant's plan's, or its negotiated ones on Custom (spec 8.1).
  limitsOf: (tenant: Tenant.Tenant) => RateLimit.Limits = (tenant) =>
    RateLimit.limitsOf(Plan.limitsFor(tenant.plan, tenant.limits))
) =>
  Effect.gen(function*() {
    const classOf = classifier(api)
    const resolve = yield* Caller.resolver
    const limiter = yield* Limiter.Limiter
    const quotasOf = RateLimit.makeTenantQuotas()
    /** Who a request's credential names, if it is a valid one. */
    const callerOf = Effect.flatMap(bearer, (credential) => {
      const value = Redacted.value(credential)
      return value === ""
        ? Effect.undefined
        : resolve(credential).pipe(
          Effect.map((caller) => ({ credential: value, caller })),
          // An unknown token or a failed lookup: authentication answers it, uncounted.
          Effect.orElseSucceed(() => undefined)
        )
    })
    return <E, R>(
      httpApp: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function*() {
        const resolved = yield* callerOf
        const tenant = resolved?.caller.tenant
        const request = yield* HttpServerRequest.HttpServerRequest
        const endpointClass = () => classOf(request.method, pathOf(request.url))
        if (resolved === undefined) return yield* withRetryAfter(yield* httpApp, endpointClass)
        // The operator, or a token of a tenant since deleted: no tenant's quota to count, the routes still see who it is.
        if (tenant === undefined) return yield* withRetryAfter(yield* Effect.provideService(httpApp, ResolvedCaller, resolved), endpointClass)
        const quotas = quotasOf(tenant.tenant_id, endpointClass(), limitsOf(tenant))
        const decision = yield* limiter.decide(quotas)
        const now = yield* Clock.currentTimeMillis
        if (!decision.allowed) {
          const refused = tooManyRequests(quotas, decision, now)
          yield* Metrics.rateLimitRejected(endpointClass(), decision.refusedBy === "sustained" ? "rate-limit/sustained-exceeded" : "rate-limit/burst-exceeded")
          return refused
        }
        const response = yield* withRetryAfter(yield* Effect.provideService(httpApp, ResolvedCaller, resolved), endpointClass)
        return HttpServerResponse.setHeaders(response, headers(quotas, decision, now))
      })
  })
