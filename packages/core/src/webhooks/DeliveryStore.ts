/**
 * Port: the transactional outbox and the delivery queue of webhooks.
 *
 * `publish` writes an event's deliveries in the transaction of the change
 * that caused it: no committed change loses its event, no rolled-back change
 * emits one. Workers `claim` due deliveries under a lease (several hosts may
 * claim from one store; a crashed worker's leases run out and its deliveries
 * are claimed again) and `settle` each attempt's result.
 *
 * @since 0.1.0
 */
import { Context, type Effect, type Scope, type Stream } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { Envelope } from "./Events.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { Attempt, Delivery, DeliveryFilter, DeliveryId, DeliveryStatus, Tally, Webhook, WebhookId } from "./Webhook.ts"

/** The keyset position of a delivery (lists sort by `created_at`). */
export const deliveryKey = (delivery: Delivery): Keyset => ({ value: delivery.created_at.getTime(), id: delivery.delivery_id })

/** A due delivery a worker holds under a lease. */
export interface Claim {
  readonly delivery: Delivery
  readonly webhook: Webhook
  /** The envelope exactly as published: the body of every attempt. */
  readonly body: string
  /** Proves the lease when settling; a worker whose lease ran out settles nothing. */
  readonly lease: string
}

/** What one attempt did to a delivery. */
export interface Settlement {
  readonly attempt: Attempt
  readonly status: DeliveryStatus
  readonly failures: number
  readonly nextAttemptAt: Date | null
  /** The receiver is gone (404/410): disable the webhook for this reason, failing its unfinished deliveries. */
  readonly disableWebhook?: string | undefined
}

/** How many due deliveries one claim takes. */
export interface ClaimRequest {
  readonly now: Date
  readonly leaseMillis: number
  readonly limit: number
  /** At most this many deliveries of one webhook per claim. */
  readonly perWebhook: number
  /** Webhooks already at their concurrency bound on this worker. */
  readonly exclude: ReadonlyArray<WebhookId>
}

/** The outbox and queue of webhook deliveries. */
export class DeliveryStore extends Context.Service<DeliveryStore, {
  /** Fans an event out to every enabled webhook of the tenant that hears it; the number of deliveries. */
  readonly publish: (tenantId: TenantId, event: Envelope, now: Date) => Effect.Effect<number, StoreError>
  /** One delivery of an event to one webhook, whatever it subscribes to (a test send). */
  readonly enqueue: (webhook: Webhook, event: Envelope, now: Date) => Effect.Effect<Delivery, StoreError>
  readonly find: (tenantId: TenantId, webhookId: WebhookId, deliveryId: DeliveryId) => Effect.Effect<Delivery | undefined, StoreError>
  /** One page of a webhook's deliveries, in `Pagination.applyInMemory` order. */
  readonly list: (
    tenantId: TenantId,
    webhookId: WebhookId,
    query: PageQuery<"created_at">,
    filter: DeliveryFilter
  ) => Effect.Effect<ReadonlyArray<Delivery>, StoreError>
  /**
   * How many attempts of a webhook made at or after `since` succeeded (no
   * error) and failed, across its deliveries (re-deliveries included): the
   * success rate of decision 0010.
   */
  readonly tally: (tenantId: TenantId, webhookId: WebhookId, since: Date) => Effect.Effect<Tally, StoreError>
  /** Starts a finished delivery again, due `now` with a fresh schedule; `undefined` unless it was finished. */
  readonly restart: (
    tenantId: TenantId,
    webhookId: WebhookId,
    deliveryId: DeliveryId,
    now: Date
  ) => Effect.Effect<Delivery | undefined, StoreError>
  /** Starts again every failed delivery of a webhook created in [from, to); how many. */
  readonly restartFailed: (
    tenantId: TenantId,
    webhookId: WebhookId,
    range: { readonly from: Date; readonly to: Date },
    now: Date
  ) => Effect.Effect<number, StoreError>
  /** Fails a webhook's unfinished deliveries (it was disabled); how many. */
  readonly failUnfinished: (tenantId: TenantId, webhookId: WebhookId, now: Date) => Effect.Effect<number, StoreError>
  /** Leases due deliveries of enabled webhooks, oldest due first. */
  readonly claim: (request: ClaimRequest) => Effect.Effect<ReadonlyArray<Claim>, StoreError>
  /** When the next delivery of an enabled webhook not in `exclude` comes due (or its lease runs out); `undefined`: none is waiting. */
  readonly nextDue: (exclude: ReadonlyArray<WebhookId>) => Effect.Effect<Date | undefined, StoreError>
  /** Records an attempt under the claim's lease; `false` (nothing written) when the lease was lost. */
  readonly settle: (claim: Claim, settlement: Settlement, now: Date) => Effect.Effect<boolean, StoreError>
  /** Deletes finished deliveries last changed before `before` (the log's retention); how many. */
  readonly purgeFinished: (before: Date) => Effect.Effect<number, StoreError>
  /** Signals that deliveries may have become due (published or restarted here or, on PostgreSQL, by any host). */
  readonly wakeups: Effect.Effect<Stream.Stream<void>, never, Scope.Scope>
}>()("@analytics/core/DeliveryStore") {}
