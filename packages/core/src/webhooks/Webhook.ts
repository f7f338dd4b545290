/**
 * Webhook registrations (decision 0010) and their deliveries: the records,
 * what a client may send, and the rules that are not storage.
 *
 * A webhook belongs to a tenant and hears the events of every workspace of
 * it, or of one workspace when `workspace_id` is set.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { Envelope, EventType } from "./Events.ts"
import { EventType as EventTypeSchema } from "./Events.ts"
import { Uuid } from "../platform/Ids.ts"
import type { Plan } from "../tenancy/Plan.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { Secrets } from "./WebhookSecrets.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"
import { TaggedFailure } from "../platform/Errors.ts"

/** A webhook's identifier. */
export const WebhookId = Uuid.pipe(Schema.brand("WebhookId"))
/** A webhook's identifier. */
export type WebhookId = typeof WebhookId.Type

/** A delivery's identifier. */
export const DeliveryId = Uuid.pipe(Schema.brand("DeliveryId"))
/** A delivery's identifier. */
export type DeliveryId = typeof DeliveryId.Type

/** Who registered a webhook: the one told when it is disabled. */
export interface Owner {
  readonly userId: string
  readonly email: string | null
}

/** A webhook as stored. */
export interface Webhook {
  readonly webhook_id: WebhookId
  readonly tenant_id: TenantId
  /** Only this workspace's events; `null`: every workspace of the tenant. */
  readonly workspace_id: WorkspaceId | null
  readonly url: string
  readonly events: ReadonlyArray<EventType>
  readonly description: string | null
  readonly enabled: boolean
  /** Why it was disabled (by its owner, or because its receiver answered 404/410); `null` while enabled. */
  readonly disabled_reason: string | null
  readonly owner: Owner
  readonly secrets: Secrets
  readonly created_at: Date
  readonly updated_at: Date
}


/** Subscribed event types: at least one, each from the catalog, no repeats. */
export const Events = Schema.Array(EventTypeSchema).check(
  Schema.isMinLength(1),
  Schema.makeFilter((types) => new Set(types).size === types.length || "Each event type is listed once")
).annotate({ description: "Event types from the catalog (GET /v1/event-types)" })

/** A client-supplied secret: 24 to 256 printable ASCII characters. */
export const Secret = Schema.String.check(
  Schema.isMinCodePoints(24),
  Schema.isMaxCodePoints(256),
  Schema.isPattern(/^[\x21-\x7e]+$/, { message: "Expected printable ASCII without spaces" })
).annotate({ description: "At least 24 printable ASCII characters; generated (whsec_ + 256 random bits) when omitted" })

/** A description: up to 500 characters. */
export const Description = Schema.String.check(Schema.isMaxCodePoints(500))

/** What a client sends to register a webhook (decision 0010 and ours). */
export const WebhookCreate = Schema.Struct({
  url: Schema.String.annotate({ description: "An absolute https:// URL" }),
  events: Events,
  secret: Schema.optionalKey(Secret),
  description: Schema.optionalKey(Description),
  workspace_id: Schema.optionalKey(Uuid.annotate({ description: "Only this workspace's events; all when omitted" }))
})
/** What a client sends to register a webhook. */
export type WebhookCreate = typeof WebhookCreate.Type

/** What a client may change; the rest is fixed at registration. */
export const WebhookUpdate = Schema.Struct({
  url: Schema.optionalKey(Schema.String),
  events: Schema.optionalKey(Events),
  description: Schema.optionalKey(Schema.NullOr(Description)),
  enabled: Schema.optionalKey(Schema.Boolean)
})
/** What a client may change. */
export type WebhookUpdate = typeof WebhookUpdate.Type

/** The firehose event, open to the Scale plan only (decision 0010). */
export const firehose: EventType = "audit.event"

