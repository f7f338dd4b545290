/**
 * `GET /metrics`: the process's metrics (Effect's metric registry) in the
 * Prometheus text format, for a scraper. Served in the application
 * (`App.Options.metrics`), behind a bearer token when one is given, or on a
 * port of its own (`listener`) that only the monitoring network reaches.
 *
 * @since 0.1.0
 */
import { Problems } from "@analytics/api"
import { Context, Effect } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { createHash, timingSafeEqual } from "node:crypto"
import type * as Http from "node:http"
import { problemResponse } from "../edge/LastLineProblems.ts"
import { pathOf } from "../edge/Url.ts"

/** Where the metrics are served. */
export const path = "/metrics"

/** The route, for the edge's 405 answers and route templates. */
export const routes: ReadonlyArray<readonly [string, string]> = [["GET", path]]

/** The Prometheus text exposition format, version 0.0.4. */
export const contentType = "text/plain; version=0.0.4; charset=utf-8"

/** How `/metrics` is protected. */
export interface Options {
  /** A bearer token the scraper must send (`Authorization: Bearer <token>`); without it anyone who reaches the route reads it. */
  readonly token?: string | undefined
}

const digest = (value: string) => createHash("sha256").update(value).digest()

/** Whether an `Authorization` header carries the token (compared in constant time). */
export const authorized = (token: string | undefined) => {
  if (token === undefined) return (_header: string | undefined) => true
  const expected = digest(`Bearer ${token}`)
  return (header: string | undefined) => header !== undefined && timingSafeEqual(digest(header), expected)
}

/** The metrics as Prometheus text. */
export const text: Effect.Effect<string> = PrometheusMetrics.format()

/** `GET /metrics` on the application's router. */
export const layer = (options: Options) => {
  const allowed = authorized(options.token)
  return HttpRouter.add(
    "GET",
    path,
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      allowed(request.headers["authorization"])
        ? Effect.map(text, (body) => HttpServerResponse.text(body, { contentType, headers: { "cache-control": "no-store" } }))
        : Effect.succeed(problemResponse("auth/unauthenticated", "GET /metrics needs the metrics bearer token")))
  )
}

/**
 * A `node:http` request listener serving only `GET /metrics`, for a port of
 * its own (`http.createServer(MetricsEndpoint.listener({}))`); every other
 * request answers a 404 problem.
 */
export const listener = (options: Options) => {
  const allowed = authorized(options.token)
  return (request: Http.IncomingMessage, response: Http.ServerResponse): void => {
    const problem = (status: number, body: unknown, headers: Record<string, string> = {}): void =>
      void response.writeHead(status, { "content-type": "application/problem+json", ...headers }).end(JSON.stringify(body))
    if (pathOf(request.url ?? "/") !== path) {
      return problem(404, Problems.undeclared("route/not-found", `No route ${request.method} ${pathOf(request.url ?? "/")}`))
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return problem(405, Problems.undeclared("route/method-not-allowed", `${path} accepts GET`), { allow: "GET, HEAD" })
    }
    if (!allowed(request.headers.authorization)) {
      return problem(401, Problems.undeclared("auth/unauthenticated", "GET /metrics needs the metrics bearer token"), { "www-authenticate": "Bearer" })
    }
    const body = PrometheusMetrics.formatUnsafe(Context.empty())
    response.writeHead(200, { "content-type": contentType, "cache-control": "no-store" })
    response.end(request.method === "HEAD" ? undefined : body)
  }
}
