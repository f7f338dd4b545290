/**
 * The delivery worker end to end, against real HTTPS receivers on loopback:
 * the in-memory stores, the HTTPS transport and the worker of core, with
 * the schedule on the TestClock (and once in real time).
 */
import { MemoryStores } from "@analytics/adapter-memory"
import {
  DeliveryStore,
  EventPublisher,
  Events,
  Mailer,
  type Tenant,
  type Webhook,
  WebhookDispatcher,
  Webhooks,
  WebhookSecrets,
  WebhookSignature,
  Workspaces
} from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import Stripe from "stripe"
import { SmtpMailer } from "@analytics/adapter-smtp"
import { eventually } from "@analytics/testing"
import { SmtpServer } from "@analytics/testing/smtp"
import { HttpsTransport } from "../src/index.ts"
import { Receiver } from "@analytics/testing/webhooks"

/** A brief real-time pause, for "nothing more happens". */
const realPause = (millis: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, millis)))

const mail = Mailer.makeMemory()

const services = Layer.mergeAll(
  EventPublisher.EventPublisher.layer,
  HttpsTransport.layer({ allowPrivate: true }),
  Layer.succeed(Mailer.Mailer, mail.mailer)
).pipe(Layer.provideMerge(MemoryStores.layer))

const setup = (receiver: Receiver.Receiver, options: { events?: ReadonlyArray<Events.EventType> } = {}) =>
  Effect.gen(function*() {
    // The memory stores do not check that a tenant exists.
    const tenantId = crypto.randomUUID() as Tenant.TenantId
    const workspace = yield* Workspaces.create(tenantId, { name: "Ops" })
    const { secret, webhook } = yield* Webhooks.create(
      { tenantId, plan: "scale", owner: { userId: "u-1", email: "owner@example.com" } },
      { url: receiver.url(), events: options.events ?? ["export.succeeded"] }
    )
    return { tenantId, workspace, webhook, secret }
  })

const deliveriesOf = (tenantId: Tenant.TenantId, webhookId: Webhook.WebhookId) =>
  Effect.flatMap(DeliveryStore.DeliveryStore, (store) =>
    store.list(tenantId, webhookId, {
      take: 100,
      sort: { field: "created_at", direction: "desc" },
      after: undefined,
      createdAtOrBefore: new Date(8e12)
    }, {}))

