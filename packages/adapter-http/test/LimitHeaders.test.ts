/**
 * The trust probe's findings on rate-limit headers, over real HTTP
 * (decision 0009): every answer carries the `X-RateLimit-*` headers of the
 * limit that governed it, shares' pages, embeds, link passwords, SCIM and
 * unauthenticated 404s included, refusals and 429s too; the names are
 * written in one casing (lower) on every path, whichever writer sends them;
 * and the shared-view limit admits at most 120 requests in any minute.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as http from "node:http"
import { TestClock } from "effect/testing"
import { problemCode, rateLimitHeaders, start, type TestServer } from "./TestServer.ts"
import { onEveryStore } from "./EveryStore.ts"

/** An answer as Node's client read it off the wire: the status and the header names as sent. */
interface Raw {
  readonly status: number
  readonly names: ReadonlyArray<string>
  readonly headers: http.IncomingHttpHeaders
}

/** One request over a fresh connection, read raw (`fetch` would hide the casing of names). */
const raw = (server: TestServer, method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
  Effect.promise(() =>
    new Promise<Raw>((resolve, reject) => {
      const request = http.request(server.url + path, { method, headers, agent: false }, (response) => {
        response.resume()
        response.on("end", () =>
          resolve({
            status: response.statusCode!,
            names: response.rawHeaders.filter((_, i) => i % 2 === 0),
            headers: response.headers
          }))
      })
      request.on("error", reject)
      request.end(body)
    }))

/** The limit headers' names as sent: all of them present, each written in lower case. */
const limitNamesOf = (answer: Raw, what: string) => {
  const sent = answer.names.filter((name) => /^(x-)?ratelimit/i.test(name))
  assert.sameMembers(sent.map((name) => name.toLowerCase()), [...rateLimitHeaders], `${what} (${answer.status}): ${answer.names.join(", ")}`)
  for (const name of sent) assert.strictEqual(name, name.toLowerCase(), `${what}: ${name} is not written in lower case`)
  return sent
}

const json = { accept: "application/json" }
const html = { accept: "text/html" }

/** A tenant with a report, a public link, a password link and an embed to it. */
const arrange = (server: TestServer) =>
  Effect.gen(function*() {
    const { token } = yield* server.tenant()
    const ok = (method: string, path: string, body: unknown) =>
      Effect.map(server.request(method, path, { token, body }), (r) => {
        assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
        return r.body
      })
    const workspace = yield* ok("POST", "/v1/workspaces", { name: "Board" })
    const report = yield* ok("POST", "/v1/reports", { workspace_id: workspace.workspace_id, name: "Board pack" })
    const grant = (body: object) => ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: report.report_id, actions: ["view"], ...body })
    const link = new URL((yield* grant({ principal_type: "link" })).link_url).pathname
    const passwordLink = new URL((yield* grant({ principal_type: "link", password: "correct horse battery" })).link_url).pathname
    const embedToken = (yield* grant({ principal_type: "embed" })).embed.token as string
    return { token, link, passwordLink, embed: `/embed?token=${encodeURIComponent(embedToken)}` }
  })

