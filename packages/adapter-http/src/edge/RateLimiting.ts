/**
 * Rate limiting at the HTTP edge (decision 0009): every request
 * of an authenticated tenant (by bearer token or console session,
 * `RequestCaller`) is counted against its plan in the class its
 * endpoint declares, the operator's against a quota of its own, and every
 * other `/v1` request (no credential, an unknown one) against its client
 * address's; a request is refused with a 429 problem when either layer is
 * exhausted, and every response of a counted request carries the limit
 * headers, 401s included.
 *
 * @since 0.1.0
 */
import { Problems, RateLimitClass, RateLimitHeaders } from "@analytics/api"
import { Limiter, Metrics, Plan, RateLimit, type Tenant } from "@analytics/core"
import { Clock, Context, Effect, Option } from "effect"
import { FindMyWay, type HttpMethod, type HttpServerRequest, HttpServerResponse, ProblemDetails } from "effect/http"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import * as IsoTime from "./IsoTime.ts"
import { problemResponse } from "./LastLineProblems.ts"
import * as RequestCaller from "./RequestCaller.ts"
import { pathOf } from "./Url.ts"

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

const secondsUntil = (epochMillis: number, now: number): number => Math.max(0, Math.ceil((epochMillis - now) / 1000))
const periodSeconds = (rule: RateLimit.Rule) =>
  Math.round((rule._tag === "Bucket" ? rule.fillMillis : rule.windowMillis) / 1000)

/** What a quota's headers repeat on every response: its header names, its limit as text and its policy. */
interface QuotaHeaders {
  readonly limit: number
  readonly limitText: string
  readonly limitName: string
  readonly remainingName: string
  readonly resetName: string
  readonly policy: string
}
const quotaHeaders = (quota: RateLimit.Quota, limit: number): QuotaHeaders => {
  // Lower case, as every other header: Node writes a name as given to `writeHead`, and the platform's writer lower-cases.
  const names = RateLimitHeaders.quotaHeaderNames(quota.name)
  return {
    limit,
    limitText: String(limit),
    limitName: names.limit,
    remainingName: names.remaining,
    resetName: names.reset,
    policy: `"${quota.name}";q=${limit};w=${periodSeconds(quota.rule)}`
  }
}

/** The prepared headers of a set of quotas (kept per tenant and class by `makeTenantQuotas`), and their policies joined. */
interface QuotasHeaders {
  readonly quotas: ReadonlyArray<QuotaHeaders>
  readonly policy: string
}
const prepared = new WeakMap<ReadonlyArray<RateLimit.Quota>, QuotasHeaders>()
const preparedFor = (quotas: ReadonlyArray<RateLimit.Quota>, decision: RateLimit.Decision): QuotasHeaders => {
  const known = prepared.get(quotas)
  if (known !== undefined && known.quotas.every((q, i) => q.limit === decision.statuses[i].limit)) return known
  const each = quotas.map((quota, i) => quotaHeaders(quota, decision.statuses[i].limit))
  const made = { quotas: each, policy: each.map((q) => q.policy).join(", ") }
  prepared.set(quotas, made)
  return made
}

/**
 * The headers of decision 0009 (`x-ratelimit-limit-burst`..., lower case on every path, for the quotas
 * named `burst` and `sustained`), and the IETF draft's `RateLimit-Policy`
 * and `RateLimit` (draft-ietf-httpapi-ratelimit-headers) naming each quota.
 * Names, limits and policies are prepared once per set of quotas: only the
 * counts and times are written per response.
 */
export const headers = (
  quotas: ReadonlyArray<RateLimit.Quota>,
  decision: RateLimit.Decision,
  now: number
): Record<string, string> => {
  const ready = preparedFor(quotas, decision)
  const result: Record<string, string> = {}
  let states = ""
  for (let i = 0; i < quotas.length; i++) {
    const status = decision.statuses[i]
    const names = ready.quotas[i]
    result[names.limitName] = names.limitText
    result[names.remainingName] = String(status.remaining)
    result[names.resetName] = IsoTime.format(status.resetAt)
    states += `${i === 0 ? "" : ", "}"${quotas[i].name}";r=${status.remaining};t=${secondsUntil(status.resetAt, now)}`
  }
  result[RateLimitHeaders.policyHeader] = ready.policy
  result[RateLimitHeaders.stateHeader] = states
  return result
}

