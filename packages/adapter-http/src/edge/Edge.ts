/**
 * The edge every route runs behind, in one step per request: its id and
 * metrics (`RequestObservability`), the client address from trusted
 * proxies, its caller (bearer token or session cookie, `RequestCaller`) and
 * rate limits (and their headers on whatever answers), the CSRF check of
 * cookie-authenticated changes (`Csrf`), the body cap and the JSON body's
 * read, then problem+json for every error (`LastLineProblems`).
 *
 * It is route middleware, not a wrapper of the whole router: what depends
 * on the route (its template for the metrics, its rate-limit class) is
 * resolved once per route, from the route the router matched, instead of
 * being looked up again on every request (docs/decisions/0008). A request
 * no route matches goes through the same edge under the `unmatched` label.
 *
 * @since 0.1.0
 */
import type { RateLimit, Tenant } from "@analytics/core"
import { Cause, Clock, Context, Effect, Layer, Option } from "effect"
import { HttpEffect, HttpMiddleware, HttpRouter, HttpServerError, HttpServerRequest, type HttpServerResponse } from "effect/http"
import type { HttpApi, HttpApiGroup } from "effect/http-api"
import { IpNetwork } from "effect/net"
import { ServiceInfo } from "../ServiceInfo.ts"
import * as Csrf from "./Csrf.ts"
import * as LastLineProblems from "./LastLineProblems.ts"
import * as NodeWriter from "./NodeWriter.ts"
import * as RateLimiting from "./RateLimiting.ts"
import type * as RequestCaller from "./RequestCaller.ts"
import * as RequestObservability from "./RequestObservability.ts"
import { ResolvedCaller } from "./ResolvedCaller.ts"

/** How the edge treats requests. */
export interface Options {
  /** A tenant's rate limits; by default its plan's (decision 0009). */
  readonly rateLimits?: ((tenant: Tenant.Tenant) => RateLimit.Limits) | undefined
  /**
   * The limits of `/v1` requests without a valid credential, per client
   * address, and of the operator's; by default `RateLimiting.edgeLimits`
   * (decision 0009).
   */
  readonly edgeRateLimits?: RateLimiting.EdgeLimits | undefined
  /**
   * The networks of the proxies in front of the service (CIDRs such as
   * `10.0.0.0/8`): only requests from them have their `X-Forwarded-For`
   * believed, and the client address (which per-IP limits count) is the
   * first untrusted one from the right. None by default: the peer is the client.
   */
  readonly trustedProxies?: ReadonlyArray<string> | undefined
}

/** What the edge needs from its context. */
type Requirements = Effect.Services<ReturnType<typeof make>> | HttpRouter.HttpRouter

type Response = HttpServerResponse.HttpServerResponse
type App = Effect.Effect<Response, unknown, HttpServerRequest.HttpServerRequest>

/** A counted request's decision, and the instant its limit headers are written for. */
interface Decided {
  readonly counted: RateLimiting.Counted
  readonly decision: RateLimit.Decision
  readonly now: number
}

const isRouteNotFound = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some((reason) =>
    reason._tag === "Fail" && reason.error instanceof HttpServerError.HttpServerError &&
    reason.error.reason._tag === "RouteNotFound"
  )

/** The edge's parts, made once when the app is built: the edge of a route, by its template and class. */
const make = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  options: Options,
  extraRoutes: ReadonlyArray<readonly [method: string, path: string]>,
  ownBodyLimit: ((method: string, url: string) => boolean) | undefined,
  sharePages: ((url: string) => boolean) | undefined
) =>
  Effect.gen(function*() {
    const limits = yield* RateLimiting.make(options.rateLimits, options.edgeRateLimits, sharePages)
    // An app without the service's description (tests, an embedding app's own API) serves no sessions: no origin to check.
    const csrfRefusal = Csrf.checker(
      Option.match(yield* Effect.serviceOption(ServiceInfo), { onNone: () => undefined, onSome: (info) => info.publicBaseUrl }),
      sharePages
    )
    const lastLine = LastLineProblems.make(api, extraRoutes, ownBodyLimit)
    const classOf = RateLimiting.classifier(api)
    const trustedProxies = (options.trustedProxies ?? []).map(IpNetwork.fromStringUnsafe)
    const forwarded: (app: App) => App = trustedProxies.length === 0
      ? (app) => app
      : HttpMiddleware.xForwardedHeaders({ trustedProxies }) as (app: App) => App

    /**
     * One request through the edge, in one step where it can: observed,
     * its caller resolved, counted and decided (an in-process store decides
     * synchronously), checked (CSRF, the body cap, a NUL in the URL), then
     * the route, whose failures become problems; its answer is written
     * with the limit headers and the request id by `NodeWriter`, the last
     * step before the platform's writer.
     */
    const edgeOf = (template: string, endpointClass: RateLimit.EndpointClass) => {
      // A request no route matched is counted even without a credential, whatever its path.
      const unmatched = template === RequestObservability.unmatched
      return (app: App): App =>
      forwarded(Effect.withFiber((fiber) => {
        const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
        const observed = RequestObservability.observe(template, request)
        /** The answer, counted; finished with the request id and `headers` (the limits') by `NodeWriter`. */
        const answered = (response: Response, headers?: Record<string, string>) => {
          RequestObservability.count(observed, response, fiber.context)
          const own = headers ?? {}
          own[RequestObservability.header] = observed.id
          HttpEffect.appendPreResponseHandlerUnsafe(fiber.context, NodeWriter.finishing(own))
          return RequestObservability.identified(observed, response)
        }

        /** The request once its caller is known and, when it is counted, its limits decided. */
        const serve = (resolved: RequestCaller.Resolution | undefined, decided: Decided | undefined): App => {
          if (decided !== undefined && !decided.decision.allowed) {
            return Effect.map(RateLimiting.refused(endpointClass, decided.counted, decided.decision, decided.now), answered)
          }
          const limitHeaders = decided === undefined ? undefined : RateLimiting.headers(decided.counted.quotas, decided.decision, decided.now)
          const refusal = csrfRefusal(request, resolved) ?? lastLine.refusal(request)
          if (refusal !== undefined) return Effect.succeed(answered(refusal, limitHeaders))
          const done = (response: Response): Effect.Effect<Response> =>
            RateLimiting.lacksRetryAfter(response)
              ? Effect.map(RateLimiting.withRetryAfter(response, endpointClass), (r) => answered(r, limitHeaders))
              : Effect.succeed(answered(response, limitHeaders))
          // Most answers are not errors: they skip the problem checks in the same step.
          const finished = (response: Response) =>
            response.status < 400 ? done(response) : Effect.flatMap(lastLine.finish(response, request), done)
          const routed = lastLine.capped(app, request)
          return Effect.matchCauseEffect(
            resolved === undefined ? routed : Effect.provideService(routed, ResolvedCaller, resolved),
            { onFailure: (cause) => Effect.flatMap(lastLine.failure(cause, request), finished), onSuccess: finished }
          )
        }

        const resolvedThen = (resolved: RequestCaller.Resolution | undefined) => {
          const counted = limits.countedAs(endpointClass, resolved, request, unmatched)
          if (counted === undefined) return serve(resolved, undefined)
          const now = fiber.getRef(Clock.Clock).currentTimeMillisUnsafe()
          const decision = limits.decideNow(counted.quotas, now)
          return decision !== undefined
            ? serve(resolved, { counted, decision, now })
            : Effect.flatMap(limits.decide(counted.quotas), ([decision, at]) => serve(resolved, { counted, decision, now: at }))
        }

        return Effect.annotateLogs(
          Effect.matchEffect(limits.callerOf(request), {
            onFailure: () => Effect.succeed(answered(limits.unavailable())),
            onSuccess: resolvedThen
          }),
          RequestObservability.problemMember,
          observed.id
        )
      }))
    }
    const unmatched = { read: edgeOf(RequestObservability.unmatched, "read"), write: edgeOf(RequestObservability.unmatched, "write") }
    return { edgeOf, classOf, unmatched }
  })

