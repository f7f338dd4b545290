/**
 * How the partner-portal team tests its integration: the whole analytics
 * service in process on the in-memory stores (`MemoryStores.layer`, DuckDB
 * in memory for the uploaded rows), on a real loopback socket, under
 * Effect's TestClock. A link valid 7 days expires, and a webhook is retried
 * after 5 and 10 seconds, without the test waiting for any of it.
 *
 * One part is replaced: the webhook transport hands each attempt to the
 * portal's handler in process instead of over HTTPS (the webhook-receiver
 * example covers the real HTTPS path).
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { App } from "@analytics/adapter-http"
import { problemCode, start } from "@analytics/testing/http"
import { MemoryStores } from "@analytics/adapter-memory"
import { EventPublisher, Mailer, WebhookTransport, Workers } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Layer, Queue } from "effect"
import { TestClock } from "effect/testing"
import { type NoticeStore, publishPartnerReport, webhookEndpoint } from "../src/main.ts"

const csv = "region,amount\nEU,120\nUS,80\nEU,30\nAPAC,50\n"

/** The portal's notice store, with a switch to take it down. */
const noticeStore = () => {
  const notices = new Map<string, { grantId: string; expiresAt: string | null }>()
  const state = { down: false }
  const store: NoticeStore = {
    record: async (eventId, notice) => {
      if (state.down) throw new Error("the portal's database is down")
      if (notices.has(eventId)) return false
      notices.set(eventId, notice)
      return true
    }
  }
  return { store, notices, state }
}

describe("the partner portal's integration", () => {
  it.effect("publishes a shared report, is told by webhook (retried while its store is down), and the link expires", () =>
    Effect.gen(function*() {
      const startedAt = performance.now()
      // Start the simulated clock at the real time, so the app's Date.now() and the service agree.
      yield* TestClock.setTime(Date.now())
      const service = yield* start(App, MemoryStores.layer, { engines: { upload: DuckDbEngine.layer(":memory:") } })
      const { token } = yield* service.tenant()
      const api = { url: service.url, token }

      // The portal registers its webhook endpoint.
      const hook = yield* service.request("POST", "/v1/webhooks", {
        token,
        body: { url: "https://portal.example/hooks/analytics", events: ["sharing.grant.created"] }
      })
      assert.strictEqual(hook.status, 201, hook.text)
      const portal = noticeStore()
      const endpoint = webhookEndpoint({ secret: () => hook.body.secret, notices: portal.store })

      // Attempts handed to the endpoint in process.
      const answers = yield* Queue.unbounded<number>()
      const inProcess = Layer.succeed(WebhookTransport.WebhookTransport, {
        send: (attempt) =>
          Effect.promise(() => endpoint(new Request(attempt.url, { method: "POST", headers: attempt.headers, body: attempt.body }))).pipe(
            Effect.tap((response) => Queue.offer(answers, response.status)),
            Effect.map((response) => ({ status: response.status, retryAfterSeconds: undefined }))
          )
      })
      // The service's background work as a host runs it (`Workers.start`), here only webhook delivery, until the fiber is interrupted.
      const worker = yield* Effect.forkScoped(Effect.scoped(Effect.andThen(Workers.start({ exports: false, webhooks: {}, scheduler: false }), Effect.never)).pipe(
        Effect.provide(Layer.mergeAll(inProcess, Mailer.Mailer.layerLog, EventPublisher.EventPublisher.layer)),
        Effect.provideContext(service.stores)
      ))

      // The portal's database is down when the event first arrives.
      portal.state.down = true
      const t0 = yield* Clock.currentTimeMillis
      const published = yield* Effect.promise(() =>
        publishPartnerReport(api, { partner: "Globex", email: "buyer@globex.example", csv, validForDays: 7 })
      )
      const linkPath = new URL(published.linkUrl).pathname
      const asJson = { headers: { accept: "application/json" } }

      // The partner opens the link: the report's rows.
      const view = yield* service.request("GET", linkPath, asJson)
      assert.strictEqual(view.status, 200, view.text)
      assert.deepStrictEqual(view.body.pages[0].visuals[0].rows, [
        { region: "APAC", total_amount: 50 },
        { region: "EU", total_amount: 150 },
        { region: "US", total_amount: 80 }
      ])

      // First attempt at once: 503. The retries come 5 s and then 10 s later, on the TestClock.
      assert.strictEqual(yield* Queue.take(answers), 503)
      yield* TestClock.adjust("5 seconds")
      assert.strictEqual(yield* Queue.take(answers), 503)
      portal.state.down = false
      yield* TestClock.adjust("10 seconds")
      assert.strictEqual(yield* Queue.take(answers), 204)
      assert.deepStrictEqual([...portal.notices.values()], [{ grantId: published.grantId, expiresAt: published.expiresAt }])

      // The service's own log of the delivery says the same.
      const delivery = yield* service.request("GET", `/v1/webhooks/${hook.body.webhook_id}/deliveries`, { token }).pipe(
        Effect.map((r) => r.body.data[0]),
        Effect.repeat({ until: (d) => d?.status === "succeeded", times: 200 })
      )
      assert.strictEqual(delivery.status, "succeeded")
      assert.deepStrictEqual(
        delivery.attempts.map((a: { status_code: number; attempted_at: string }) => [a.status_code, (Date.parse(a.attempted_at) - t0) / 1000]),
        [[503, 0], [503, 5], [204, 15]]
      )

      // Stop the workers first: a jump of a week would wake the delivery worker's 1 s poll 604,800 times.
      yield* Fiber.interrupt(worker)

      // A week later (simulated), the link is refused: valid until the millisecond before `expires_at`.
      const expiry = Date.parse(published.expiresAt)
      yield* TestClock.setTime(expiry - 1)
      assert.strictEqual((yield* service.request("GET", linkPath, asJson)).status, 200)
      yield* TestClock.setTime(expiry)
      const expired = yield* service.request("GET", linkPath, asJson)
      assert.strictEqual(expired.status, 403)
      assert.strictEqual(problemCode(expired), "share/expired")
      // The grant is kept, marked expired.
      const grant = yield* service.request("GET", `/v1/sharing/grants/${published.grantId}`, { token })
      assert.strictEqual(grant.body.state, "expired")

      // A week of service time, in the real time this line reports.
      console.log(`partner portal: 7 days simulated in ${Math.round(performance.now() - startedAt)} ms`)
    }).pipe(Effect.scoped))
})
