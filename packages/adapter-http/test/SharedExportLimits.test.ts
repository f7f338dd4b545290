/**
 * Exports through shares have a budget of their own (decision 0009), over
 * real HTTP: the trust probe found that a public link's anonymous visitors
 * spent the workspace's API export bucket (10 a burst), so a link with
 * `download` locked the tenant out of its own exports. Now a link counts
 * per grant (10 a burst, 300 an hour) and per client address (5 a burst,
 * 30 an hour), an embed per grant, and the tenant's API exports go on.
 */
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode, rateLimitHeaders } from "@analytics/testing/http"
import { onEveryStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

const asJson = { accept: "application/json" }
const csv = { format: "csv", visual_id: "by_region" }

onEveryStore("exports through shares: a budget of their own", (stores) => {
  it.live("a link's exhausted export budget refuses it with 429 and Retry-After; the tenant's own API export is still accepted", () =>
    Effect.gen(function*() {
      // Behind a trusted proxy (loopback), so X-Forwarded-For stands for the visitors' addresses.
      const { admin, ok, reportId, server } = yield* ExportFixture.setup({ stores: stores(), server: { trustedProxies: ["127.0.0.1/32"] } })
      /** The tenant's own export, by its admin's API token: 202. */
      const ownExport = Effect.map(server.request("POST", `/v1/reports/${reportId}/export`, { token: admin, body: csv }), (answer) => {
        assert.strictEqual(answer.status, 202, answer.text)
        return answer
      })
      const link = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view", "download"] })
      const path = new URL(link.link_url).pathname
      const exportFrom = (address: string) =>
        server.request("POST", `${path}/export`, { body: csv, headers: { ...asJson, "x-forwarded-for": address } })
      /** Exports from `address` until one is refused (at most 20): how many were queued, and the refusal. */
      const untilRefused = (address: string) =>
        Effect.gen(function*() {
          for (let queued = 0; queued < 20; queued++) {
            const answer = yield* exportFrom(address)
            if (answer.status !== 202) return { queued, refusal: answer }
          }
          throw new Error(`${address}: 20 exports and no refusal`)
        })

      // One address: 5 in a burst, then 429 with Retry-After (and the share's limit headers).
      const first = yield* untilRefused("203.0.113.1")
      assert.strictEqual(first.queued, 5)
      assert.strictEqual(problemCode(first.refusal), "rate-limit/exports-exceeded")
      assert.strictEqual(first.refusal.status, 429)
      assert.isAbove(Number(first.refusal.headers.get("retry-after")), 0)
      assert.strictEqual(first.refusal.body.retry_after, Number(first.refusal.headers.get("retry-after")))
      for (const name of rateLimitHeaders) assert.isTrue(first.refusal.headers.has(name), name)
      // The tenant's own export by API token is not touched by the link's.
      yield* ownExport

      // A second address takes the link's burst of 10; a third is refused by the grant's budget, whoever it is.
      assert.strictEqual((yield* untilRefused("203.0.113.2")).queued, 5)
      const third = yield* untilRefused("198.51.100.7")
      assert.strictEqual(third.queued, 0)
      assert.strictEqual(problemCode(third.refusal), "rate-limit/exports-exceeded")
      assert.match(third.refusal.body.detail, /This share has started 10 exports/)
      yield* ownExport

      // An embed counts per grant: 10 in a burst, then 429; the tenant's export is accepted still.
      const embed = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view", "download"] })
      const token = (yield* ok("POST", `/v1/sharing/grants/${embed.grant_id}/embed-tokens`, { attributes: { region: "EU" } })).token
      let embedded = 0
      let embedRefusal = yield* server.request("POST", `/embed/export?token=${encodeURIComponent(token)}`, { body: csv, headers: asJson })
      while (embedRefusal.status === 202 && embedded < 20) {
        embedded++
        embedRefusal = yield* server.request("POST", `/embed/export?token=${encodeURIComponent(token)}`, { body: csv, headers: asJson })
      }
      assert.strictEqual(embedded, 10)
      assert.strictEqual(problemCode(embedRefusal), "rate-limit/exports-exceeded")
      assert.isAbove(Number(embedRefusal.headers.get("retry-after")), 0)
      yield* ownExport
    }).pipe(Effect.scoped))
})
