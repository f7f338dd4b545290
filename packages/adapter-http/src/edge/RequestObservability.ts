/**
 * What the edge records of every request: its id (`X-Request-Id`, taken
 * from the client or a proxy when it is sane, else made here) on the
 * response, in problem bodies (a `request_id` extension member) and in
 * every log line written while it is served; and the HTTP metrics, by
 * route template (never the raw path: ids in paths would make a series per
 * resource), method and status.
 *
 * @since 0.1.0
 */
import { type Context, Metric } from "effect"
import { FindMyWay, HttpBody, type HttpMethod, type HttpServerRequest, HttpServerResponse, ProblemDetails } from "effect/http"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import { randomUUID } from "node:crypto"
import { pathOf } from "./Url.ts"

/** The header carrying a request's id, in and out. */
export const header = "x-request-id"

/** The problem-body member carrying the request's id (an RFC 9457 extension member). */
export const problemMember = "request_id"

// Visible ASCII, at most 128 characters: anything else (control characters, spaces, a megabyte) is replaced.
const sane = /^[\x21-\x7e]{1,128}$/

/** The id of a request: the one it came with when sane, else a new UUID. */
export const idOf = (incoming: string | undefined): string =>
  incoming !== undefined && sane.test(incoming) ? incoming : randomUUID()

/** The label of a request that matched no route: one series for every unknown path. */
export const unmatched = "unmatched"

const knownMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/**
 * The route template of a request (`/v1/webhooks/:webhook_id`) among
 * `api`'s endpoints and `extraRoutes`, or `unmatched`.
 */
export const routeTemplates = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  extraRoutes: ReadonlyArray<readonly [method: string, path: string]> = []
): (method: string, url: string) => string => {
  const router = FindMyWay.make<string>({ ignoreTrailingSlash: true })
  const seen = new Set<string>()
  const add = (method: string, path: string) => {
    if (seen.has(`${method} ${path}`)) return
    seen.add(`${method} ${path}`)
    router.on(method as HttpMethod.HttpMethod, path as FindMyWay.PathInput, path)
  }
  HttpApi.reflect(api, { onGroup: () => {}, onEndpoint: ({ endpoint }) => add(endpoint.method, endpoint.path) })
  for (const [method, path] of extraRoutes) add(method, path)
  return (method, url) => {
    const path = pathOf(url)
    const found = router.find(method as HttpMethod.HttpMethod, path) ?? (method === "HEAD" ? router.find("GET", path) : undefined)
    return found?.handler ?? unmatched
  }
}

/** Seconds, from 1 ms to 10 s (longer requests are uploads and streamed answers: the +Inf bucket counts them). */
const durationBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

interface Series {
  readonly requests: Metric.Counter<number>
  readonly duration: Metric.Histogram<number>
}

/** Each label set's two metrics, made once (a labelled metric caches its series key: an update is a map lookup). */
const seriesCache = new Map<string, Map<string, Map<number, Series>>>()
const seriesOf = (method: string, route: string, status: number): Series => {
  let byMethod = seriesCache.get(route)
  if (byMethod === undefined) seriesCache.set(route, byMethod = new Map())
  let byStatus = byMethod.get(method)
  if (byStatus === undefined) byMethod.set(method, byStatus = new Map())
  let series = byStatus.get(status)
  if (series === undefined) {
    const attributes = { method, route, status: String(status) }
    series = {
      requests: Metric.counter("analytics_http_requests_total", {
        description: "HTTP requests answered, by method, route template and status",
        incremental: true,
        attributes
      }),
      duration: Metric.histogram("analytics_http_request_duration_seconds", {
        description: "Time from a request's arrival at the edge to its response (before the body is streamed), by method, route template and status",
        boundaries: durationBuckets,
        attributes
      })
    }
    byStatus.set(status, series)
  }
  return series
}

const isProblem = (response: HttpServerResponse.HttpServerResponse): boolean =>
  response.body._tag === "Uint8Array" && (response.body.contentType.startsWith(ProblemDetails.contentType))

const decoder = new TextDecoder()

/** A request being served, as the edge observes it: its id, its route's label and method for the metrics, when it arrived. */
export interface Observed {
  readonly id: string
  readonly route: string
  readonly method: string
  readonly started: number
}

/** Starts observing a request of `route` (its template): its id is the one it came with when sane, else a new one. */
export const observe = (route: string, request: HttpServerRequest.HttpServerRequest): Observed => ({
  id: idOf(request.headers[header]),
  route,
  method: knownMethods.has(request.method) ? request.method : "OTHER",
  started: performance.now()
})

/**
 * Counts and times the response of an observed request under its route. A
 * request the client abandoned never gets here: it is neither counted nor
 * timed.
 */
export const count = (
  observed: Observed,
  response: HttpServerResponse.HttpServerResponse,
  context: Context.Context<never>
): void => {
  const series = seriesOf(observed.method, observed.route, response.status)
  series.requests.updateUnsafe(1, context)
  series.duration.updateUnsafe((performance.now() - observed.started) / 1000, context)
}

/** `response` with the request's id in its body when it is a problem; any other response as it is. */
export const identified = (
  observed: Observed,
  response: HttpServerResponse.HttpServerResponse
): HttpServerResponse.HttpServerResponse => {
  if (response.status < 400 || !isProblem(response) || response.body._tag !== "Uint8Array") return response
  try {
    const problem: unknown = JSON.parse(decoder.decode(response.body.body))
    if (typeof problem !== "object" || problem === null || Array.isArray(problem)) return response
    return HttpServerResponse.setBody(response, HttpBody.jsonUnsafe({ ...problem, [problemMember]: observed.id }, response.body.contentType))
  } catch {
    return response
  }
}
