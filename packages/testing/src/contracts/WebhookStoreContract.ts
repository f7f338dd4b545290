/**
 * The webhook part of the store contract: registrations, the outbox
 * (publish commits with its transaction or not at all), the lease-based
 * queue (claim, settle, lease expiry, per-webhook bound) and the deliveries
 * log. Run by `storeContract` on every adapter.
 *
 * @since 0.1.0
 */
import { DeliveryStore, Events, Ids, Pagination, Tenant, TenantStore, Transactor, Webhook, WebhookStore } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, type Vitest } from "@effect/vitest"
import { Data, Effect, Exit, Fiber, Stream } from "effect"
import { insertTenant, insertWorkspace } from "../Fixtures.ts"

const t0 = 1_800_000_000_000
const at = (offset: number) => new Date(t0 + offset)

const makeTenant = Effect.map(insertTenant({ name: "Hooks", plan: "scale", createdAt: at(0) }), (t) => t.tenant_id)

const makeWorkspace = (tenantId: Tenant.TenantId) => Effect.map(insertWorkspace(tenantId, "Ops", at(0)), (w) => w.workspace_id)

const makeWebhook = (tenantId: Tenant.TenantId, overrides: Partial<Webhook.Webhook> = {}) =>
  Effect.gen(function*() {
    const webhook: Webhook.Webhook = {
      webhook_id: (yield* Ids.uuidv7) as Webhook.WebhookId,
      tenant_id: tenantId,
      workspace_id: null,
      url: "https://hooks.example.com/in",
      events: ["export.succeeded", "alert.fire"],
      description: null,
      enabled: true,
      disabled_reason: null,
      owner: { userId: "u-1", email: "owner@example.com" },
      secrets: { current: "whsec_current-secret-of-24-chars" },
      created_at: at(0),
      updated_at: at(0),
      ...overrides
    }
    yield* (yield* WebhookStore.WebhookStore).insert(webhook)
    return webhook
  })

const event = (type: Events.EventType, workspaceId: string) =>
  Effect.orDie(Events.make(type, Events.tenantWide.has(type) ? Events.everyWorkspace : workspaceId, Events.examples[type]))

const page: Pagination.PageQuery<"created_at"> = {
  take: 100,
  sort: { field: "created_at", direction: "desc" },
  after: undefined,
  createdAtOrBefore: new Date(8_000_000_000_000)
}

/** Claims everything due at `now` and keeps what belongs to `webhooks` (other tests' deliveries share the store). */
const claimOf = (webhooks: ReadonlyArray<Webhook.Webhook>, now: Date, options: { perWebhook?: number; exclude?: ReadonlyArray<Webhook.WebhookId> } = {}) =>
  Effect.flatMap(DeliveryStore.DeliveryStore, (store) =>
    store.claim({ now, leaseMillis: 30_000, limit: 1_000, perWebhook: options.perWebhook ?? 1_000, exclude: options.exclude ?? [] })).pipe(
    Effect.map((claims) => claims.filter((c) => webhooks.some((w) => w.webhook_id === c.webhook.webhook_id)))
  )

const attempt = (offset: number, status: number | null): Webhook.Attempt => ({
  attempted_at: at(offset),
  status_code: status,
  latency_ms: 12,
  error: status === 200 ? null : "The receiver answered 500",
  // The receiver's answer, kept with the attempt (text, any characters).
  response_excerpt: status === 200 ? null : "{\"error\":\"busy, try later\"} — é \u2028",
  // The headers sent and answered, kept in the attempt (decision 0010).
  request_headers: { "content-type": "application/json", "x-service-event": "alert.fire", "x-service-signature": "t=1,v1=ab" },
  response_headers: status === null ? null : { "content-type": "text/plain; charset=utf-8", "x-trace": "é ü \u2028", "set-cookie": "a=1, b=2" }
})

class Rollback extends Data.TaggedError("Rollback")<{}> {}

