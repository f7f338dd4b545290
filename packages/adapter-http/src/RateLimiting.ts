/**
 * Rate limiting at the HTTP edge (spec 8.1): every request of an
 * authenticated tenant is counted against its plan in the class its
 * endpoint declares, refused with a 429 problem when either layer is
 * exhausted, and every response it gets carries the limit headers.
 *
 * @since 0.1.0
 */
import { Caller, RateLimit, RateLimitStore, type Tenant } from "@analytics/core"
import { Clock, Context, Effect, Redacted } from "effect"
import { FindMyWay, type HttpMethod, HttpServerRequest, HttpServerResponse, ProblemDetails } from "effect/http"
import { HttpApi, HttpApiBuilder, type HttpApiGroup, HttpApiSecurity } from "effect/http-api"
import { undeclared } from "./Problems.ts"
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

/**
 * The headers of spec 8.1, and the IETF draft's `RateLimit-Policy` and
 * `RateLimit` (draft-ietf-httpapi-ratelimit-headers) naming the two layers.
 */
export const headers = (decision: RateLimit.Decision, limits: RateLimit.Limits, now: number): Record<string, string> => {
  const { burst, sustained } = decision
  return {
    "x-ratelimit-limit-burst": String(burst.limit),
    "x-ratelimit-remaining-burst": String(burst.remaining),
    "x-ratelimit-reset-burst": iso(burst.resetAt),
    "x-ratelimit-limit-sustained": String(sustained.limit),
    "x-ratelimit-remaining-sustained": String(sustained.remaining),
    "x-ratelimit-reset-sustained": iso(sustained.resetAt),
    "ratelimit-policy": `"burst";q=${burst.limit};w=${Math.round(limits.burst.fillMillis / 1000)}, ` +
      `"sustained";q=${sustained.limit};w=${Math.round(limits.sustained.windowMillis / 1000)}`,
    "ratelimit": `"burst";r=${burst.remaining};t=${secondsUntil(burst.resetAt, now)}, ` +
      `"sustained";r=${sustained.remaining};t=${secondsUntil(sustained.resetAt, now)}`
  }
}

/** The 429 problem for a refused request, with `Retry-After`. */
export const tooManyRequests = (
  decision: RateLimit.Decision,
  limits: RateLimit.Limits,
  now: number
): HttpServerResponse.HttpServerResponse => {
  const sustained = decision.refusedBy === "sustained"
  const body = undeclared(
    sustained ? "rate-limit/sustained-exceeded" : "rate-limit/burst-exceeded",
    sustained
      ? `The hourly limit of ${decision.sustained.limit} requests of this class is reached`
      : `The burst limit of ${decision.burst.limit} requests per minute of this class is reached`,
    { retry_after: decision.retryAfterSeconds }
  )
  return HttpServerResponse.jsonUnsafe(body, {
    status: 429,
    contentType: ProblemDetails.contentType,
    headers: { ...headers(decision, limits, now), "retry-after": String(decision.retryAfterSeconds) }
  })
}

/** The bearer credential as the Authentication middleware reads it (only the `Authorization` header, whatever the declared type says). */
const bearer = HttpApiBuilder.securityDecode(HttpApiSecurity.bearer) as Effect.Effect<
  Redacted.Redacted<string>,
  never,
  HttpServerRequest.HttpServerRequest
>

/**
 * Wraps an HTTP app with the rate limits of `api`'s routes. Requests without
 * a valid tenant credential (anonymous, the operator, unknown tokens) are not
 * counted: authentication answers them.
 */
export const middleware = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  // By default, the tenant's plan's (spec 8.1).
  limitsOf: (tenant: Tenant.Tenant) => RateLimit.Limits = (tenant) => RateLimit.limitsOf(tenant.plan)
) =>
  Effect.gen(function*() {
    const classOf = classifier(api)
    const resolve = yield* Caller.resolver
    const store = yield* RateLimitStore.RateLimitStore
    // While the shared store is unreachable, each process limits on its own rather than failing every request.
    const fallback = RateLimitStore.makeMemory()
    const consume = (key: string, now: number, limits: RateLimit.Limits) =>
      store.consume(key, now, limits).pipe(
        Effect.catchTag("StoreError", (error) =>
          Effect.andThen(
            Effect.logWarning("Rate-limit store unreachable; limiting in this process", error),
            Effect.orDie(fallback.consume(key, now, limits))
          ))
      )
    /** The tenant a request is counted for, if it carries a valid member credential. */
    const tenantOf = Effect.flatMap(bearer, (credential) =>
      Redacted.value(credential) === ""
        ? Effect.undefined
        : resolve(credential).pipe(
          Effect.map((caller) => caller.tenant),
          // An unknown token or a failed lookup: authentication answers it, uncounted.
          Effect.orElseSucceed(() => undefined)
        ))
    return <E, R>(
      httpApp: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function*() {
        const tenant = yield* tenantOf
        if (tenant === undefined) return yield* httpApp
        const request = yield* HttpServerRequest.HttpServerRequest
        const endpointClass = classOf(request.method, pathOf(request.url))
        const now = yield* Clock.currentTimeMillis
        const limits = limitsOf(tenant)
        const decision = yield* consume(RateLimit.key(tenant.tenant_id, endpointClass), now, limits)
        if (!decision.allowed) return tooManyRequests(decision, limits, now)
        const response = yield* httpApp
        return HttpServerResponse.setHeaders(response, headers(decision, limits, now))
      })
  })