onEveryStore("rate-limit headers on every path", (stores) => {
  it.live("shares, embeds, link passwords (401 and 429), SCIM's 401 and unauthenticated 404s carry the limit headers, in lower case", () =>
    Effect.gen(function*() {
      const server = yield* start(stores())
      const { embed, link, passwordLink, token } = yield* arrange(server)
      const unlock = (password: string) =>
        raw(server, "POST", passwordLink, { ...json, "content-type": "application/json" }, JSON.stringify({ password }))

      const answers: Array<readonly [string, Raw, number]> = [
        ["an API read (written by the edge's own writer)", yield* raw(server, "GET", "/v1/workspaces", { authorization: `Bearer ${token}` }), 200],
        ["a HEAD (written by the platform)", yield* raw(server, "HEAD", "/v1/workspaces", { authorization: `Bearer ${token}` }), 200],
        ["a link's page", yield* raw(server, "GET", link, html), 200],
        ["a link as JSON", yield* raw(server, "GET", link, json), 200],
        ["an unknown link", yield* raw(server, "GET", "/s/no-such-link", json), 404],
        ["an embed's page", yield* raw(server, "GET", embed, html), 200],
        ["a tampered embed token", yield* raw(server, "GET", `${embed}x`, json), 401],
        ["a link's password asked for", yield* raw(server, "GET", passwordLink, json), 401],
        ["a wrong password", yield* unlock("wrong"), 401],
        ["SCIM without a token", yield* raw(server, "GET", "/scim/v2/Users"), 401],
        ["an unauthenticated 404 outside /v1", yield* raw(server, "GET", "/no-such-page"), 404],
        ["an unauthenticated 404 under /v1", yield* raw(server, "GET", "/v1/no-such-route"), 404]
      ]
      for (const [what, answer, status] of answers) {
        assert.strictEqual(answer.status, status, what)
        limitNamesOf(answer, what)
      }
      // A share's answers carry the shared-view limit (per client address): 120 in any minute, 3 600 an hour.
      const page = answers[2]![1].headers
      assert.strictEqual(page["x-ratelimit-limit-burst"], "120")
      assert.strictEqual(page["x-ratelimit-limit-sustained"], "3600")
      assert.strictEqual(page["ratelimit-policy"], `"burst";q=120;w=60, "sustained";q=3600;w=3600`)
      // An unauthenticated request outside the shares is the client address's (the Starter plan's numbers).
      assert.strictEqual(answers[9]![1].headers["x-ratelimit-limit-burst"], "60")
      assert.strictEqual(answers[10]![1].headers["x-ratelimit-limit-burst"], "60")

      // Four more wrong passwords: the 5th is answered 401, the 6th 429, both with the headers and the 429 with Retry-After.
      for (let i = 0; i < 3; i++) assert.strictEqual((yield* unlock(`wrong ${i}`)).status, 401)
      const fifth = yield* unlock("wrong 4")
      assert.strictEqual(fifth.status, 401)
      limitNamesOf(fifth, "the 5th wrong password")
      const refused = yield* unlock("wrong 5")
      assert.strictEqual(refused.status, 429)
      limitNamesOf(refused, "a password refused by its limit")
      assert.isAbove(Number(refused.headers["retry-after"]), 0)
    }))
})

describe("the shared-view limit", () => {
  it.effect("the shared-view limit admits at most 120 requests in any minute; its 429s carry the headers and Retry-After", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer, { metrics: { token: "scrape" } })
      const { embed, link } = yield* arrange(server)
      // The probe's 130 views in a minute, one every 460 ms: a bucket of 120 refilling 2 a second let 122 through.
      let admitted = 0
      let refusal: Raw | undefined
      for (let i = 0; i < 130; i++) {
        const answer = yield* raw(server, "GET", i % 2 === 0 ? link : embed, json)
        limitNamesOf(answer, `view ${i}`)
        if (answer.status === 200) admitted++
        else {
          assert.strictEqual(answer.status, 429, `view ${i}`)
          refusal ??= answer
        }
        yield* TestClock.adjust("460 millis")
      }
      assert.strictEqual(admitted, 120)
      assert.strictEqual(refusal!.headers["x-ratelimit-remaining-burst"], "0")
      // The first view was at 0 s and the 121st at 55.2 s: the next passes when the first is a minute old.
      assert.strictEqual(refusal!.headers["retry-after"], "5")
      // A browser is told the same on a page.
      const page = yield* raw(server, "GET", link, html)
      assert.strictEqual(page.status, 429)
      assert.include(page.headers["content-type"], "text/html")
      limitNamesOf(page, "a refused page")
      assert.isAbove(Number(page.headers["retry-after"]), 0)
      // And as a problem.
      assert.strictEqual(problemCode(yield* server.request("GET", link, { headers: json })), "rate-limit/shared-views-exceeded")
      // Each refusal is counted in the metrics, as the edge's are.
      const metrics = (yield* server.request("GET", "/metrics", { token: "scrape" })).text
      assert.include(metrics, `analytics_rate_limit_rejections_total{class="shared",code="rate-limit/shared-views-exceeded"} 12\n`)
    }))
})
