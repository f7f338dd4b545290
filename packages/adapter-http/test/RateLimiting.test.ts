import { Api } from "@analytics/api"
import { classifier } from "../src/edge/RateLimiting.ts"
import { type JsonResponse, operatorToken, problemCode, rateLimitHeaders, start, type TestServer } from "./TestServer.ts"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Authenticator, Errors, RateLimitStore } from "@analytics/core"
import { Effect, Fiber, Layer, Option, Redacted, Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { TestClock } from "effect/testing"


/** The limit headers of a response (throws when one is missing). */
const limitHeaders = (response: JsonResponse) => {
  const missing = rateLimitHeaders.filter((name) => !response.headers.has(name))
  if (missing.length > 0) throw new Error(`${response.status} without ${missing.join(", ")}: ${response.text}`)
  const get = (name: string) => response.headers.get(name)!
  return {
    burst: Number(get("x-ratelimit-remaining-burst")),
    sustained: Number(get("x-ratelimit-remaining-sustained")),
    limits: [Number(get("x-ratelimit-limit-burst")), Number(get("x-ratelimit-limit-sustained"))],
    resets: [get("x-ratelimit-reset-burst"), get("x-ratelimit-reset-sustained")],
    policy: get("ratelimit-policy"),
    ratelimit: get("ratelimit")
  }
}

const list = (server: TestServer, token: string) => server.request("GET", "/v1/workspaces", { token })

describe("rate limiting over HTTP", () => {
  it.effect("every response of an authenticated tenant carries the limit headers, whatever its status", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant("starter")
      const responses = [
        yield* list(server, token),
        yield* server.request("POST", "/v1/workspaces", { token, body: { name: "Sales" } }),
        yield* server.request("GET", "/v1/workspaces?limit=0", { token }),
        yield* server.request("POST", "/v1/workspaces", { token, body: "{not json" }),
        yield* server.request("GET", "/v1/nothing-here", { token }),
        yield* server.request("DELETE", "/v1/workspaces", { token }),
        yield* server.request("GET", "/healthz", { token })
      ]
      assert.deepStrictEqual(responses.map((r) => r.status), [200, 201, 400, 400, 404, 405, 200])
      const seen = responses.map(limitHeaders)
      // Reads and writes are counted apart: 4 reads (unknown GET route included), 3 writes (DELETE included).
      assert.deepStrictEqual(seen.map((h) => h.burst), [59, 59, 58, 58, 57, 57, 56])
      assert.deepStrictEqual(seen.map((h) => h.sustained), [1999, 1999, 1998, 1998, 1997, 1997, 1996])
      for (const h of seen) {
        assert.deepStrictEqual(h.limits, [60, 2000])
        assert.strictEqual(h.policy, `"burst";q=60;w=60, "sustained";q=2000;w=3600`)
      }
      // Under the test clock (epoch 0), with no time passing: the bucket is full again after 4 tokens' worth (4 s).
      assert.deepStrictEqual(seen[6].resets, ["1970-01-01T00:00:04.000Z", "1970-01-01T02:00:00.000Z"])
      assert.strictEqual(seen[6].ratelimit, `"burst";r=56;t=4, "sustained";r=1996;t=7200`)
    }))

  it.effect("every /v1 response carries the limit headers: anonymous and unknown credentials by client address, the operator by its own quota", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant("starter")
      const anonymous = [
        yield* server.request("GET", "/v1/workspaces"),
        yield* server.request("GET", "/v1/workspaces", { token: "ast_unknown" }),
        yield* server.request("POST", "/v1/workspaces", { token: "ast_unknown", body: { name: "x" } }),
        yield* server.request("GET", "/v1/no-such-route"),
        yield* server.request("GET", "/v1/openapi.json")
      ]
      assert.deepStrictEqual(anonymous.map((r) => r.status), [401, 401, 401, 404, 200])
      const seen = anonymous.map(limitHeaders)
      // One quota per client address, whatever the class: the Starter plan's numbers.
      assert.deepStrictEqual(seen.map((h) => h.burst), [59, 58, 57, 56, 55])
      for (const h of seen) assert.deepStrictEqual(h.limits, [60, 2000])
      // The operator (one provisioning already counted by `server.tenant`) has its own quota, by class: the Scale plan's.
      const operator = [
        yield* server.request("GET", "/v1/workspaces", { token: operatorToken }),
        yield* server.request("PATCH", "/v1/tenants/not-a-tenant", { token: operatorToken, body: { plan: "scale" } }),
        yield* server.request("POST", "/v1/tenants", { token: operatorToken, body: { name: "Beta", plan: "growth" } })
      ]
      assert.deepStrictEqual(operator.map((r) => r.status), [403, 404, 201])
      assert.deepStrictEqual(operator.map((r) => limitHeaders(r).burst), [599, 598, 597])
      for (const r of operator) assert.deepStrictEqual(limitHeaders(r).limits, [600, 100_000])
      // The tenant's own quota is untouched by all that; routes outside /v1 without a credential are not counted.
      assert.strictEqual(limitHeaders(yield* list(server, token)).burst, 59)
      const health = yield* server.request("GET", "/healthz")
      assert.strictEqual(health.status, 200)
      assert.isFalse(health.headers.has("x-ratelimit-limit-burst"))
    }))

  it.effect("an address without a valid credential is refused with 429 once its quota is spent; other addresses and valid tokens are not", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer, { trustedProxies: ["127.0.0.1/32"] })
      const { token } = yield* server.tenant("starter")
      const from = (address: string, credential?: string) =>
        server.request("GET", "/v1/workspaces", { token: credential, headers: { "x-forwarded-for": address } })
      for (let i = 0; i < 60; i++) {
        const guess = yield* from("203.0.113.7", `ast_guess_${i}`)
        assert.strictEqual(guess.status, 401, `guess ${i}`)
      }
      const refused = yield* from("203.0.113.7", "ast_guess_60")
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(problemCode(refused), "rate-limit/burst-exceeded")
      assert.strictEqual(refused.headers.get("retry-after"), "1")
      assert.strictEqual(limitHeaders(refused).burst, 0)
      assert.strictEqual((yield* from("203.0.113.7")).status, 429, "no credential at all: the same quota")
      // Another address has its own quota; a valid token from the refused address is counted against its tenant.
      assert.strictEqual(limitHeaders(yield* from("198.51.100.1")).burst, 59)
      const valid = yield* from("203.0.113.7", token)
      assert.strictEqual(valid.status, 200)
      assert.strictEqual(limitHeaders(valid).burst, 59)
      // A second later a token's worth has refilled.
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* from("203.0.113.7", "ast_guess_61")).status, 401)
    }))

  it.effect("burst: a full bucket, then 429 rate-limit/burst-exceeded with Retry-After; a refusal consumes nothing", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant("starter")
      for (let i = 0; i < 60; i++) {
        const ok = yield* list(server, token)
        assert.strictEqual(ok.status, 200)
        assert.strictEqual(limitHeaders(ok).burst, 59 - i)
      }
      for (let i = 0; i < 5; i++) {
        const refused = yield* list(server, token)
        assert.strictEqual(refused.status, 429)
        assert.strictEqual(problemCode(refused), "rate-limit/burst-exceeded")
        assert.strictEqual(refused.headers.get("retry-after"), "1")
        assert.strictEqual(refused.body.retry_after, 1)
        assert.strictEqual(limitHeaders(refused).burst, 0)
        // The refused requests were not counted against the hour either.
        assert.strictEqual(limitHeaders(refused).sustained, 1940)
      }
      // The write class has its own budget.
      const write = yield* server.request("POST", "/v1/workspaces", { token, body: { name: "Ops" } })
      assert.strictEqual(write.status, 201)
      assert.strictEqual(limitHeaders(write).burst, 59)
      // One second later exactly one token is back: the five refusals took none.
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* list(server, token)).status, 200)
      assert.strictEqual((yield* list(server, token)).status, 429)
    }))

  it.effect("sustained: the hour's 2000 requests, then 429 rate-limit/sustained-exceeded until the window has slid", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant("starter")
      // 2000 reads in the first 34 minutes: 60 a minute, within the burst.
      for (let sent = 0; sent < 2000;) {
        const batch = Math.min(60, 2000 - sent)
        const statuses = yield* Effect.forEach(
          Array.from({ length: batch }),
          () => Effect.map(list(server, token), (r) => r.status),
          { concurrency: 10 }
        )
        assert.deepStrictEqual(statuses, Array(batch).fill(200))
        sent += batch
        yield* TestClock.adjust("1 minute")
      }
      const now = 34 * 60_000
      const refused = yield* list(server, token)
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(problemCode(refused), "rate-limit/sustained-exceeded")
      assert.strictEqual(limitHeaders(refused).sustained, 0)
      // The next hour starts with the 2000 at full weight; one fits once 1/2000 of it (1.8 s) has passed.
      const retryAfter = Math.ceil((3_600_000 + 1_800 - now) / 1000)
      assert.strictEqual(refused.headers.get("retry-after"), String(retryAfter))
      yield* TestClock.adjust(`${(retryAfter - 1) * 1000} millis`)
      assert.strictEqual((yield* list(server, token)).status, 429)
      yield* TestClock.adjust("1 second")
      assert.strictEqual((yield* list(server, token)).status, 200)
    }))

  it.effect("a plan change applies from the tenant's next request; custom limits are the negotiated ones", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { tenantId, token } = yield* server.tenant("starter")
      for (let i = 0; i < 60; i++) yield* list(server, token)
      assert.strictEqual((yield* list(server, token)).status, 429)
      const patch = (body: unknown, as = operatorToken) =>
        server.request("PATCH", `/v1/tenants/${tenantId}`, { token: as, body })
      const custom = yield* patch({ plan: "custom", limits: { burst: 100, sustained: 5_000, query_concurrency: 12 } })
      assert.strictEqual(custom.status, 200, custom.text)
      assert.deepStrictEqual(custom.body.limits, { burst: 100, sustained: 5_000, query_concurrency: 12 })
      // The bucket keeps what it held (nothing) and now refills at 100 a minute, up to 100.
      const next = yield* list(server, token)
      assert.strictEqual(next.status, 429, next.text)
      assert.deepStrictEqual(limitHeaders(next).limits, [100, 5_000])
      yield* TestClock.adjust("6 seconds")
      const refilled = yield* list(server, token)
      assert.strictEqual(refilled.status, 200, refilled.text)
      assert.strictEqual(limitHeaders(refilled).burst, 9)
      const growth = yield* patch({ plan: "growth" })
      assert.strictEqual(growth.status, 200)
      assert.strictEqual(growth.body.limits, null)
      assert.deepStrictEqual(limitHeaders(yield* list(server, token)).limits, [180, 20_000])
      // Refusals change nothing.
      const mismatched = yield* patch({ plan: "scale", limits: { burst: 1, sustained: 1, query_concurrency: 1 } })
      assert.strictEqual(mismatched.status, 400)
      assert.strictEqual(problemCode(mismatched), "request/invalid")
      assert.deepStrictEqual(mismatched.body.errors.map((e: { path: Array<string> }) => e.path), [["body", "limits"]])
      assert.strictEqual(problemCode(yield* patch({ plan: "custom", limits: { burst: 0, sustained: 1, query_concurrency: 1 } })), "request/invalid")
      assert.strictEqual(problemCode(yield* patch({ plan: "gold" })), "request/invalid")
      assert.strictEqual(problemCode(yield* patch({ plan: "scale" }, token)), "auth/forbidden")
      const unknown = yield* server.request("PATCH", "/v1/tenants/not-a-tenant", { token: operatorToken, body: { plan: "scale" } })
      assert.strictEqual(problemCode(unknown), "resource/not-found")
      assert.deepStrictEqual(limitHeaders(yield* list(server, token)).limits, [180, 20_000])
    }))

  it.effect("a memory store's one-step decision answers exactly as a store decided through its effect: statuses, headers, 429s", () =>
    Effect.gen(function*() {
      // The same memory store without its synchronous decision: the edge then decides as over a shared store.
      const effectfulOnly = Layer.sync(RateLimitStore.RateLimitStore, () => {
        const { consumeNow: _, ...store } = RateLimitStore.makeMemory()
        return store
      })
      const inOneStep = yield* start(MemoryStores.layer)
      const throughEffect = yield* start(MemoryStores.layer, { rateLimitStore: effectfulOnly })
      const tokens = [(yield* inOneStep.tenant("starter")).token, (yield* throughEffect.tenant("starter")).token]
      const answers = (response: JsonResponse) => ({
        status: response.status,
        code: response.status === 429 ? problemCode(response) : undefined,
        retryAfter: response.headers.get("retry-after"),
        headers: rateLimitHeaders.map((name) => response.headers.get(name))
      })
      // A fixed pseudo-random run: bursts of reads, some writes and anonymous requests, the clock moving now and then.
      let seed = 24
      // mulberry32
      const next = (n: number) => {
        seed = (seed + 0x6d2b79f5) | 0
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
        return (((t ^ (t >>> 14)) >>> 0) / 4_294_967_296 * n) | 0
      }
      let refused = 0
      for (let step = 0; step < 240; step++) {
        const kind = next(10)
        if (kind === 0) {
          yield* TestClock.adjust(next(4_000))
          continue
        }
        const [a, b] = yield* Effect.all([inOneStep, throughEffect].map((server, i) =>
          kind < 7
            ? list(server, tokens[i])
            : kind < 9
            ? server.request("POST", "/v1/workspaces", { token: tokens[i], body: { name: `w${step}` } })
            : server.request("GET", "/v1/workspaces")
        ))
        if (a.status === 429) refused++
        assert.deepStrictEqual(answers(a), answers(b), `step ${step}`)
      }
      assert.isAbove(refused, 10, "the run reaches the limits")
    }))

  it.effect("a store that fails: each request is still limited, by this process alone, and answered", () =>
    Effect.gen(function*() {
      const down = new Errors.StoreError({ operation: "test", cause: new Error("connection refused") })
      const failing = Layer.succeed(RateLimitStore.RateLimitStore, {
        consume: () => Effect.fail(down),
        refund: () => Effect.fail(down),
        acquireSlot: () => Effect.fail(down),
        releaseSlot: () => Effect.fail(down)
      })
      const server = yield* start(MemoryStores.layer, { rateLimitStore: failing })
      const { token } = yield* server.tenant("starter")
      for (let i = 0; i < 60; i++) assert.strictEqual(limitHeaders(yield* list(server, token)).burst, 59 - i)
      const refused = yield* list(server, token)
      assert.strictEqual(problemCode(refused), "rate-limit/burst-exceeded")
    }))

  it.effect("a shared store that does not answer: after 500 ms the process decides alone", () =>
    Effect.gen(function*() {
      // As the PostgreSQL and Redis stores bound every operation.
      const silently = RateLimitStore.timeLimited("test")
      const silent = Layer.succeed(RateLimitStore.RateLimitStore, {
        consume: () => silently(Effect.never),
        refund: () => silently(Effect.never),
        acquireSlot: () => silently(Effect.never),
        releaseSlot: () => silently(Effect.never)
      })
      const server = yield* start(MemoryStores.layer, { rateLimitStore: silent })
      const provisioned = yield* Effect.forkChild(server.tenant("starter"))
      const pending = yield* Effect.forkChild(Effect.flatMap(Fiber.join(provisioned), ({ token }) => list(server, token)))
      // The clock moves only when told; the request waits for the store until then.
      for (let i = 0; i < 50 && pending.pollUnsafe() === undefined; i++) {
        yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
        yield* TestClock.adjust("500 millis")
      }
      const answered = yield* Fiber.join(pending)
      assert.strictEqual(answered.status, 200, answered.text)
      assert.strictEqual(limitHeaders(answered).burst, 59)
    }))

  it.effect("a counted request's credential is authenticated once, by the edge, not again by the route", () =>
    Effect.gen(function*() {
      let calls = 0
      const counting = Layer.effect(
        Authenticator.Authenticator,
        Effect.map(Effect.service(Authenticator.Authenticator), (inner) => ({
          authenticate: (credential: Redacted.Redacted<string>) => {
            calls++
            return inner.authenticate(credential)
          }
        }))
      ).pipe(Layer.provide(Authenticator.layerTokens({ operatorToken: Option.some(Redacted.make(operatorToken)) })))
      const server = yield* start(MemoryStores.layer, { authenticator: counting })
      const { token } = yield* server.tenant("growth")
      calls = 0
      for (let i = 0; i < 5; i++) assert.strictEqual((yield* list(server, token)).status, 200)
      assert.strictEqual(calls, 5)
      // Unknown tokens are counted by client address; authentication answers them, trying them again.
      assert.strictEqual((yield* list(server, "ast_unknown")).status, 401)
      assert.strictEqual(calls, 7, "an unknown token is tried by the edge and by authentication")
    }))

  it("the OpenAPI document declares the 429s on every authenticated endpoint", () => {
    const document = OpenApi.fromApi(Api) as any
    for (const [path, method] of [["/v1/workspaces", "get"], ["/v1/workspaces", "post"], ["/v1/tenants", "post"]]) {
      const responses = document.paths[path][method].responses
      assert.property(responses, "429", `${method} ${path}`)
      assert.include(JSON.stringify(responses["429"]), "#/components/schemas/BurstExceededEncoded")
      assert.include(JSON.stringify(responses["429"]), "#/components/schemas/SustainedExceededEncoded")
    }
    for (const name of ["BurstExceeded", "SustainedExceeded"]) {
      const schema = JSON.stringify(document.components.schemas[`${name}Encoded`])
      assert.include(schema, "retry_after")
      assert.include(schema, name === "BurstExceeded" ? "rate-limit/burst-exceeded" : "rate-limit/sustained-exceeded")
    }
  })

  it("every endpoint of the API declares its class; an API with one that does not is refused", () => {
    const classOf = classifier(Api)
    assert.strictEqual(classOf("GET", "/v1/workspaces"), "read")
    assert.strictEqual(classOf("POST", "/v1/workspaces"), "write")
    assert.strictEqual(classOf("POST", "/v1/tenants"), "write")
    const unclassified = HttpApi.make("x").add(
      HttpApiGroup.make("g").add(HttpApiEndpoint.get("e", "/e", { success: Schema.String }))
    )
    assert.throws(() => classifier(unclassified), /GET \/e/)
  })
})