/** The 429 problem for a request refused by its limits (`counted`: what they count, e.g. "of this class"), with `Retry-After`. */
export const tooManyRequests = (
  quotas: ReadonlyArray<RateLimit.Quota>,
  decision: RateLimit.Decision,
  now: number,
  counted = "of this class"
): HttpServerResponse.HttpServerResponse => {
  const refused = decision.statuses[quotas.findIndex((quota) => quota.name === decision.refusedBy)]
  const sustained = decision.refusedBy === "sustained"
  const body = Problems.undeclared(
    sustained ? "rate-limit/sustained-exceeded" : "rate-limit/burst-exceeded",
    sustained
      ? `The hourly limit of ${refused.limit} requests ${counted} is reached`
      : `The burst limit of ${refused.limit} requests per minute ${counted} is reached`,
    { retry_after: decision.retryAfterSeconds }
  )
  return HttpServerResponse.jsonUnsafe(body, {
    status: 429,
    contentType: ProblemDetails.contentType,
    headers: { ...headers(quotas, decision, now), [RateLimitHeaders.retryAfterHeader]: String(decision.retryAfterSeconds) }
  })
}

/** Whether `withRetryAfter` has anything to do: a handler's 429 problem without `Retry-After` (checked per response on the hot path). */
export const lacksRetryAfter = (response: HttpServerResponse.HttpServerResponse): boolean =>
  response.status === 429 && response.headers["retry-after"] === undefined && response.body._tag === "Uint8Array"

/**
 * A 429 problem answered by a per-operation limit carries `retry_after` in
 * its body (handlers answer through the contract, which sets no headers);
 * this copies it into `Retry-After`, and counts the refusal by its code.
 */
export const withRetryAfter = (
  response: HttpServerResponse.HttpServerResponse,
  endpointClass: string
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  // The second test repeats one of the first's, for the type checker to narrow the body.
  if (!lacksRetryAfter(response) || response.body._tag !== "Uint8Array") return Effect.succeed(response)
  try {
    const { code, retry_after } = JSON.parse(new TextDecoder().decode(response.body.body)) as { code?: unknown; retry_after?: unknown }
    const counted = Metrics.rateLimitRejected(endpointClass, typeof code === "string" ? code : "unknown")
    return Effect.as(
      counted,
      typeof retry_after === "number" ? HttpServerResponse.setHeader(response, "retry-after", String(retry_after)) : response
    )
  } catch {
    return Effect.succeed(response)
  }
}

/**
 * The limits of requests no tenant is counted for (decision 0009): those
 * of `/v1` without a valid credential, per client address (all classes
 * together), and the operator's. By default the Starter plan's numbers for
 * a client address (60 a minute, 2 000 an hour: ample for the few
 * anonymous operations, and a token guesser gets at most 2 000 tries an
 * hour from an address), and the Scale plan's for the operator (one
 * caller acting for every tenant).
 */
export interface EdgeLimits {
  readonly anonymous?: RateLimit.Limits | undefined
  readonly operator?: RateLimit.Limits | undefined
}

/** The default limits of requests no tenant is counted for. */
export const edgeLimits = {
  anonymous: RateLimit.limitsOf("starter"),
  operator: RateLimit.limitsOf("scale")
} as const

/**
 * Whether a path is the API's (`/v1` and below), the console's sign-in
 * (`/api/session…`) or SCIM's (`/scim/…`): those, and requests no route
 * matches, are counted without a credential.
 */
const isApiPath = RateLimitHeaders.isCountedPath

/** The `burst` and `sustained` quotas of one key (the tenants' are `RateLimit.tenantQuotas`). */
const quotasUnder = (key: string, limits: RateLimit.Limits): ReadonlyArray<RateLimit.Quota> => [
  { name: "burst", key: `${key}:burst`, rule: limits.burst },
  { name: "sustained", key: `${key}:sustained`, rule: limits.sustained }
]