/** Registers the webhook tests inside a store contract's layer. */
export const webhookStoreContract = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("webhooks round-trip, are scoped by tenant, list newest first and update", () =>
    Effect.gen(function*() {
      const store = yield* WebhookStore.WebhookStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const workspace = yield* makeWorkspace(tenant)
      const w1 = yield* makeWebhook(tenant, { created_at: at(1_000), updated_at: at(1_000) })
      const w2 = yield* makeWebhook(tenant, {
        created_at: at(2_000),
        updated_at: at(2_000),
        workspace_id: workspace,
        description: "ops",
        owner: { userId: "u-2", email: null },
        secrets: { current: "whsec_new-secret-of-24-chars!", previous: { secret: "whsec_old-secret-of-24-chars!", until: t0 + 9 } }
      })
      assert.deepStrictEqual(yield* store.find(tenant, w2.webhook_id), w2)
      assert.strictEqual(yield* store.find(other, w2.webhook_id), undefined)
      assert.strictEqual(yield* store.find(tenant, "not-a-uuid" as Webhook.WebhookId), undefined)
      assert.deepStrictEqual((yield* store.list(tenant, page)).map((w) => w.webhook_id), [w2.webhook_id, w1.webhook_id])
      const after = yield* store.list(tenant, { ...page, after: { value: w2.created_at.getTime(), id: w2.webhook_id } })
      assert.deepStrictEqual(after.map((w) => w.webhook_id), [w1.webhook_id])
      assert.deepStrictEqual(yield* store.list(other, page), [])
      const changed: Webhook.Webhook = { ...w1, url: "https://b.example.com/", events: ["audit.event"], enabled: false, disabled_reason: "x", updated_at: at(3_000) }
      assert.isTrue(yield* store.update(changed))
      assert.deepStrictEqual(yield* store.find(tenant, w1.webhook_id), changed)
      assert.isFalse(yield* store.update({ ...changed, tenant_id: other }))
      assert.isFalse(yield* store.remove(other, w1.webhook_id))
      assert.isTrue(yield* store.remove(tenant, w1.webhook_id))
      assert.strictEqual(yield* store.find(tenant, w1.webhook_id), undefined)
    }))

  it.effect("publish fans out to the enabled webhooks that hear the type and workspace, in this tenant only", () =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveryStore.DeliveryStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const ws = yield* makeWorkspace(tenant)
      const elsewhere = yield* makeWorkspace(tenant)
      const all = yield* makeWebhook(tenant)
      const mine = yield* makeWebhook(tenant, { workspace_id: ws })
      const theirs = yield* makeWebhook(tenant, { workspace_id: elsewhere })
      const alertsOnly = yield* makeWebhook(tenant, { events: ["alert.fire"] })
      const disabled = yield* makeWebhook(tenant, { enabled: false, disabled_reason: "off" })
      const foreign = yield* makeWebhook(other)
      const e = yield* event("export.succeeded", ws)
      assert.strictEqual(yield* deliveries.publish(tenant, e, at(5_000)), 2)
      for (const w of [all, mine]) {
        const [d, ...rest] = yield* deliveries.list(tenant, w.webhook_id, page, {})
        assert.strictEqual(rest.length, 0)
        assert.deepStrictEqual(d.event, e)
        assert.strictEqual(d.status, "pending")
        assert.deepStrictEqual(d.attempts, [])
        assert.strictEqual(d.failures, 0)
        assert.deepStrictEqual(d.next_attempt_at, at(5_000))
        assert.deepStrictEqual(d.created_at, at(5_000))
        assert.deepStrictEqual(yield* deliveries.find(tenant, w.webhook_id, d.delivery_id), d)
        assert.strictEqual(yield* deliveries.find(other, w.webhook_id, d.delivery_id), undefined)
      }
      for (const w of [theirs, alertsOnly, disabled]) assert.deepStrictEqual(yield* deliveries.list(tenant, w.webhook_id, page, {}), [])
      assert.deepStrictEqual(yield* deliveries.list(other, foreign.webhook_id, page, {}), [])
      assert.strictEqual(yield* deliveries.publish(other, yield* event("scim.user.provisioned", ws), at(5_000)), 0)
    }))

  it.effect("the firehose reaches a Scale tenant only", () =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveryStore.DeliveryStore
      const tenants = yield* TenantStore.TenantStore
      const tenant = yield* makeTenant
      const ws = yield* makeWorkspace(tenant)
      yield* makeWebhook(tenant, { events: ["audit.event", "alert.fire"] })
      assert.strictEqual(yield* deliveries.publish(tenant, yield* event("audit.event", ws), at(5_500)), 1)
      // Moved to Growth: the subscription stays, the firehose stops (other events still flow).
      const current = (yield* tenants.findTenant(tenant))!
      assert.isTrue(yield* tenants.updateTenant(new Tenant.Tenant({ ...current, plan: "growth" })))
      assert.strictEqual(yield* deliveries.publish(tenant, yield* event("audit.event", ws), at(5_600)), 0)
      assert.strictEqual(yield* deliveries.publish(tenant, yield* event("alert.fire", ws), at(5_700)), 1)
    }))

  it.effect("a publish commits with its transaction, or not at all", () =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveryStore.DeliveryStore
      const transactor = yield* Transactor.Transactor
      const tenant = yield* makeTenant
      const ws = yield* makeWorkspace(tenant)
      const webhook = yield* makeWebhook(tenant)
      const failed = yield* Effect.exit(transactor.transaction(Effect.andThen(
        deliveries.publish(tenant, yield* event("alert.fire", ws), at(6_000)),
        Effect.fail(new Rollback())
      )))
      assert.isTrue(Exit.isFailure(failed))
      assert.deepStrictEqual(yield* deliveries.list(tenant, webhook.webhook_id, page, {}), [])
      assert.deepStrictEqual(yield* claimOf([webhook], at(7_000)), [])
      const e = yield* event("alert.fire", ws)
      assert.strictEqual(yield* transactor.transaction(deliveries.publish(tenant, e, at(6_000))), 1)
      const claims = yield* claimOf([webhook], at(7_000))
      assert.deepStrictEqual(claims.map((c) => c.delivery.event), [e])
      assert.strictEqual(claims[0].body, JSON.stringify(e))
    }))

  it.effect("publishing wakes the workers", () =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveryStore.DeliveryStore
      const tenant = yield* makeTenant
      yield* makeWebhook(tenant)
      const woken = yield* Effect.forkScoped(Stream.runHead(yield* deliveries.wakeups))
      yield* Effect.yieldNow
      yield* deliveries.publish(tenant, yield* event("alert.fire", yield* makeWorkspace(tenant)), at(6_000))
      assert.isTrue((yield* Fiber.join(woken))._tag === "Some")
    }).pipe(Effect.scoped))

  it.effect("claims lease due deliveries once, oldest first, within the per-webhook bound, until the lease runs out", () =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveryStore.DeliveryStore
      const tenant = yield* makeTenant
      const ws = yield* makeWorkspace(tenant)
      const a = yield* makeWebhook(tenant)
      const b = yield* makeWebhook(tenant)
      for (const offset of [10_000, 10_001, 10_002]) yield* deliveries.publish(tenant, yield* event("alert.fire", ws), at(offset))
      yield* deliveries.publish(tenant, yield* event("alert.fire", ws), at(20_000))
      assert.deepStrictEqual(yield* claimOf([a, b], at(9_999)), [])
      const first = yield* claimOf([a, b], at(10_002), { perWebhook: 2 })
      assert.strictEqual(first.length, 4)
      assert.deepStrictEqual(first.filter((c) => c.webhook.webhook_id === a.webhook_id).map((c) => c.delivery.created_at), [at(10_000), at(10_001)])
      assert.deepStrictEqual(first[0].webhook, a.webhook_id === first[0].webhook.webhook_id ? a : b)
      const second = yield* claimOf([a, b], at(10_002), { exclude: [b.webhook_id] })
      assert.deepStrictEqual(second.map((c) => [c.webhook.webhook_id, c.delivery.created_at]), [[a.webhook_id, at(10_002)]])
      const third = yield* claimOf([a, b], at(10_003))
      assert.deepStrictEqual(third.map((c) => [c.webhook.webhook_id, c.delivery.created_at]), [[b.webhook_id, at(10_002)]])
      assert.deepStrictEqual(yield* claimOf([a, b], at(10_003)), [])
      // 30 s later the leases taken at 10.002 s have run out (a crashed worker's deliveries are taken again);
      // the one taken at 10.003 s has not. The two published at 20 s are due too.
      const again = yield* claimOf([a, b], at(40_002))
      assert.strictEqual(again.length, 7)
      assert.notStrictEqual(again[0].lease, first[0].lease)
    }))

  it.effect("settling records the attempt under the lease; a lost lease settles nothing", () =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveryStore.DeliveryStore
      const tenant = yield* makeTenant
      const ws = yield* makeWorkspace(tenant)
      const webhook = yield* makeWebhook(tenant)
      yield* deliveries.publish(tenant, yield* event("export.succeeded", ws), at(50_000))
      const [claim] = yield* claimOf([webhook], at(50_000))
      const nextDue = () => Effect.flatMap(DeliveryStore.DeliveryStore, (store) => store.nextDue([]))
      // Other tests' deliveries share the store: only an upper bound holds for ours.
      assert.isAtMost((yield* nextDue())!.getTime(), t0 + 80_000)
      const retry = { attempt: attempt(50_000, 500), status: "retrying", failures: 1, nextAttemptAt: at(55_000) } as const
      assert.isTrue(yield* deliveries.settle(claim, retry, at(50_020)))
      assert.isFalse(yield* deliveries.settle(claim, retry, at(50_020)))
      assert.deepStrictEqual(yield* claimOf([webhook], at(54_999)), [])
      assert.isAtMost((yield* nextDue())!.getTime(), t0 + 55_000)
      const [next] = yield* claimOf([webhook], at(55_000))
      assert.deepStrictEqual(next.delivery.attempts, [attempt(50_000, 500)])
      assert.strictEqual(next.delivery.failures, 1)
      // Its lease runs out and another worker takes it: the first worker's settlement is refused.
      const [taken] = yield* claimOf([webhook], at(85_000))
      assert.isFalse(yield* deliveries.settle(next, { ...retry, attempt: attempt(55_000, 200), status: "succeeded", nextAttemptAt: null }, at(85_001)))
      assert.isTrue(yield* deliveries.settle(taken, { ...retry, attempt: attempt(85_000, 200), status: "succeeded", nextAttemptAt: null }, at(85_010)))
      const [done] = yield* deliveries.list(tenant, webhook.webhook_id, page, {})
      assert.strictEqual(done.status, "succeeded")
      assert.strictEqual(done.next_attempt_at, null)
      assert.deepStrictEqual(done.attempts, [attempt(50_000, 500), attempt(85_000, 200)])
      assert.deepStrictEqual(done.updated_at, at(85_010))
      assert.deepStrictEqual(yield* claimOf([webhook], at(999_000)), [])
    }))

  it.effect("tally counts a webhook's attempts since an instant, succeeded and failed, across its deliveries", () =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveryStore.DeliveryStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const ws = yield* makeWorkspace(tenant)
      const webhook = yield* makeWebhook(tenant)
      const quiet = yield* makeWebhook(tenant)
      assert.deepStrictEqual(yield* deliveries.tally(tenant, webhook.webhook_id, at(0)), { succeeded: 0, failed: 0 })
      yield* deliveries.publish(tenant, yield* event("alert.fire", ws), at(100_000))
      const claims = yield* claimOf([webhook], at(100_000))
      assert.strictEqual(claims.length, 1)
      yield* deliveries.publish(tenant, yield* event("export.succeeded", ws), at(100_010))
      const [second] = (yield* claimOf([webhook], at(100_010))).filter((c) => c.delivery.event.type === "export.succeeded")
      // The first: 500, then 200 at its retry; the second: 200.
      yield* deliveries.settle(claims[0], { attempt: attempt(100_000, 500), status: "retrying", failures: 1, nextAttemptAt: at(100_100) }, at(100_020))
      yield* deliveries.settle(second, { attempt: attempt(100_050, 200), status: "succeeded", failures: 0, nextAttemptAt: null }, at(100_055))
      const [retry] = (yield* claimOf([webhook], at(100_100))).filter((c) => c.delivery.delivery_id === claims[0].delivery.delivery_id)
      yield* deliveries.settle(retry, { attempt: attempt(100_100, 200), status: "succeeded", failures: 1, nextAttemptAt: null }, at(100_110))
      assert.deepStrictEqual(yield* deliveries.tally(tenant, webhook.webhook_id, at(100_000)), { succeeded: 2, failed: 1 })
      assert.deepStrictEqual(yield* deliveries.tally(tenant, webhook.webhook_id, at(100_001)), { succeeded: 2, failed: 0 })
      assert.deepStrictEqual(yield* deliveries.tally(tenant, webhook.webhook_id, at(100_060)), { succeeded: 1, failed: 0 })
      assert.deepStrictEqual(yield* deliveries.tally(tenant, webhook.webhook_id, at(100_101)), { succeeded: 0, failed: 0 })
      // Scoped by tenant and webhook.
      assert.deepStrictEqual(yield* deliveries.tally(other, webhook.webhook_id, at(0)), { succeeded: 0, failed: 0 })
      assert.deepStrictEqual(yield* deliveries.tally(tenant, quiet.webhook_id, at(0)), { succeeded: 0, failed: 0 })
      assert.deepStrictEqual(yield* deliveries.tally(tenant, "not-an-id" as Webhook.WebhookId, at(0)), { succeeded: 0, failed: 0 })
    }))

  it.effect("settling inside a transaction commits with it, or not at all", () =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveryStore.DeliveryStore
      const transactor = yield* Transactor.Transactor
      const tenant = yield* makeTenant
      const webhook = yield* makeWebhook(tenant)
      yield* deliveries.publish(tenant, yield* event("alert.fire", yield* makeWorkspace(tenant)), at(56_000))
      const [claim] = yield* claimOf([webhook], at(56_000))
      const done = { attempt: attempt(56_000, 200), status: "succeeded", failures: 0, nextAttemptAt: null } as const
      const failed = yield* Effect.exit(transactor.transaction(Effect.andThen(deliveries.settle(claim, done, at(56_010)), Effect.fail(new Rollback()))))
      assert.isTrue(Exit.isFailure(failed))
      const [untouched] = yield* deliveries.list(tenant, webhook.webhook_id, page, {})
      assert.deepStrictEqual([untouched.status, untouched.attempts], ["pending", []])
      assert.isTrue(yield* transactor.transaction(deliveries.settle(claim, done, at(56_020))))
      const [settled] = yield* deliveries.list(tenant, webhook.webhook_id, page, {})
      assert.strictEqual(settled.status, "succeeded")
    }))

  it.effect("a gone receiver disables its webhook and fails its unfinished deliveries; none is claimed", () =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveryStore.DeliveryStore
      const webhooks = yield* WebhookStore.WebhookStore
      const tenant = yield* makeTenant
      const ws = yield* makeWorkspace(tenant)
      const webhook = yield* makeWebhook(tenant)
      yield* deliveries.publish(tenant, yield* event("alert.fire", ws), at(60_000))
      yield* deliveries.publish(tenant, yield* event("alert.fire", ws), at(61_000))
      const [claim] = yield* claimOf([webhook], at(60_000))
      assert.isTrue(yield* deliveries.settle(claim, {
        attempt: attempt(60_000, 410),
        status: "failed",
        failures: 1,
        nextAttemptAt: null,
        disableWebhook: "The receiver answered 410"
      }, at(60_010)))
      const disabled = yield* webhooks.find(tenant, webhook.webhook_id)
      assert.strictEqual(disabled?.enabled, false)
      assert.strictEqual(disabled?.disabled_reason, "The receiver answered 410")
      const all = yield* deliveries.list(tenant, webhook.webhook_id, page, {})
      assert.deepStrictEqual(all.map((d) => d.status), ["failed", "failed"])
      assert.deepStrictEqual(yield* claimOf([webhook], at(999_000)), [])
    }))

  it.effect("re-delivery restarts a finished delivery; recovery restarts the failed ones of a time range; filters apply", () =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveryStore.DeliveryStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const ws = yield* makeWorkspace(tenant)
      const webhook = yield* makeWebhook(tenant)
      for (const offset of [70_000, 71_000, 72_000]) yield* deliveries.publish(tenant, yield* event("alert.fire", ws), at(offset))
      yield* deliveries.publish(tenant, yield* event("export.succeeded", ws), at(73_000))
      const claims = yield* claimOf([webhook], at(73_000))
      assert.strictEqual(claims.length, 4)
      const byTime = (claim: DeliveryStore.Claim) => claim.delivery.created_at.getTime()
      for (const claim of claims) {
        const ok = byTime(claim) === 73_000 + t0
        yield* deliveries.settle(claim, {
          attempt: attempt(byTime(claim) - t0, ok ? 200 : 500),
          status: ok ? "succeeded" : "failed",
          failures: ok ? 0 : 7,
          nextAttemptAt: null
        }, at(74_000))
      }
      assert.strictEqual((yield* deliveries.list(tenant, webhook.webhook_id, page, { status: "failed" })).length, 3)
      assert.deepStrictEqual(
        (yield* deliveries.list(tenant, webhook.webhook_id, page, { eventType: "export.succeeded" })).map((d) => d.status),
        ["succeeded"]
      )
      assert.deepStrictEqual(yield* deliveries.list(tenant, webhook.webhook_id, page, { status: "failed", eventType: "export.succeeded" }), [])
      const succeeded = claims.find((c) => byTime(c) === 73_000 + t0)!.delivery
      assert.strictEqual(yield* deliveries.restart(other, webhook.webhook_id, succeeded.delivery_id, at(80_000)), undefined)
      const restarted = yield* deliveries.restart(tenant, webhook.webhook_id, succeeded.delivery_id, at(80_000))
      assert.strictEqual(restarted?.status, "pending")
      assert.strictEqual(restarted?.failures, 0)
      assert.deepStrictEqual(restarted?.next_attempt_at, at(80_000))
      assert.strictEqual(restarted?.attempts.length, 1)
      assert.strictEqual(yield* deliveries.restart(tenant, webhook.webhook_id, succeeded.delivery_id, at(80_000)), undefined)
      assert.strictEqual(yield* deliveries.restartFailed(tenant, webhook.webhook_id, { from: at(71_000), to: at(72_500) }, at(80_000)), 2)
      assert.strictEqual(yield* deliveries.restartFailed(other, webhook.webhook_id, { from: at(0), to: at(99_000) }, at(80_000)), 0)
      const due = yield* claimOf([webhook], at(80_000))
      assert.deepStrictEqual(due.map((c) => byTime(c) - t0).sort(), [71_000, 72_000, 73_000])
      assert.isTrue(due.every((c) => c.delivery.failures === 0 && c.delivery.status === "pending"))
      assert.strictEqual(yield* deliveries.failUnfinished(tenant, webhook.webhook_id, at(81_000)), 3)
      // Failing drops the leases: recovered at once, they are claimed at once, and the old claims settle nothing.
      assert.strictEqual(yield* deliveries.restartFailed(tenant, webhook.webhook_id, { from: at(73_000), to: at(73_001) }, at(81_000)), 1)
      const [reclaimed, ...none] = yield* claimOf([webhook], at(81_000))
      assert.strictEqual(none.length, 0)
      const stale = due.find((c) => c.delivery.delivery_id === reclaimed.delivery.delivery_id)!
      assert.isFalse(yield* deliveries.settle(stale, { attempt: attempt(81_000, 500), status: "retrying", failures: 1, nextAttemptAt: at(86_000) }, at(81_001)))
      assert.strictEqual(yield* deliveries.failUnfinished(tenant, webhook.webhook_id, at(81_000)), 1)
      assert.deepStrictEqual((yield* deliveries.list(tenant, webhook.webhook_id, page, {})).map((d) => d.status), ["failed", "failed", "failed", "failed"])
    }))

  it.effect("purging deletes finished deliveries last changed before the cutoff, never unfinished ones", () =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveryStore.DeliveryStore
      const tenant = yield* makeTenant
      const ws = yield* makeWorkspace(tenant)
      const webhook = yield* makeWebhook(tenant)
      // Far in the past, before every other test's deliveries.
      const old = new Date(1_000_000_000_000)
      yield* deliveries.publish(tenant, yield* event("alert.fire", ws), old)
      yield* deliveries.publish(tenant, yield* event("alert.fire", ws), old)
      const [first] = yield* claimOf([webhook], old)
      yield* deliveries.settle(first, { attempt: attempt(0, 200), status: "succeeded", failures: 0, nextAttemptAt: null }, old)
      assert.strictEqual(yield* deliveries.purgeFinished(new Date(old.getTime() + 1)), 1)
      const left = yield* deliveries.list(tenant, webhook.webhook_id, page, {})
      assert.deepStrictEqual(left.map((d) => d.status), ["pending"])
    }))

  it.effect("removing a webhook removes its deliveries", () =>
    Effect.gen(function*() {
      const deliveries = yield* DeliveryStore.DeliveryStore
      const tenant = yield* makeTenant
      const webhook = yield* makeWebhook(tenant)
      const d = yield* deliveries.enqueue(webhook, yield* event("audit.event", yield* makeWorkspace(tenant)), at(90_000))
      assert.strictEqual(d.event.type, "audit.event")
      assert.deepStrictEqual(yield* deliveries.find(tenant, webhook.webhook_id, d.delivery_id), d)
      assert.isTrue(yield* (yield* WebhookStore.WebhookStore).remove(tenant, webhook.webhook_id))
      assert.strictEqual(yield* deliveries.find(tenant, webhook.webhook_id, d.delivery_id), undefined)
      assert.deepStrictEqual(yield* claimOf([webhook], at(999_000)), [])
    }))
}
