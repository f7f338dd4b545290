/**
 * The webhook API over real HTTP, with the delivery worker running against
 * real HTTPS receivers on loopback (in-memory stores).
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { HttpsTransport } from "@analytics/adapter-webhook-https"
import { Receiver } from "@analytics/testing/webhooks"
import { EventPublisher, Events, Mailer, Workers } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import Stripe from "stripe"
import { problemCode, start, type TestServer } from "./TestServer.ts"

/**
 * A server, a running worker and a receiver, for the test's scope. The
 * receiver is on loopback: the worker lets private addresses through unless
 * `guarded`.
 */
const setupWith = (options: { readonly guarded?: boolean } = {}) => Effect.gen(function*() {
  const server = yield* start(MemoryStores.layer)
  const receiver = yield* Effect.acquireRelease(Effect.promise(() => Receiver.start()), (r) => Effect.promise(() => r.close()))
  const mail = Mailer.makeMemory()
  // Built in the test's scope: the loops outlive the call that starts them.
  const services = yield* Layer.build(Layer.mergeAll(
    HttpsTransport.layer({ allowPrivate: options.guarded !== true }),
    Layer.succeed(Mailer.Mailer, mail.mailer),
    EventPublisher.EventPublisher.layer
  ).pipe(Layer.provide(Layer.succeedContext(server.stores))))
  // The delivery worker as a host runs it (`Workers.start`), for the test's scope.
  yield* Workers.start({ exports: false, webhooks: {}, scheduler: false }).pipe(
    Effect.provideContext(services),
    Effect.provideContext(server.stores)
  )
  return { server, receiver, mail }
})
const setup = setupWith()

const register = (server: TestServer, token: string, body: Record<string, unknown>) =>
  Effect.map(server.request("POST", "/v1/webhooks", { token, body }), (r) => {
    assert.strictEqual(r.status, 201, r.text)
    return r.body
  })

/** Reads a webhook's deliveries until `check` holds (the worker runs in real time). */
const deliveriesUntil = (server: TestServer, token: string, path: string, check: (data: Array<any>) => boolean) =>
  Effect.gen(function*() {
    // Polled at a pace the read budget of a Scale tenant (600 a minute) allows.
    for (let i = 0; i < 200; i++) {
      const r = yield* server.request("GET", path, { token })
      assert.strictEqual(r.status, 200, r.text)
      if (check(r.body.data)) return r.body.data as Array<any>
      yield* Effect.sleep("50 millis")
    }
    throw new Error(`deliveries never matched: ${path}`)
  })