/** How one request is counted: its quotas, and what they count (the 429's wording). */
export interface Counted {
  readonly quotas: ReadonlyArray<RateLimit.Quota>
  readonly what: string
}

/**
 * Builds the rate limits of the edge. A tenant member's requests are
 * counted against the tenant's limits in their endpoint's class; the
 * operator's against its own, by class; `/v1`, SCIM and unmatched requests
 * without a valid credential (none, an unknown token, a deleted tenant's)
 * against their client address's (the peer, or the first untrusted
 * `X-Forwarded-For` hop), whatever the class, before authentication
 * answers them. Requests whose route meters itself (`ownRateLimit`: shared
 * links and embeds, by their views per address, with their own headers)
 * are not counted here, whoever sends them, nor other anonymous ones
 * (`/healthz`, the console's page and assets).
 */
export const make = (
  // By default, the tenant's plan's, or its negotiated ones on Custom (decision 0009).
  limitsOf: (tenant: Tenant.Tenant) => RateLimit.Limits = (tenant) =>
    RateLimit.limitsOf(Plan.limitsFor(tenant.plan, tenant.limits)),
  limits: EdgeLimits = {},
  ownRateLimit: (path: string) => boolean = () => false
) =>
  Effect.gen(function*() {
    const limiter = yield* Limiter.Limiter
    const quotasOf = RateLimit.makeTenantQuotas()
    const anonymousLimits = limits.anonymous ?? edgeLimits.anonymous
    const operatorLimits = limits.operator ?? edgeLimits.operator
    // Kept per class: building key strings per request costs more than the decision (see makeTenantQuotas).
    const operatorQuotas = new Map<RateLimit.EndpointClass, ReadonlyArray<RateLimit.Quota>>(
      RateLimit.EndpointClass.literals.map((c) => [c, quotasUnder(`operator:${c}`, operatorLimits)])
    )
    return {
      /** The resolver of each request's caller (`undefined`: no valid credential). */
      callerOf: yield* RequestCaller.make,
      /** How a request of `endpointClass` by `resolved` (to a route, or `unmatched`) is counted; `undefined` when it is not. */
      countedAs: (
        endpointClass: RateLimit.EndpointClass,
        resolved: RequestCaller.Resolution | undefined,
        request: HttpServerRequest.HttpServerRequest,
        unmatched = false
      ): Counted | undefined => {
        if (!unmatched && ownRateLimit(pathOf(request.url))) return undefined
        const tenant = resolved?.caller.tenant
        if (tenant !== undefined) return { quotas: quotasOf(tenant.tenant_id, endpointClass, limitsOf(tenant)), what: "of this class" }
        if (resolved?.caller.principal._tag === "Operator") return { quotas: operatorQuotas.get(endpointClass)!, what: "of this class" }
        // Probing paths no route serves is not free either (an unauthenticated 404 carries the headers).
        if (!unmatched && !isApiPath(pathOf(request.url))) return undefined
        // No credential, an unknown one, or a tenant since deleted: the client address's quota.
        const address = Option.getOrElse(request.remoteAddress, () => "unknown")
        return { quotas: quotasUnder(`client:${address}`, anonymousLimits), what: "without a valid credential from this address" }
      },
      /** An in-process store's decision at `now`, in this step (decision 0008); `undefined` from a shared store. */
      decideNow: limiter.decideNow,
      /** A shared store's decision, with the instant it was made at: the headers count from then. */
      decide: (quotas: ReadonlyArray<RateLimit.Quota>) => Effect.zip(limiter.decide(quotas), Clock.currentTimeMillis),
      /** The answer to a request whose caller could not be resolved because a store did not answer. */
      unavailable: () => problemResponse("service/unavailable", "The store is unavailable; retry later")
    }
  })

/** The 429 of a request its limits refused, counted by its code. */
export const refused = (endpointClass: RateLimit.EndpointClass, counted: Counted, decision: RateLimit.Decision, now: number) =>
  Effect.as(
    Metrics.rateLimitRejected(endpointClass, decision.refusedBy === "sustained" ? "rate-limit/sustained-exceeded" : "rate-limit/burst-exceeded"),
    tooManyRequests(counted.quotas, decision, now, counted.what)
  )
