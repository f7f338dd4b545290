/**
 * The WebhookStore and the DeliveryStore in memory, over one shared state
 * (publishing reads the webhooks that hear an event). Published deliveries
 * become visible when the publishing transaction commits.
 *
 * @since 0.1.0
 */
import { DeliveryStore, Ids, Pagination, TenantStore, Webhook, WebhookStore } from "@analytics/core"
import { Effect, PubSub, Stream } from "effect"
import { afterCommit, restore, set, write } from "./Transactions.ts"

interface Row {
  delivery: Webhook.Delivery
  readonly body: string
  lease: string | undefined
  leaseUntil: number
}

const unchanged = () => {}

/** Both stores, sharing their state; the TenantStore tells the tenants' plans. */
export const make = Effect.gen(function*() {
  const tenants = yield* TenantStore.TenantStore
  const webhooks = new Map<string, Webhook.Webhook>()
  const rows = new Map<string, Row>()
  /** Unfinished deliveries: what `claim` looks through. */
  const active = new Set<string>()
  const wakeups = yield* PubSub.sliding<void>(1)
  const wake = () => PubSub.publishUnsafe(wakeups, undefined)

  const ofTenant = (tenantId: string, webhookId: string) => {
    const webhook = webhooks.get(webhookId)
    return webhook !== undefined && webhook.tenant_id === tenantId ? webhook : undefined
  }
  const deliveryOf = (tenantId: string, webhookId: string, deliveryId: string) => {
    const row = rows.get(deliveryId)
    return row !== undefined && row.delivery.tenant_id === tenantId && row.delivery.webhook_id === webhookId ? row : undefined
  }
  /** Changes a row's delivery, keeping `active` in step; returns the undo. */
  const change = (row: Row, delivery: Webhook.Delivery): () => void => {
    const previous = row.delivery
    row.delivery = delivery
    const track = (d: Webhook.Delivery) => Webhook.isFinished(d.status) ? active.delete(d.delivery_id) : active.add(d.delivery_id)
    track(delivery)
    return () => {
      row.delivery = previous
      track(previous)
    }
  }
  const restarted = (delivery: Webhook.Delivery, now: Date): Webhook.Delivery => ({
    ...delivery,
    status: "pending",
    failures: 0,
    next_attempt_at: now,
    updated_at: now
  })
  /** New deliveries, visible (and announced) once the transaction commits. */
  const add = (deliveries: ReadonlyArray<{ readonly delivery: Webhook.Delivery; readonly body: string }>) =>
    afterCommit(() => {
      for (const { body, delivery } of deliveries) {
        rows.set(delivery.delivery_id, { delivery, body, lease: undefined, leaseUntil: 0 })
        active.add(delivery.delivery_id)
      }
      if (deliveries.length > 0) wake()
    })
  const newDelivery = (webhook: Webhook.Webhook, event: Webhook.Delivery["event"], now: Date) =>
    Effect.map(Ids.uuidv7, (id): Webhook.Delivery => ({
      delivery_id: id as Webhook.DeliveryId,
      tenant_id: webhook.tenant_id,
      webhook_id: webhook.webhook_id,
      event,
      status: "pending",
      attempts: [],
      failures: 0,
      next_attempt_at: now,
      created_at: now,
      updated_at: now
    }))
  /** Drops a row's lease (its worker's settlement will be refused); returns the undo. */
  const release = (row: Row): () => void => {
    const { lease, leaseUntil } = row
    row.lease = undefined
    row.leaseUntil = 0
    return () => {
      row.lease = lease
      row.leaseUntil = leaseUntil
    }
  }
  const failUnfinished = (webhookId: string, now: Date) => {
    const undos: Array<() => void> = []
    for (const id of active) {
      const row = rows.get(id)!
      if (row.delivery.webhook_id !== webhookId) continue
      undos.push(change(row, { ...row.delivery, status: "failed", next_attempt_at: null, updated_at: now }), release(row))
    }
    return [undos.length / 2, () => undos.reverse().forEach((undo) => undo())] as const
  }

  const webhookStore = WebhookStore.WebhookStore.of({
    insert: (webhook) => write(() => [undefined, set(webhooks, webhook.webhook_id, webhook)]),
    find: (tenantId, webhookId) => Effect.sync(() => ofTenant(tenantId, webhookId)),
    list: (tenantId, query) =>
      Effect.sync(() =>
        Pagination.applyInMemory(
          [...webhooks.values()].filter((w) => w.tenant_id === tenantId),
          query,
          WebhookStore.webhookKey,
          (w) => w.created_at
        )
      ),
    update: (webhook) =>
      write(() =>
        ofTenant(webhook.tenant_id, webhook.webhook_id) === undefined
          ? [false, unchanged]
          : [true, set(webhooks, webhook.webhook_id, webhook)]
      ),
    remove: (tenantId, webhookId) =>
      write(() => {
        if (ofTenant(tenantId, webhookId) === undefined) return [false, unchanged]
        const undos = [restore(webhooks, webhookId)]
        webhooks.delete(webhookId)
        for (const [id, row] of rows) {
          if (row.delivery.webhook_id !== webhookId) continue
          undos.push(restore(rows, id))
          rows.delete(id)
          if (active.delete(id)) undos.push(() => active.add(id))
        }
        return [true, () => undos.reverse().forEach((undo) => undo())]
      })
  })

  const deliveryStore = DeliveryStore.DeliveryStore.of({
    publish: (tenantId, event, now) =>
      Effect.gen(function*() {
        // Most events (every audited change) have no webhook that hears them: found before the tenant is read.
        const hearing = [...webhooks.values()].filter((w) => w.tenant_id === tenantId && Webhook.hears(w, event))
        if (hearing.length === 0) return 0
        // The firehose reaches Scale tenants only, whatever they subscribed to before a change of plan.
        if (event.type === Webhook.firehose) {
          const tenant = yield* tenants.findTenant(tenantId)
          if (tenant === undefined || !Webhook.mayHear(tenant.plan, [event.type])) return 0
        }
        // Written once for every delivery, and only when one hears it: most events (every audited change) have none.
        const body = JSON.stringify(event)
        const deliveries = []
        for (const webhook of hearing) deliveries.push({ delivery: yield* newDelivery(webhook, event, now), body })
        yield* add(deliveries)
        return deliveries.length
      }),
    enqueue: (webhook, event, now) =>
      Effect.gen(function*() {
        const delivery = yield* newDelivery(webhook, event, now)
        yield* add([{ delivery, body: JSON.stringify(event) }])
        return delivery
      }),
    find: (tenantId, webhookId, deliveryId) => Effect.sync(() => deliveryOf(tenantId, webhookId, deliveryId)?.delivery),
    list: (tenantId, webhookId, query, filter) =>
      Effect.sync(() => {
        const matching: Array<Webhook.Delivery> = []
        for (const row of rows.values()) {
          const d = row.delivery
          if (d.tenant_id === tenantId && d.webhook_id === webhookId && Webhook.matches(d, filter)) matching.push(d)
        }
        return Pagination.applyInMemory(matching, query, DeliveryStore.deliveryKey, (d) => d.created_at)
      }),
    tally: (tenantId, webhookId, since) =>
      Effect.sync(() => {
        let succeeded = 0
        let failed = 0
        for (const row of rows.values()) {
          const d = row.delivery
          if (d.tenant_id !== tenantId || d.webhook_id !== webhookId || d.updated_at < since) continue
          for (const a of d.attempts) {
            if (a.attempted_at < since) continue
            if (a.error === null) succeeded++
            else failed++
          }
        }
        return { succeeded, failed }
      }),
    restart: (tenantId, webhookId, deliveryId, now) =>
      write((): readonly [Webhook.Delivery | undefined, () => void] => {
        const row = deliveryOf(tenantId, webhookId, deliveryId)
        if (row === undefined || !Webhook.isFinished(row.delivery.status)) return [undefined, unchanged]
        const next = restarted(row.delivery, now)
        return [next, change(row, next)]
      }).pipe(Effect.tap((delivery) => delivery === undefined ? Effect.void : afterCommit(wake))),
    restartFailed: (tenantId, webhookId, range, now) =>
      write(() => {
        const undos: Array<() => void> = []
        for (const row of rows.values()) {
          const d = row.delivery
          if (d.tenant_id !== tenantId || d.webhook_id !== webhookId || d.status !== "failed") continue
          if (d.created_at < range.from || d.created_at >= range.to) continue
          undos.push(change(row, restarted(d, now)))
        }
        return [undos.length, () => undos.forEach((undo) => undo())] as const
      }).pipe(Effect.tap((n) => n === 0 ? Effect.void : afterCommit(wake))),
    failUnfinished: (tenantId, webhookId, now) =>
      write(() => ofTenant(tenantId, webhookId) === undefined ? [0, unchanged] : failUnfinished(webhookId, now)),
    claim: (request) =>
      Effect.gen(function*() {
        const now = request.now.getTime()
        const due: Array<Row> = []
        for (const id of active) {
          const row = rows.get(id)!
          const d = row.delivery
          if (d.next_attempt_at === null || d.next_attempt_at.getTime() > now || row.leaseUntil > now) continue
          if (!webhooks.get(d.webhook_id)?.enabled || request.exclude.includes(d.webhook_id)) continue
          due.push(row)
        }
        due.sort((a, b) => a.delivery.next_attempt_at!.getTime() - b.delivery.next_attempt_at!.getTime())
        const perWebhook = new Map<string, number>()
        const claims: Array<DeliveryStore.Claim> = []
        for (const row of due) {
          if (claims.length >= request.limit) break
          const taken = perWebhook.get(row.delivery.webhook_id) ?? 0
          if (taken >= request.perWebhook) continue
          perWebhook.set(row.delivery.webhook_id, taken + 1)
          row.lease = yield* Ids.uuidv7
          row.leaseUntil = now + request.leaseMillis
          claims.push({ delivery: row.delivery, webhook: webhooks.get(row.delivery.webhook_id)!, body: row.body, lease: row.lease })
        }
        return claims
      }),
    nextDue: (exclude) =>
      Effect.sync(() => {
        let next: number | undefined
        for (const id of active) {
          const row = rows.get(id)!
          const d = row.delivery
          if (d.next_attempt_at === null || !webhooks.get(d.webhook_id)?.enabled || exclude.includes(d.webhook_id)) continue
          const due = Math.max(d.next_attempt_at.getTime(), row.leaseUntil)
          if (next === undefined || due < next) next = due
        }
        return next === undefined ? undefined : new Date(next)
      }),
    settle: (claim, settlement, now) =>
      write((): readonly [boolean, () => void] => {
        const row = rows.get(claim.delivery.delivery_id)
        if (row === undefined || row.lease !== claim.lease) return [false, unchanged]
        const undos = [change(row, {
          ...row.delivery,
          status: settlement.status,
          attempts: [...row.delivery.attempts, settlement.attempt],
          failures: settlement.failures,
          next_attempt_at: settlement.nextAttemptAt,
          updated_at: now
        })]
        undos.push(release(row))
        const webhook = webhooks.get(claim.webhook.webhook_id)
        if (settlement.disableWebhook !== undefined && webhook !== undefined && webhook.enabled) {
          undos.push(set(webhooks, webhook.webhook_id, {
            ...webhook,
            enabled: false,
            disabled_reason: settlement.disableWebhook,
            updated_at: now
          }))
          undos.push(failUnfinished(webhook.webhook_id, now)[1])
        }
        return [true, () => undos.reverse().forEach((undo) => undo())]
      }),
    purgeFinished: (before) =>
      write(() => {
        const undos: Array<() => void> = []
        for (const [id, row] of rows) {
          if (!Webhook.isFinished(row.delivery.status) || row.delivery.updated_at >= before) continue
          undos.push(restore(rows, id))
          rows.delete(id)
        }
        return [undos.length, () => undos.forEach((undo) => undo())] as const
      }),
    wakeups: Effect.map(PubSub.subscribe(wakeups), Stream.fromSubscription)
  })

  return { webhookStore, deliveryStore }
})