/** The firehose asked for on a plan other than Scale. */
export class FirehoseNeedsScalePlan extends TaggedFailure("FirehoseNeedsScalePlan")<{
  readonly plan: Plan
}> {
  readonly code = "webhook/firehose-not-in-plan" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `audit.event is available on the Scale plan; this tenant is on ${this.plan}`
  }
}

/** Whether a tenant on `plan` may subscribe to `events`. */
export const mayHear = (plan: Plan, events: ReadonlyArray<EventType>): boolean =>
  plan === "scale" || !events.includes(firehose)

/**
 * Whether a webhook hears an event (enabled, subscribed to its type, and of
 * its workspace if it has one). A tenant-wide event (`workspace_id` `"*"`)
 * is heard by the webhooks of the whole tenant only, not by one scoped to a
 * workspace (decision 0010).
 */
export const hears = (webhook: Webhook, event: Envelope): boolean =>
  webhook.enabled && webhook.events.includes(event.type) &&
  (webhook.workspace_id === null || webhook.workspace_id === event.workspace_id)

// --- deliveries ---------------------------------------------------------------

/**
 * Where a delivery stands (decision 0010): `pending` until its first attempt,
 * `retrying` between failed attempts, then `succeeded` or `failed`.
 * A manual re-delivery puts a finished delivery back to `pending`.
 */
export const DeliveryStatus = Schema.Literals(["pending", "retrying", "succeeded", "failed"])
/** Where a delivery stands. */
export type DeliveryStatus = typeof DeliveryStatus.Type

/** One attempt, as the deliveries log shows it. */
export interface Attempt {
  readonly attempted_at: Date
  /** The receiver's answer; `null` when there was none (network error, timeout, refused address). */
  readonly status_code: number | null
  readonly latency_ms: number
  /** What went wrong, in words; `null` on success. */
  readonly error: string | null
  /**
   * The start of the receiver's answer body, as text, at most 1 KB
   * (`WebhookTransport.excerptBytes`); `null` when there was no answer or
   * its body was empty or not text. Older attempts have none.
   */
  readonly response_excerpt?: string | null | undefined
  /**
   * The headers the attempt was sent with (names in lower case); `null` or
   * absent on attempts made before they were kept (decision 0010).
   */
  readonly request_headers?: Headers | null | undefined
  /**
   * The receiver's answer headers, at most `WebhookTransport.keptHeaders`
   * of them, each value cut at `keptHeaderBytes`; `null` when there was no
   * answer (and on older attempts).
   */
  readonly response_headers?: Headers | null | undefined
}

/** HTTP headers as an attempt keeps them: lower-case names, one value each. */
export type Headers = Readonly<Record<string, string>>

/** How many attempts of a webhook succeeded and failed since an instant (`DeliveryStore.tally`). */
export interface Tally {
  readonly succeeded: number
  readonly failed: number
}

/** One event on its way to one webhook. */
export interface Delivery {
  readonly delivery_id: DeliveryId
  readonly tenant_id: TenantId
  readonly webhook_id: WebhookId
  readonly event: Envelope
  readonly status: DeliveryStatus
  /** Every attempt, oldest first, across re-deliveries. */
  readonly attempts: ReadonlyArray<Attempt>
  /** Failed attempts since the delivery was last (re)started: where it is in the retry schedule. */
  readonly failures: number
  /** When the next attempt is due; `null` once finished. */
  readonly next_attempt_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}


/** Filters of a deliveries list. */
export interface DeliveryFilter {
  readonly status?: DeliveryStatus | undefined
  readonly eventType?: EventType | undefined
}

/** Whether a delivery matches a filter. */
export const matches = (delivery: Delivery, filter: DeliveryFilter): boolean =>
  (filter.status === undefined || delivery.status === filter.status) &&
  (filter.eventType === undefined || delivery.event.type === filter.eventType)

/** Whether a delivery has finished (and may be re-delivered). */
export const isFinished = (status: DeliveryStatus): boolean => status === "succeeded" || status === "failed"