describe("webhooks API", () => {
  it.live("registers an https URL, returns a generated secret once, and never shows it again", () =>
    Effect.gen(function*() {
      const { receiver, server } = yield* setup
      const { token } = yield* server.tenant()
      const created = yield* register(server, token, { url: receiver.url(), events: ["export.succeeded", "alert.fire"] })
      assert.match(created.secret, /^whsec_[A-Za-z0-9_-]{43}$/)
      assert.deepInclude(created, { url: receiver.url(), enabled: true, disabled_reason: null, workspace_id: null })
      const got = yield* server.request("GET", `/v1/webhooks/${created.webhook_id}`, { token })
      assert.strictEqual(got.status, 200)
      assert.notProperty(got.body, "secret")
      assert.notInclude(got.text, created.secret)
      const own = yield* register(server, token, { url: receiver.url(), events: ["alert.fire"], secret: "my-own-secret-of-24-chars-min" })
      assert.strictEqual(own.secret, "my-own-secret-of-24-chars-min")
      const list = yield* server.request("GET", "/v1/webhooks?limit=1", { token })
      assert.deepStrictEqual(list.body.data.map((w: any) => w.webhook_id), [own.webhook_id])
      assert.isTrue(list.body.page.has_more)
      const next = yield* server.request("GET", `/v1/webhooks?limit=1&cursor=${encodeURIComponent(list.body.page.next_cursor)}`, { token })
      assert.deepStrictEqual(next.body.data.map((w: any) => w.webhook_id), [created.webhook_id])
      // Another tenant sees none of it.
      const other = yield* server.tenant()
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/webhooks/${created.webhook_id}`, { token: other.token })), "resource/not-found")
      assert.deepStrictEqual((yield* server.request("GET", "/v1/webhooks", { token: other.token })).body.data, [])
    }).pipe(Effect.scoped))

  it.live("refuses every URL that is not https, unknown event types and the firehose below Scale, changing nothing", () =>
    Effect.gen(function*() {
      const { server } = yield* setup
      const { token } = yield* server.tenant("growth")
      const schemeRefused = [
        "http://hooks.example.com/in",
        "file:///etc/passwd",
        "ftp://hooks.example.com/in",
        "javascript:alert(1)//https://x",
        "//hooks.example.com/in",
        "hooks.example.com/in",
        "http://https://hooks.example.com",
        "data:text/plain,https://x"
      ]
      for (const url of schemeRefused) {
        const r = yield* server.request("POST", "/v1/webhooks", { token, body: { url, events: ["alert.fire"] } })
        assert.strictEqual(r.status, 400, url)
        assert.strictEqual(problemCode(r), "webhook/scheme-not-allowed", url)
      }
      for (const url of ["https://user:pass@hooks.example.com/", "https://hooks.example.com@evil.example/", "https:///path", "https://ho st/"]) {
        const r = yield* server.request("POST", "/v1/webhooks", { token, body: { url, events: ["alert.fire"] } })
        assert.strictEqual(r.status, 400, url)
        assert.strictEqual(problemCode(r), "request/invalid", url)
      }
      for (const events of [[], ["alert.fire", "alert.fire"], ["no.such.event"], "alert.fire"]) {
        const r = yield* server.request("POST", "/v1/webhooks", { token, body: { url: "https://hooks.example.com/", events } })
        assert.strictEqual(problemCode(r), "request/invalid", JSON.stringify(events))
      }
      const short = yield* server.request("POST", "/v1/webhooks", { token, body: { url: "https://h.example.com/", events: ["alert.fire"], secret: "short" } })
      assert.strictEqual(problemCode(short), "request/invalid")
      const firehose = yield* server.request("POST", "/v1/webhooks", { token, body: { url: "https://h.example.com/", events: ["audit.event"] } })
      assert.strictEqual(firehose.status, 403)
      assert.strictEqual(problemCode(firehose), "webhook/firehose-not-in-plan")
      assert.deepStrictEqual((yield* server.request("GET", "/v1/webhooks", { token })).body.data, [])
      const scale = yield* server.tenant("scale")
      yield* register(server, scale.token, { url: "https://h.example.com/", events: ["audit.event"] })
      // Nor can an update subscribe a lower plan to the firehose.
      const hook = yield* register(server, token, { url: "https://h.example.com/", events: ["alert.fire"] })
      const sneaky = yield* server.request("PATCH", `/v1/webhooks/${hook.webhook_id}`, { token, body: { events: ["audit.event"] } })
      assert.strictEqual(problemCode(sneaky), "webhook/firehose-not-in-plan")
      const plain = yield* server.request("PATCH", `/v1/webhooks/${hook.webhook_id}`, { token, body: { url: "http://h.example.com/" } })
      assert.strictEqual(problemCode(plain), "webhook/scheme-not-allowed")
      const after = yield* server.request("GET", `/v1/webhooks/${hook.webhook_id}`, { token })
      assert.deepStrictEqual([after.body.url, after.body.events], ["https://h.example.com/", ["alert.fire"]])
    }).pipe(Effect.scoped))

  it.live("a test send goes through the pipeline: signed, delivered, logged with its attempt, filterable", () =>
    Effect.gen(function*() {
      const { receiver, server } = yield* setup
      const { token } = yield* server.tenant()
      const hook = yield* register(server, token, { url: receiver.url(), events: ["export.succeeded"] })
      const sent = yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/test`, { token, body: { type: "alert.fire" } })
      assert.strictEqual(sent.status, 202, sent.text)
      assert.strictEqual(sent.body.event_type, "alert.fire")
      assert.strictEqual(sent.body.status, "pending")
      const [got] = yield* Effect.promise(() => receiver.waitFor(1))
      const event = JSON.parse(got.body)
      assert.deepStrictEqual(event.data, Events.examples["alert.fire"])
      assert.strictEqual(got.headers["x-service-delivery"], sent.body.delivery_id)
      assert.isTrue(Stripe.webhooks.signature!.verifyHeader(got.body, got.headers["x-service-signature"] as string, hook.secret, 300))
      const path = `/v1/webhooks/${hook.webhook_id}/deliveries`
      const [delivery] = yield* deliveriesUntil(server, token, path, ([d]) => d?.status === "succeeded")
      assert.strictEqual(delivery.event_id, event.id)
      assert.strictEqual(delivery.attempts.length, 1)
      assert.strictEqual(delivery.attempts[0].status_code, 200)
      assert.isNull(delivery.attempts[0].error)
      assert.isNull(delivery.next_attempt_at)
      assert.deepStrictEqual(delivery.event, event)
      const one = yield* server.request("GET", `${path}/${delivery.delivery_id}`, { token })
      assert.deepStrictEqual(one.body, delivery)
      assert.strictEqual((yield* server.request("GET", `${path}?status=failed`, { token })).body.data.length, 0)
      assert.strictEqual((yield* server.request("GET", `${path}?event_type=alert.fire&status=succeeded`, { token })).body.data.length, 1)
      assert.strictEqual((yield* server.request("GET", `${path}?event_type=export.succeeded`, { token })).body.data.length, 0)
      assert.strictEqual(problemCode(yield* server.request("GET", `${path}?status=lost`, { token })), "request/invalid")
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/test`, { token, body: { type: "nope" } })), "request/invalid")
    }).pipe(Effect.scoped))

  it.live("a receiver on a private or loopback address fails its delivery at once, with a reason that names no address", () =>
    Effect.gen(function*() {
      const { receiver, server } = yield* setupWith({ guarded: true })
      const { token } = yield* server.tenant()
      for (const url of [
        receiver.url(),
        `https://127.0.0.1:${receiver.port}/hook`,
        "https://[::ffff:169.254.169.254]/latest/meta-data",
        // IPv4-compatible, IPv4-translated and local-use NAT64 forms of 127.0.0.1 (the trust probe's).
        `https://[::7f00:1]:${receiver.port}/hook`,
        `https://[::ffff:0:7f00:1]:${receiver.port}/hook`,
        `https://[64:ff9b:1::7f00:1]:${receiver.port}/hook`
      ]) {
        const hook = yield* register(server, token, { url, events: ["alert.fire"] })
        const sent = yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/test`, { token, body: { type: "alert.fire" } })
        assert.strictEqual(sent.status, 202, sent.text)
        const path = `/v1/webhooks/${hook.webhook_id}/deliveries`
        const [delivery] = yield* deliveriesUntil(server, token, path, ([d]) => d?.status !== "pending")
        assert.strictEqual(delivery.status, "failed", url)
        assert.isNull(delivery.next_attempt_at)
        assert.strictEqual(delivery.attempts.length, 1)
        assert.strictEqual(delivery.attempts[0].status_code, null)
        assert.strictEqual(delivery.attempts[0].error, "refused: the URL's host is not a public address")
        const log = (yield* server.request("GET", path, { token })).text
        assert.notMatch(log, /loopback|link-local|private\b|resolves/)
        assert.notInclude(log.replaceAll(url, ""), "127.0.0.1")
        // Failed for good: the failed filter lists it, and it is not attempted again.
        assert.strictEqual((yield* server.request("GET", `${path}?status=failed`, { token })).body.data.length, 1)
      }
      yield* Effect.sleep("300 millis")
      assert.strictEqual(receiver.received.length, 0)
    }).pipe(Effect.scoped))

  it.live("a 410 disables the webhook; after enabling it, re-delivery and recovery send the same event again", () =>
    Effect.gen(function*() {
      const { mail, receiver, server } = yield* setup
      const { token } = yield* server.tenant("scale")
      receiver.answer({ status: 410, headers: { "content-type": "application/json" }, body: "{\"error\":\"this endpoint is retired\"}" })
      const hook = yield* register(server, token, { url: receiver.url(), events: ["alert.fire"] })
      const sent = yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/test`, { token, body: { type: "alert.fire" } })
      const path = `/v1/webhooks/${hook.webhook_id}/deliveries`
      yield* deliveriesUntil(server, token, path, ([d]) => d?.status === "failed")
      const disabled = yield* server.request("GET", `/v1/webhooks/${hook.webhook_id}`, { token })
      assert.isFalse(disabled.body.enabled)
      assert.match(disabled.body.disabled_reason, /410/)
      const redeliver = `${path}/${sent.body.delivery_id}/redeliver`
      assert.strictEqual(problemCode(yield* server.request("POST", redeliver, { token })), "webhook/disabled")
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/test`, { token, body: { type: "alert.fire" } })), "webhook/disabled")
      receiver.answer({ status: 200 })
      const enabled = yield* server.request("PATCH", `/v1/webhooks/${hook.webhook_id}`, { token, body: { enabled: true } })
      assert.deepStrictEqual([enabled.body.enabled, enabled.body.disabled_reason], [true, null])
      const again = yield* server.request("POST", redeliver, { token })
      assert.strictEqual(again.status, 202, again.text)
      assert.strictEqual(again.body.status, "pending")
      const [done] = yield* deliveriesUntil(server, token, path, ([d]) => d?.status === "succeeded")
      assert.deepStrictEqual(done.attempts.map((a: any) => a.status_code), [410, 200])
      // Each attempt carries the receiver's answer: its status and the start of its body (none when it sent none).
      assert.deepStrictEqual(done.attempts.map((a: any) => a.response_excerpt), ["{\"error\":\"this endpoint is retired\"}", null])
      const [first, second] = receiver.received
      assert.strictEqual(JSON.parse(first.body).id, JSON.parse(second.body).id)
      assert.strictEqual(first.headers["x-service-delivery"], second.headers["x-service-delivery"])
      // Once finished, it can be re-delivered again.
      assert.strictEqual((yield* server.request("POST", redeliver, { token })).status, 202)
      yield* deliveriesUntil(server, token, path, ([d]) => d?.attempts.length === 3 && d.status === "succeeded")
      // Recovery: a delivery is under way when a member disables the webhook, which fails it;
      // after enabling, recovering the range sends it again.
      const since = new Date().toISOString()
      receiver.answer("hang")
      const stuck = yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/test`, { token, body: { type: "alert.fire" } })
      yield* Effect.promise(() => receiver.waitFor(4))
      yield* server.request("PATCH", `/v1/webhooks/${hook.webhook_id}`, { token, body: { enabled: false } })
      const failed = yield* server.request("GET", `${path}/${stuck.body.delivery_id}`, { token })
      assert.strictEqual(failed.body.status, "failed")
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/recover`, { token, body: { since } })), "webhook/disabled")
      yield* server.request("PATCH", `/v1/webhooks/${hook.webhook_id}`, { token, body: { enabled: true } })
      receiver.answer({ status: 200 })
      const recover = yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/recover`, { token, body: { since } })
      assert.strictEqual(recover.status, 202, recover.text)
      assert.strictEqual(recover.body.recovered, 1)
      yield* deliveriesUntil(server, token, `${path}?status=succeeded`, (data) => data.some((d) => d.delivery_id === stuck.body.delivery_id))
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/recover`, { token, body: { since: "yesterday" } })), "request/invalid")
      // Disabled by its receiver once: its owner (the tenant's admin token has no e-mail address) could not be mailed.
      assert.deepStrictEqual(mail.sent.map((m) => m.to), [])
    }).pipe(Effect.scoped))

  it.live("a delivery still being attempted cannot be re-delivered", () =>
    Effect.gen(function*() {
      const { receiver, server } = yield* setup
      const { token } = yield* server.tenant()
      receiver.answer("hang")
      const hook = yield* register(server, token, { url: receiver.url(), events: ["alert.fire"] })
      const sent = yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/test`, { token, body: { type: "alert.fire" } })
      yield* Effect.promise(() => receiver.waitFor(1))
      const again = yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/deliveries/${sent.body.delivery_id}/redeliver`, { token })
      assert.strictEqual(again.status, 409)
      assert.strictEqual(problemCode(again), "webhook/delivery-in-progress")
      const unknown = yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/deliveries/not-a-delivery/redeliver`, { token })
      assert.strictEqual(problemCode(unknown), "resource/not-found")
    }).pipe(Effect.scoped))

  it.live("rotation returns the new secret once and reports until when the old one signs too; delete removes everything", () =>
    Effect.gen(function*() {
      const { receiver, server } = yield* setup
      const { token } = yield* server.tenant()
      const hook = yield* register(server, token, { url: receiver.url(), events: ["alert.fire"] })
      assert.isNull(hook.previous_secret_expires_at)
      const before = Date.now()
      const rotated = yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/rotate-secret`, { token, body: {} })
      assert.strictEqual(rotated.status, 200, rotated.text)
      assert.notStrictEqual(rotated.body.secret, hook.secret)
      const expires = new Date(rotated.body.previous_secret_expires_at).getTime()
      assert.isAtLeast(expires, before + 24 * 3_600_000)
      assert.isAtMost(expires, Date.now() + 24 * 3_600_000)
      yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/test`, { token, body: { type: "alert.fire" } })
      const [got] = yield* Effect.promise(() => receiver.waitFor(1))
      const header = got.headers["x-service-signature"] as string
      for (const secret of [hook.secret, rotated.body.secret]) assert.isTrue(Stripe.webhooks.signature!.verifyHeader(got.body, header, secret, 300))
      const removed = yield* server.request("DELETE", `/v1/webhooks/${hook.webhook_id}`, { token })
      assert.strictEqual(removed.status, 204)
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/webhooks/${hook.webhook_id}/deliveries`, { token })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("DELETE", `/v1/webhooks/${hook.webhook_id}`, { token })), "resource/not-found")
    }).pipe(Effect.scoped))

  it.live("each attempt keeps the headers it was sent with and the receiver's answer headers; the success rate counts attempts over 24 hours and 7 days", () =>
    Effect.gen(function*() {
      const { receiver, server } = yield* setup
      const { token } = yield* server.tenant()
      const hook = yield* register(server, token, { url: receiver.url(), events: ["alert.fire"] })
      const path = `/v1/webhooks/${hook.webhook_id}`
      const empty = yield* server.request("GET", `${path}/success-rate`, { token })
      assert.strictEqual(empty.status, 200, empty.text)
      assert.deepInclude(empty.body.last_24_hours, { succeeded: 0, failed: 0 })
      assert.deepInclude(empty.body.last_7_days, { succeeded: 0, failed: 0 })
      assert.approximately(Date.now() - new Date(empty.body.last_7_days.since).getTime(), 7 * 24 * 3_600_000, 60_000)
      // A receiver answering 503 with its own headers, then 200: one delivery, two attempts.
      let calls = 0
      receiver.answer(() => ++calls === 1
        ? { status: 503, headers: { "x-receiver-trace": "abc-123", "retry-after": "1" }, body: "busy" }
        : { status: 200, headers: { "x-receiver-trace": "def-456" } })
      yield* server.request("POST", `${path}/test`, { token, body: { type: "alert.fire" } })
      const [delivery] = yield* deliveriesUntil(server, token, `${path}/deliveries`, (d) => d[0]?.status === "succeeded")
      const [failed, succeeded] = delivery.attempts
      const [first, second] = yield* Effect.promise(() => receiver.waitFor(2))
      for (const [attempt, got] of [[failed, first], [succeeded, second]] as const) {
        // What was sent is what the receiver got.
        for (const name of ["content-type", "user-agent", "x-service-signature", "x-service-event", "x-service-delivery", "content-length"]) {
          assert.strictEqual(attempt.request_headers[name], got!.headers[name], name)
        }
      }
      assert.strictEqual(failed.request_headers["x-service-delivery"], delivery.delivery_id)
      assert.strictEqual(failed.response_headers["x-receiver-trace"], "abc-123")
      assert.strictEqual(failed.response_headers["retry-after"], "1")
      assert.strictEqual(succeeded.response_headers["x-receiver-trace"], "def-456")
      const rate = yield* server.request("GET", `${path}/success-rate`, { token })
      assert.deepInclude(rate.body, { webhook_id: hook.webhook_id })
      assert.deepInclude(rate.body.last_24_hours, { succeeded: 1, failed: 1 })
      assert.deepInclude(rate.body.last_7_days, { succeeded: 1, failed: 1 })
      // Another tenant's webhook is not found; a member is refused.
      const other = yield* server.tenant()
      assert.strictEqual(problemCode(yield* server.request("GET", `${path}/success-rate`, { token: other.token })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/webhooks/not-an-id/success-rate", { token })), "resource/not-found")
    }).pipe(Effect.scoped))

  it.live("an admin reads the signing secret again: not cached, recorded in the audit log without the secret; a member is refused", () =>
    Effect.gen(function*() {
      const { server } = yield* setup
      const { token } = yield* server.tenant()
      const hook = yield* register(server, token, { url: "https://hooks.example.com/in", events: ["alert.fire"] })
      const path = `/v1/webhooks/${hook.webhook_id}/secret`
      const revealed = yield* server.request("GET", path, { token })
      assert.strictEqual(revealed.status, 200, revealed.text)
      assert.deepStrictEqual(revealed.body, { webhook_id: hook.webhook_id, secret: hook.secret })
      assert.strictEqual(revealed.headers.get("cache-control"), "no-store")
      const rotated = yield* server.request("POST", `/v1/webhooks/${hook.webhook_id}/rotate-secret`, { token, body: {} })
      assert.strictEqual((yield* server.request("GET", path, { token })).body.secret, rotated.body.secret, "the current secret, not the previous")
      const log = yield* server.request("GET", "/v1/audit-log?action=webhook.secret_revealed", { token })
      assert.strictEqual(log.status, 200, log.text)
      assert.strictEqual(log.body.data.length, 2)
      assert.deepInclude(log.body.data[0].target, { type: "webhook", id: hook.webhook_id })
      assert.notInclude(log.text, hook.secret)
      assert.notInclude(log.text, rotated.body.secret)
      // A member may not read it (core's policy); nothing is logged for them.
      const user = (yield* server.request("POST", "/v1/users", { token, body: { email: "m@example.com", name: "M", roles: ["member"] } })).body
      const member = (yield* server.request("POST", `/v1/users/${user.user_id}/tokens`, { token })).body.token
      const refused = yield* server.request("GET", path, { token: member })
      assert.strictEqual(refused.status, 403)
      assert.notInclude(refused.text, rotated.body.secret)
      assert.strictEqual((yield* server.request("GET", "/v1/audit-log?action=webhook.secret_revealed", { token })).body.data.length, 2)
      // Another tenant's webhook, or none: 404, nothing logged.
      const other = yield* server.tenant()
      assert.strictEqual(problemCode(yield* server.request("GET", path, { token: other.token })), "resource/not-found")
      assert.deepStrictEqual((yield* server.request("GET", "/v1/audit-log?action=webhook.secret_revealed", { token: other.token })).body.data, [])
      const openapi = yield* server.request("GET", "/v1/openapi.json")
      assert.property(openapi.body.paths, "/v1/webhooks/{webhook_id}/secret")
      assert.property(openapi.body.paths, "/v1/webhooks/{webhook_id}/success-rate")
    }).pipe(Effect.scoped))

  it.live("the event catalog is served and published in the OpenAPI document; egress addresses in the public configuration", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer, { info: { webhookEgressAddresses: ["203.0.113.7"] } })
      const { token } = yield* server.tenant()
      const types = yield* server.request("GET", "/v1/event-types", { token })
      assert.deepStrictEqual(types.body.data.map((t: any) => t.type), [...Events.eventTypes])
      assert.deepInclude(types.body.data[0].schema.properties.type, { enum: ["alert.fire"] })
      // A list like every other: `limit` bounds a page, `cursor` continues it in the catalog's order, a bad one is refused.
      const paged: Array<string> = []
      let cursor: string | null = null
      for (let i = 0; i <= Events.eventTypes.length; i++) {
        const page: any = yield* server.request("GET", `/v1/event-types?limit=2${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`, { token })
        assert.strictEqual(page.status, 200, page.text)
        assert.isAtMost(page.body.data.length, 2)
        assert.strictEqual(page.body.page.limit, 2)
        paged.push(...page.body.data.map((t: any) => t.type))
        cursor = page.body.page.next_cursor
        assert.strictEqual(page.body.page.has_more, cursor !== null)
        if (cursor === null) break
      }
      assert.deepStrictEqual(paged, [...Events.eventTypes])
      assert.strictEqual((yield* server.request("GET", "/v1/event-types?cursor=nope", { token })).body.code, "pagination/cursor-invalid")
      assert.strictEqual((yield* server.request("GET", "/v1/event-types?limit=0", { token })).status, 400)
      const parameters = (yield* server.request("GET", "/v1/openapi.json")).body.paths["/v1/event-types"].get.parameters.map((p: any) => p.name)
      assert.includeMembers(parameters, ["limit", "cursor"])
      const openapi = yield* server.request("GET", "/v1/openapi.json")
      assert.deepStrictEqual(Object.keys(openapi.body.webhooks), [...Events.eventTypes])
      assert.deepStrictEqual(
        openapi.body.webhooks["export.failed"].post.requestBody.content["application/json"].schema.properties.type.enum,
        ["export.failed"]
      )
      assert.property(openapi.body.paths, "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver")
      const config = yield* server.request("GET", "/api/config/public")
      assert.deepStrictEqual(config.body.webhooks, { egress_ips: ["203.0.113.7"] })
    }).pipe(Effect.scoped))
})