const withReceiver = <A, E, R>(f: (receiver: Receiver.Receiver) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(Effect.promise(() => Receiver.start()), f, (r) => Effect.promise(() => r.close()))

const exportSucceeded = Events.examples["export.succeeded"]

describe("WebhookDispatcher over HTTPS", () => {
  it.effect("a target the egress guard refuses fails the delivery at once: one attempt, no retry, a generic reason", () =>
    withReceiver((receiver) =>
      Effect.gen(function*() {
        const { tenantId, webhook, workspace } = yield* setup(receiver)
        yield* Effect.forkScoped(WebhookDispatcher.run({ ...WebhookDispatcher.defaults, pollMillis: 3_600_000 }))
        yield* EventPublisher.publish(tenantId, "export.succeeded", workspace.workspace_id, exportSucceeded)
        const [failed] = yield* eventually(deliveriesOf(tenantId, webhook.webhook_id), ([d]) => d?.status === "failed")
        assert.strictEqual(failed.next_attempt_at, null)
        assert.strictEqual(failed.attempts.length, 1)
        assert.deepInclude(failed.attempts[0], { status_code: null, error: "refused: the URL's host is not a public address" })
        // Nothing names where the host resolved to.
        assert.notMatch(JSON.stringify(failed), /127\.0\.0\.1|::1|loopback|localhost/)
        // Nothing is tried again, however long we wait.
        yield* TestClock.adjust("1 hour")
        yield* realPause(30)
        assert.strictEqual((yield* deliveriesOf(tenantId, webhook.webhook_id))[0].attempts.length, 1)
        assert.strictEqual(receiver.received.length, 0)
      })).pipe(
        Effect.scoped,
        // The receiver is on loopback; this transport keeps the guard on.
        Effect.provide(Layer.mergeAll(
          EventPublisher.EventPublisher.layer,
          HttpsTransport.layer({ resolve: async () => ["127.0.0.1"] }),
          Layer.succeed(Mailer.Mailer, mail.mailer)
        ).pipe(Layer.provideMerge(MemoryStores.layer)))
      ))

  it.effect("retries 5xx after 5, 10, 20, 40, 60, 60 s (TestClock), then fails the delivery", () =>
    withReceiver((receiver) =>
      Effect.gen(function*() {
        receiver.answer({ status: 500 })
        const { tenantId, webhook, workspace } = yield* setup(receiver)
        yield* Effect.forkScoped(WebhookDispatcher.run({ ...WebhookDispatcher.defaults, pollMillis: 3_600_000 }))
        const t0 = yield* Clock.currentTimeMillis
        yield* EventPublisher.publish(tenantId, "export.succeeded", workspace.workspace_id, exportSucceeded)
        for (let attempt = 1; attempt <= 7; attempt++) {
          const [delivery] = yield* eventually(deliveriesOf(tenantId, webhook.webhook_id), ([d]) => d?.attempts.length === attempt)
          if (attempt === 7) break
          assert.strictEqual(delivery.status, "retrying")
          // Not a millisecond early.
          yield* TestClock.setTime(delivery.next_attempt_at!.getTime() - 1)
          yield* realPause(30)
          assert.strictEqual(receiver.received.length, attempt)
          yield* TestClock.setTime(delivery.next_attempt_at!.getTime())
        }
        const [failed] = yield* deliveriesOf(tenantId, webhook.webhook_id)
        assert.strictEqual(failed.status, "failed")
        assert.strictEqual(failed.next_attempt_at, null)
        assert.deepStrictEqual(failed.attempts.map((a) => (a.attempted_at.getTime() - t0) / 1000), [0, 5, 15, 35, 75, 135, 195])
        assert.isTrue(failed.attempts.every((a) => a.status_code === 500 && a.error === "The receiver answered 500"))
        assert.strictEqual(receiver.received.length, 7)
        // Every attempt carries the same event id (receivers deduplicate by it) and delivery id.
        assert.strictEqual(new Set(receiver.received.map((r) => JSON.parse(r.body).id)).size, 1)
        assert.strictEqual(new Set(receiver.received.map((r) => r.headers["x-service-delivery"])).size, 1)
        yield* TestClock.adjust("1 hour")
        yield* realPause(30)
        assert.strictEqual(receiver.received.length, 7)
      })).pipe(Effect.scoped, Effect.provide(services)))

  it.effect("a delivery is the raw envelope with the contract's headers, signed as Stripe's verifier and ours accept", () =>
    withReceiver((receiver) =>
      Effect.gen(function*() {
        const { secret, tenantId, webhook, workspace } = yield* setup(receiver)
        yield* Effect.forkScoped(WebhookDispatcher.run())
        const event = yield* EventPublisher.publish(tenantId, "export.succeeded", workspace.workspace_id, exportSucceeded)
        const [got] = yield* Effect.promise(() => receiver.waitFor(1))
        assert.deepStrictEqual(JSON.parse(got.body), event)
        assert.strictEqual(got.headers["content-type"], "application/json")
        assert.strictEqual(got.headers["x-service-event"], "export.succeeded")
        const [delivery] = yield* eventually(deliveriesOf(tenantId, webhook.webhook_id), ([d]) => d?.status === "succeeded")
        assert.strictEqual(got.headers["x-service-delivery"], delivery.delivery_id)
        const signature = got.headers["x-service-signature"] as string
        const now = yield* Clock.currentTimeMillis
        assert.match(signature, new RegExp(`^t=${Math.floor(now / 1000)},v1=[0-9a-f]{64}$`))
        assert.isTrue(Stripe.webhooks.signature!.verifyHeader(got.body, signature, secret, 300, undefined, Math.floor(now / 1000)))
        const verified = yield* WebhookSignature.verify(got.body, got.headers, [secret], { now })
        assert.strictEqual(verified.timestampSeconds, Math.floor(now / 1000))
        assert.deepStrictEqual(delivery.attempts.map((a) => [a.status_code, a.error]), [[200, null]])
      })).pipe(Effect.scoped, Effect.provide(services)))

  it.effect("after a rotation each delivery is signed with both secrets for 24 hours, then with the new one only", () =>
    withReceiver((receiver) =>
      Effect.gen(function*() {
        const { secret: old, tenantId, webhook, workspace } = yield* setup(receiver)
        const { secret: next } = yield* Webhooks.rotateSecret(tenantId, webhook.webhook_id, undefined)
        assert.isTrue(next.startsWith(WebhookSecrets.prefix))
        yield* Effect.forkScoped(WebhookDispatcher.run({ ...WebhookDispatcher.defaults, pollMillis: 3_600_000 }))
        yield* EventPublisher.publish(tenantId, "export.succeeded", workspace.workspace_id, exportSucceeded)
        const [during] = yield* Effect.promise(() => receiver.waitFor(1))
        const header = during.headers["x-service-signature"] as string
        assert.strictEqual(header.split(",").filter((p) => p.startsWith("v1=")).length, 2)
        const t = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        for (const secret of [old, next]) {
          assert.isTrue(Stripe.webhooks.signature!.verifyHeader(during.body, header, secret, 300, undefined, t))
        }
        yield* TestClock.adjust(WebhookSecrets.overlapMillis)
        yield* EventPublisher.publish(tenantId, "export.succeeded", workspace.workspace_id, exportSucceeded)
        const [, after] = yield* Effect.promise(() => receiver.waitFor(2))
        const late = after.headers["x-service-signature"] as string
        assert.strictEqual(late.split(",").filter((p) => p.startsWith("v1=")).length, 1)
        const tLate = Math.floor((yield* Clock.currentTimeMillis) / 1000)
        assert.isTrue(Stripe.webhooks.signature!.verifyHeader(after.body, late, next, 300, undefined, tLate))
        assert.throws(() => Stripe.webhooks.signature!.verifyHeader(after.body, late, old, 300, undefined, tLate))
      })).pipe(Effect.scoped, Effect.provide(services)))

  it.effect("410 disables the webhook, fails its pending deliveries and e-mails its owner; nothing more is sent", () =>
    withReceiver((receiver) =>
      Effect.gen(function*() {
        receiver.answer({ status: 410 })
        const { tenantId, webhook, workspace } = yield* setup(receiver)
        const before = mail.sent.length
        yield* Effect.forkScoped(WebhookDispatcher.run({ ...WebhookDispatcher.defaults, pollMillis: 3_600_000 }))
        yield* EventPublisher.publish(tenantId, "export.succeeded", workspace.workspace_id, exportSucceeded)
        yield* eventually(Effect.sync(() => mail.sent.length), (n) => n === before + 1)
        const disabled = yield* Webhooks.get(tenantId, webhook.webhook_id)
        assert.isFalse(disabled.enabled)
        assert.match(disabled.disabled_reason!, /answered 410/)
        const message = mail.sent[before]
        assert.deepStrictEqual(message.to, ["owner@example.com"])
        assert.include(message.subject, webhook.url)
        const [delivery] = yield* deliveriesOf(tenantId, webhook.webhook_id)
        assert.strictEqual(delivery.status, "failed")
        // Events published while it is disabled make no delivery; the clock moving sends nothing.
        const publisher = yield* EventPublisher.EventPublisher
        const later = yield* Events.make("export.succeeded", workspace.workspace_id, exportSucceeded)
        assert.strictEqual(yield* publisher.publish(tenantId, later), 0)
        yield* TestClock.adjust("10 minutes")
        yield* realPause(30)
        assert.strictEqual(receiver.received.length, 1)
      })).pipe(Effect.scoped, Effect.provide(services)))

  it.live("the owner of a webhook disabled by a 404 gets an e-mail through a real SMTP server", () =>
    withReceiver((receiver) =>
      Effect.gen(function*() {
        receiver.answer({ status: 404 })
        const smtp = yield* SmtpServer.start()
        const { tenantId, webhook, workspace } = yield* setup(receiver)
        yield* Effect.forkScoped(WebhookDispatcher.run().pipe(
          Effect.provide(SmtpMailer.layer({ url: `smtp://127.0.0.1:${smtp.port}`, from: "Analytics <noreply@analytics.test>" }))
        ))
        yield* EventPublisher.publish(tenantId, "export.succeeded", workspace.workspace_id, exportSucceeded)
        yield* eventually(Effect.sync(() => smtp.received.length), (n) => n === 1)
        const [message] = smtp.received
        assert.deepStrictEqual(message.to, ["owner@example.com"])
        assert.strictEqual(message.from, "noreply@analytics.test")
        assert.include(message.raw, `Subject: Webhook disabled: ${webhook.url}`)
        assert.include(message.raw, webhook.webhook_id)
        assert.isFalse((yield* Webhooks.get(tenantId, webhook.webhook_id)).enabled)
      })).pipe(Effect.scoped, Effect.provide(services)))

  it.effect("a 3xx is a failure and is not followed; a hung receiver is given up after the timeout and retried", () =>
    withReceiver((receiver) =>
      Effect.gen(function*() {
        let n = 0
        receiver.answer((r) => {
          if (r.path !== "/hook") return { status: 200 }
          n++
          return n === 1 ? { status: 307, headers: { location: receiver.url("/moved") } } : n === 2 ? "hang" : { status: 204 }
        })
        const { tenantId, webhook, workspace } = yield* setup(receiver)
        yield* Effect.forkScoped(WebhookDispatcher.run({ ...WebhookDispatcher.defaults, pollMillis: 3_600_000, attemptTimeoutMillis: 300 }))
        yield* EventPublisher.publish(tenantId, "export.succeeded", workspace.workspace_id, exportSucceeded)
        for (let attempt = 1; attempt <= 3; attempt++) {
          const [d] = yield* eventually(deliveriesOf(tenantId, webhook.webhook_id), ([d]) => d?.attempts.length === attempt)
          if (d.next_attempt_at !== null) yield* TestClock.setTime(d.next_attempt_at.getTime())
        }
        const [delivery] = yield* deliveriesOf(tenantId, webhook.webhook_id)
        assert.deepStrictEqual(delivery.attempts.map((a) => a.status_code), [307, null, 204])
        assert.match(delivery.attempts[1].error!, /^timeout/)
        assert.strictEqual(delivery.status, "succeeded")
        assert.deepStrictEqual(receiver.received.map((r) => r.path), ["/hook", "/hook", "/hook"])
      })).pipe(Effect.scoped, Effect.provide(services)))

  it.live("by default an attempt gets the contract's 5 seconds, then counts as a timeout and is retried", () =>
    withReceiver((receiver) =>
      Effect.gen(function*() {
        receiver.answer("hang")
        const { tenantId, webhook, workspace } = yield* setup(receiver)
        yield* Effect.forkScoped(WebhookDispatcher.run())
        yield* EventPublisher.publish(tenantId, "export.succeeded", workspace.workspace_id, exportSucceeded)
        const [delivery] = yield* eventually(deliveriesOf(tenantId, webhook.webhook_id), ([d]) => d?.attempts.length === 1, { timeoutMillis: 15_000 })
        assert.strictEqual(delivery.status, "retrying")
        // It waited out the timeout rather than failing early (timers and the clock read may differ by a millisecond or so).
        assert.isAtLeast(delivery.attempts[0].latency_ms, 4_900)
        assert.match(delivery.attempts[0].error!, /^timeout/)
      })).pipe(Effect.scoped, Effect.provide(services)))

  it.live("in real time, retries come after their waits", () =>
    withReceiver((receiver) =>
      Effect.gen(function*() {
        receiver.answer((r) => (receiver.received.indexOf(r) < 2 ? { status: 503 } : { status: 200 }))
        const { tenantId, webhook, workspace } = yield* setup(receiver)
        yield* Effect.forkScoped(WebhookDispatcher.run({ ...WebhookDispatcher.defaults, pollMillis: 50, waitsSeconds: [1, 2] }))
        yield* EventPublisher.publish(tenantId, "export.succeeded", workspace.workspace_id, exportSucceeded)
        const [first, second, third] = yield* Effect.promise(() => receiver.waitFor(3, 15_000))
        assert.isAtLeast(second.at - first.at, 1_000)
        assert.isAtLeast(third.at - second.at, 2_000)
        const [delivery] = yield* eventually(deliveriesOf(tenantId, webhook.webhook_id), ([d]) => d?.status === "succeeded")
        assert.deepStrictEqual(delivery.attempts.map((a) => a.status_code), [503, 503, 200])
      })).pipe(Effect.scoped, Effect.provide(services)))

  it.effect("one slow receiver does not hold up another", () =>
    Effect.gen(function*() {
      const slow = yield* Effect.promise(() => Receiver.start())
      const fast = yield* Effect.promise(() => Receiver.start())
      yield* Effect.addFinalizer(() => Effect.promise(() => Promise.all([slow.close(), fast.close()])))
      slow.answer("hang")
      const a = yield* setup(slow)
      const b = yield* setup(fast)
      yield* Effect.forkScoped(WebhookDispatcher.run({ ...WebhookDispatcher.defaults, perWebhook: 2, concurrency: 4, attemptTimeoutMillis: 2_000 }))
      for (let i = 0; i < 10; i++) yield* EventPublisher.publish(a.tenantId, "export.succeeded", a.workspace.workspace_id, exportSucceeded)
      for (let i = 0; i < 5; i++) yield* EventPublisher.publish(b.tenantId, "export.succeeded", b.workspace.workspace_id, exportSucceeded)
      yield* Effect.promise(() => fast.waitFor(5, 1_900))
      assert.isAtMost(slow.received.length, 2)
    }).pipe(Effect.scoped, Effect.provide(services)))
})

