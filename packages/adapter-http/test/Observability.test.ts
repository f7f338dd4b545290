/**
 * The edge's observability in an embedded app, over a real socket:
 * `GET /metrics` served by `App.Options.metrics` behind its token (and not
 * served without the option), request ids on every kind of answer
 * (success, validation problem, rate-limit 429 made outside the problem
 * middleware, unknown route), and the request metrics by route template.
 */
import { MetricsEndpoint, RequestObservability } from "@analytics/adapter-http"
import { problemCode, start } from "./TestServer.ts"
import { MemoryStores } from "@analytics/adapter-memory"
import { RateLimit } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

const tight = { burst: RateLimit.bucket(1, 60_000), sustained: RateLimit.window(1000) }

/** The value of a sample line `name{labels} value`, labels given in the text's order; 0 when absent. */
const sample = (text: string, line: string): number => {
  const found = text.split("\n").find((l) => l.startsWith(`${line} `))
  return found === undefined ? 0 : Number(found.slice(line.length + 1))
}

describe("observability at the edge", () => {
  it.effect("GET /metrics behind its token; request ids on successes, problems and 429s; requests counted by route template", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer, { metrics: { token: "scrape" }, rateLimits: () => tight })
      const { token } = yield* server.tenant()

      const ok = yield* server.request("GET", "/v1/workspaces", { token, headers: { "x-request-id": "edge-1" } })
      assert.strictEqual(ok.status, 200)
      assert.strictEqual(ok.headers.get("x-request-id"), "edge-1")

      // A validation problem (made by the HttpApi contract) gets the id too, its RFC 9457 members kept.
      const invalid = yield* server.request("POST", "/v1/workspaces", { token, body: { name: 42 }, headers: { "x-request-id": "edge-2" } })
      assert.strictEqual(problemCode(invalid), "request/invalid")
      assert.strictEqual(invalid.body[RequestObservability.problemMember], "edge-2")
      assert.strictEqual(invalid.headers.get("x-request-id"), "edge-2")

      // The second read of a burst of one is refused by the edge's limiter, outside the problem middleware.
      const refused = yield* server.request("GET", "/v1/workspaces", { token })
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(problemCode(refused), "rate-limit/burst-exceeded")
      assert.strictEqual(refused.body.request_id, refused.headers.get("x-request-id"))
      assert.match(refused.body.request_id, /^[0-9a-f-]{36}$/)

      // Control characters never come back: a fresh id instead.
      const odd = yield* server.request("GET", "/nowhere", { headers: { "x-request-id": "a\tb" } })
      assert.notStrictEqual(odd.headers.get("x-request-id"), "a\tb")
      assert.strictEqual(odd.body.request_id, odd.headers.get("x-request-id"))

      const anonymous = yield* server.request("GET", MetricsEndpoint.path)
      assert.strictEqual(problemCode(anonymous), "auth/unauthenticated")
      assert.strictEqual(anonymous.headers.get("www-authenticate"), "Bearer")
      assert.strictEqual((yield* server.request("GET", MetricsEndpoint.path, { token: "wrong" })).status, 401)
      const scraped = yield* server.request("GET", MetricsEndpoint.path, { token: "scrape" })
      assert.strictEqual(scraped.status, 200)
      assert.strictEqual(scraped.headers.get("content-type"), MetricsEndpoint.contentType)
      const text = scraped.text
      assert.strictEqual(sample(text, `analytics_http_requests_total{method="GET",route="/v1/workspaces",status="200"}`), 1)
      assert.strictEqual(sample(text, `analytics_http_requests_total{method="POST",route="/v1/workspaces",status="400"}`), 1)
      assert.strictEqual(sample(text, `analytics_http_requests_total{method="GET",route="/v1/workspaces",status="429"}`), 1)
      assert.strictEqual(sample(text, `analytics_http_requests_total{method="GET",route="unmatched",status="404"}`), 1)
      assert.strictEqual(sample(text, `analytics_rate_limit_rejections_total{class="read",code="rate-limit/burst-exceeded"}`), 1)
      assert.strictEqual(sample(text, `analytics_http_requests_total{method="POST",route="/v1/tenants",status="201"}`), 1)
      assert.notInclude(text, "/nowhere")
    }).pipe(Effect.scoped))

  it.effect("without the option, /metrics is an unknown route", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const response = yield* server.request("GET", MetricsEndpoint.path)
      assert.strictEqual(problemCode(response), "route/not-found")
    }).pipe(Effect.scoped))
})