/** The edge's parts, shared by the route middleware and the unmatched requests' middleware. */
class EdgeParts extends Context.Service<EdgeParts, Effect.Success<ReturnType<typeof make>>>()("@analytics/adapter-http/EdgeParts") {}

/**
 * Serves `routes` (layers registering on the `HttpRouter`) behind the edge,
 * with `api`'s rate-limit classes and its methods for 405 answers.
 * `extraRoutes` names the routes served beside `api` (405 answers list
 * them); `ownBodyLimit` picks the requests whose route caps its body
 * itself (file uploads); `sharePages` the share pages (links' and
 * embeds'), which never act with a console session's authority (the CSRF
 * check does not refuse them for a session beside them, `Csrf.checker`) and
 * meter their requests themselves, writing their own limit headers, so the
 * edge does not count them.
 */
export const serve = <Id extends string, Groups extends HttpApiGroup.Constraint, E, R>(
  api: HttpApi.HttpApi<Id, Groups>,
  routes: Layer.Layer<never, E, R>,
  options: Options = {},
  extraRoutes: ReadonlyArray<readonly [method: string, path: string]> = [],
  ownBodyLimit?: (method: string, url: string) => boolean,
  sharePages?: (url: string) => boolean
) => {
  const parts = Layer.effect(EdgeParts, make(api, options, extraRoutes, ownBodyLimit, sharePages))

  /**
   * Each route's app behind its edge. The router applies route middleware
   * once per route, when the route is added; the route itself (its method
   * and template) is known at its first request, so its edge is made then.
   */
  const routeMiddleware = HttpRouter.middleware(Effect.map(EdgeParts, ({ classOf, edgeOf }) => (httpApp: App): App => {
    let own: App | undefined
    let head: App | undefined
    return Effect.withFiber((fiber) => {
      const { route } = Context.getUnsafe(fiber.context, HttpRouter.RouteContext)
      if (Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest).method === route.method) {
        return own ??= edgeOf(route.path, classOf(route.method, route.path))(httpApp)
      }
      // A HEAD answered by a GET route is counted as a read, as an unmatched GET is.
      return head ??= edgeOf(route.path, "read")(httpApp)
    })
  }) as never)

  /** A request no route matched: the router's failure answered through the edge (404, or 405 with `Allow`). */
  const unmatchedMiddleware = HttpRouter.middleware(
    Effect.map(EdgeParts, ({ unmatched }) => (httpApp: App): App =>
      Effect.catchCause(httpApp, (cause) => {
        if (!isRouteNotFound(cause)) return Effect.failCause(cause)
        return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          (request.method === "GET" || request.method === "HEAD" ? unmatched.read : unmatched.write)(Effect.failCause(cause)))
      })) as never,
    { global: true }
  )

  // The router's middleware types track what each route requires; the edge's own needs are declared here instead.
  const edgeLayer = (routeMiddleware as unknown as { readonly layer: Layer.Layer<never, never, Requirements> }).layer
  return Layer.mergeAll(
    routes.pipe(Layer.provide(edgeLayer)),
    unmatchedMiddleware as unknown as Layer.Layer<never, never, Requirements>
  ).pipe(Layer.provide(parts)) as Layer.Layer<never, E, Exclude<R, HttpRouter.Request<any, any>> | Requirements>
}
