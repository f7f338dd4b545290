/**
 * Use cases on webhooks: registration, changes, secret rotation, test sends,
 * the deliveries log, re-delivery and recovery.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Result } from "effect"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import { DeliveryStore, deliveryKey } from "./DeliveryStore.ts"
import { type Issue, NotFound, orNotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import * as Events from "./Events.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { type InvalidSort, type NewestFirstRequest, type Page, paginateNewestFirst } from "../platform/Pagination.ts"
import type { Plan } from "../tenancy/Plan.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { Transactor } from "../platform/Transactor.ts"
import {
  type Delivery,
  type DeliveryFilter,
  type DeliveryId,
  FirehoseNeedsScalePlan,
  isFinished,
  mayHear,
  type Owner,
  type Tally,
  type Webhook,
  type WebhookCreate,
  type WebhookId,
  type WebhookUpdate
} from "./Webhook.ts"
import * as WebhookSecrets from "./WebhookSecrets.ts"
import { webhookKey, WebhookStore } from "./WebhookStore.ts"
import * as WebhookUrl from "./WebhookUrl.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"
import { WorkspaceStore } from "../tenancy/WorkspaceStore.ts"

/** Who manages webhooks: a member of a tenant on a plan. */
export interface Actor {
  readonly tenantId: TenantId
  readonly plan: Plan
  readonly owner: Owner
}

/** `workspace_id` names no workspace of the tenant. */
export class UnknownWorkspace extends TaggedFailure("UnknownWorkspace")<{
  readonly workspaceId: string
}> {
  readonly code = "request/invalid" as const
  /** The sentence its problem says: the issue says what is wrong. */
  get problemDetail(): string {
    return "The request failed validation; see errors"
  }
  /** The `workspace_id` given. */
  get issue(): Issue {
    return { path: ["body", "workspace_id"], message: `No workspace ${this.workspaceId} in this tenant` }
  }
}

/** Re-delivering a delivery that has not finished yet. */
export class DeliveryInProgress extends TaggedFailure("DeliveryInProgress")<{
  readonly deliveryId: DeliveryId
}> {
  readonly code = "webhook/delivery-in-progress" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `Delivery ${this.deliveryId} is still being attempted; re-deliver it once it has succeeded or failed`
  }
}

/** Sending to a disabled webhook (a test send, a re-delivery, a recovery). */
export class WebhookDisabled extends TaggedFailure("WebhookDisabled")<{
  readonly webhookId: WebhookId
}> {
  readonly code = "webhook/disabled" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `Webhook ${this.webhookId} is disabled; enable it first`
  }
}

const notFound = (webhookId: string) => new NotFound({ resource: "webhook", id: webhookId })

const checkUrl = (input: string) => Result.match(WebhookUrl.parse(input), { onSuccess: Effect.succeed, onFailure: Effect.fail })

const checkEvents = (plan: Plan, events: ReadonlyArray<Events.EventType>) =>
  mayHear(plan, events) ? Effect.void : Effect.fail(new FirehoseNeedsScalePlan({ plan }))

/** A webhook of the tenant, or `NotFound`. */
export const get = (
  tenantId: TenantId,
  webhookId: string
): Effect.Effect<Webhook, NotFound | StoreError, WebhookStore> =>
  Effect.flatMap(WebhookStore, (store) => store.find(tenantId, webhookId as WebhookId)).pipe(
    orNotFound("webhook", webhookId)
  )

/** Registers a webhook; the secret is returned this once (generated when not given). */
export const create = (
  actor: Actor,
  input: WebhookCreate
): Effect.Effect<
  { readonly webhook: Webhook; readonly secret: string },
  WebhookUrl.WebhookUrlRefused | FirehoseNeedsScalePlan | UnknownWorkspace | StoreError,
  WebhookStore | WorkspaceStore
> =>
  Effect.gen(function*() {
    const url = yield* checkUrl(input.url)
    yield* checkEvents(actor.plan, input.events)
    if (input.workspace_id !== undefined) {
      const workspace = yield* (yield* WorkspaceStore).find(actor.tenantId, input.workspace_id as WorkspaceId)
      if (workspace === undefined) return yield* new UnknownWorkspace({ workspaceId: input.workspace_id })
    }
    const secret = input.secret ?? (yield* WebhookSecrets.generate)
    const now = new Date(yield* Clock.currentTimeMillis)
    const webhook: Webhook = {
      webhook_id: (yield* uuidv7) as WebhookId,
      tenant_id: actor.tenantId,
      workspace_id: (input.workspace_id ?? null) as WorkspaceId | null,
      url,
      events: input.events,
      description: input.description ?? null,
      enabled: true,
      disabled_reason: null,
      owner: actor.owner,
      secrets: { current: secret },
      created_at: now,
      updated_at: now
    }
    yield* (yield* WebhookStore).insert(webhook)
    return { webhook, secret }
  })

/** One page of the tenant's webhooks, newest first. */
export const list = (
  tenantId: TenantId,
  request: NewestFirstRequest
): Effect.Effect<Page<Webhook>, StoreError | CursorError | InvalidSort, WebhookStore | CursorCodec> =>
  Effect.flatMap(WebhookStore, (store) =>
    paginateNewestFirst(request, (query) => store.list(tenantId, query), webhookKey))

/**
 * Changes a webhook's url, events, description or state. Disabling fails its
 * unfinished deliveries (recover them after enabling it again); enabling
 * clears the reason it was disabled, and whoever enables it owns it from
 * then on (its previous owner may have been deprovisioned).
 */
export const update = (
  actor: Actor,
  webhookId: string,
  change: WebhookUpdate
): Effect.Effect<
  Webhook,
  NotFound | WebhookUrl.WebhookUrlRefused | FirehoseNeedsScalePlan | StoreError,
  WebhookStore | DeliveryStore | Transactor
> =>
  Effect.gen(function*() {
    const url = change.url === undefined ? undefined : yield* checkUrl(change.url)
    if (change.events !== undefined) yield* checkEvents(actor.plan, change.events)
    const store = yield* WebhookStore
    const deliveries = yield* DeliveryStore
    return yield* (yield* Transactor).transaction(Effect.gen(function*() {
      const current = yield* get(actor.tenantId, webhookId)
      const now = new Date(yield* Clock.currentTimeMillis)
      const enabled = change.enabled ?? current.enabled
      const updated: Webhook = {
        ...current,
        url: url ?? current.url,
        events: change.events ?? current.events,
        description: change.description === undefined ? current.description : change.description,
        enabled,
        disabled_reason: enabled ? null : current.enabled ? "Disabled by an admin" : current.disabled_reason,
        owner: enabled && !current.enabled ? actor.owner : current.owner,
        updated_at: now
      }
      if (!(yield* store.update(updated))) return yield* notFound(webhookId)
      if (current.enabled && !enabled) yield* deliveries.failUnfinished(actor.tenantId, current.webhook_id, now)
      return updated
    }))
  })

/** Deletes a webhook and its deliveries log. */
export const remove = (tenantId: TenantId, webhookId: string): Effect.Effect<void, NotFound | StoreError, WebhookStore> =>
  Effect.flatMap(WebhookStore, (store) => store.remove(tenantId, webhookId as WebhookId)).pipe(
    Effect.flatMap((removed) => removed ? Effect.void : Effect.fail(notFound(webhookId)))
  )

/**
 * Replaces a webhook's secret (with `secret`, or a generated one, returned
 * this once); the replaced one keeps signing for 24 hours beside it.
 */
export const rotateSecret = (
  tenantId: TenantId,
  webhookId: string,
  secret: string | undefined
): Effect.Effect<
  { readonly webhook: Webhook; readonly secret: string; readonly previousExpiresAt: Date },
  NotFound | StoreError,
  WebhookStore | Transactor
> =>
  Effect.gen(function*() {
    const store = yield* WebhookStore
    const next = secret ?? (yield* WebhookSecrets.generate)
    return yield* (yield* Transactor).transaction(Effect.gen(function*() {
      const current = yield* get(tenantId, webhookId)
      const now = yield* Clock.currentTimeMillis
      const secrets = WebhookSecrets.rotate(current.secrets, next, now)
      const updated: Webhook = { ...current, secrets, updated_at: new Date(now) }
      if (!(yield* store.update(updated))) return yield* notFound(webhookId)
      return { webhook: updated, secret: next, previousExpiresAt: new Date(secrets.previous!.until) }
    }))
  })

/**
 * A webhook's current signing secret, for an admin to read again (the
 * Svix portal's reveal, decision 0010); the audited use case is
 * `AuditedChanges.revealWebhookSecret`. The previous one, still signing
 * for 24 hours after a rotation, is never shown again.
 */
export const secret = (
  tenantId: TenantId,
  webhookId: string
): Effect.Effect<{ readonly webhook: Webhook; readonly secret: string }, NotFound | StoreError, WebhookStore> =>
  Effect.map(get(tenantId, webhookId), (webhook) => ({ webhook, secret: webhook.secrets.current }))

/** The windows of a webhook's success rate, newest last: the last 24 hours and the last 7 days. */
export const successWindows = [
  { name: "last_24_hours", millis: 24 * 60 * 60 * 1000 },
  { name: "last_7_days", millis: 7 * 24 * 60 * 60 * 1000 }
] as const

/** How many attempts succeeded and failed in one window, since when. */
export interface WindowTally extends Tally {
  readonly since: Date
}

/**
 * How a webhook's receiver has been answering (decision 0010): its
 * attempts that succeeded and failed over the last 24 hours and 7 days,
 * re-deliveries and test sends included.
 */
export const successRate = (
  tenantId: TenantId,
  webhookId: string
): Effect.Effect<
  Record<(typeof successWindows)[number]["name"], WindowTally>,
  NotFound | StoreError,
  WebhookStore | DeliveryStore
> =>
  Effect.gen(function*() {
    const webhook = yield* get(tenantId, webhookId)
    const store = yield* DeliveryStore
    const now = yield* Clock.currentTimeMillis
    const tallies = yield* Effect.forEach(successWindows, (window) => {
      const since = new Date(now - window.millis)
      return Effect.map(store.tally(tenantId, webhook.webhook_id, since), (tally) => [window.name, { ...tally, since }] as const)
    })
    return Object.fromEntries(tallies) as Record<(typeof successWindows)[number]["name"], WindowTally>
  })

/** Sends an example event of `type` to one webhook through the normal pipeline (signed, retried, logged). */
export const sendTest = (
  tenantId: TenantId,
  webhookId: string,
  type: Events.EventType
): Effect.Effect<Delivery, NotFound | WebhookDisabled | StoreError, WebhookStore | DeliveryStore> =>
  Effect.gen(function*() {
    const webhook = yield* get(tenantId, webhookId)
    if (!webhook.enabled) return yield* new WebhookDisabled({ webhookId: webhook.webhook_id })
    // The examples are valid by construction (a test decodes every one).
    const workspaceId = Events.tenantWide.has(type) ? Events.everyWorkspace : webhook.workspace_id ?? exampleWorkspace
    const event = yield* Effect.orDie(Events.make(type, workspaceId, Events.examples[type]))
    return yield* (yield* DeliveryStore).enqueue(webhook, event, new Date(yield* Clock.currentTimeMillis))
  })

/** The workspace a test event names when its webhook hears every workspace. */
const exampleWorkspace = "00000000-0000-7000-8000-000000000000"

/** One page of a webhook's deliveries, newest first, with every attempt. */
export const deliveries = (
  tenantId: TenantId,
  webhookId: string,
  filter: DeliveryFilter,
  request: NewestFirstRequest
): Effect.Effect<Page<Delivery>, NotFound | StoreError | CursorError | InvalidSort, WebhookStore | DeliveryStore | CursorCodec> =>
  Effect.gen(function*() {
    const webhook = yield* get(tenantId, webhookId)
    const store = yield* DeliveryStore
    return yield* paginateNewestFirst(request, (query) => store.list(tenantId, webhook.webhook_id, query, filter), deliveryKey)
  })

/** One delivery of a webhook, with every attempt. */
export const delivery = (
  tenantId: TenantId,
  webhookId: string,
  deliveryId: string
): Effect.Effect<Delivery, NotFound | StoreError, DeliveryStore> =>
  Effect.flatMap(DeliveryStore, (store) => store.find(tenantId, webhookId as WebhookId, deliveryId as DeliveryId)).pipe(
    orNotFound("delivery", deliveryId)
  )

/**
 * Delivers a finished delivery again (decision 0010): the same delivery and
 * event, back to `pending`, due now, with a fresh retry schedule; its earlier
 * attempts stay in its log.
 */
export const redeliver = (
  tenantId: TenantId,
  webhookId: string,
  deliveryId: string
): Effect.Effect<Delivery, NotFound | DeliveryInProgress | WebhookDisabled | StoreError, WebhookStore | DeliveryStore> =>
  Effect.gen(function*() {
    const webhook = yield* get(tenantId, webhookId)
    if (!webhook.enabled) return yield* new WebhookDisabled({ webhookId: webhook.webhook_id })
    const current = yield* delivery(tenantId, webhookId, deliveryId)
    if (!isFinished(current.status)) return yield* new DeliveryInProgress({ deliveryId: current.delivery_id })
    const now = new Date(yield* Clock.currentTimeMillis)
    const restarted = yield* (yield* DeliveryStore).restart(tenantId, webhook.webhook_id, current.delivery_id, now)
    // Finished a moment ago, started again by a concurrent request since.
    if (restarted === undefined) return yield* new DeliveryInProgress({ deliveryId: current.delivery_id })
    return restarted
  })

/** Delivers again every failed delivery of a webhook created in [from, to) (Svix's recover); how many. */
export const recover = (
  tenantId: TenantId,
  webhookId: string,
  range: { readonly from: Date; readonly to?: Date | undefined }
): Effect.Effect<number, NotFound | WebhookDisabled | StoreError, WebhookStore | DeliveryStore> =>
  Effect.gen(function*() {
    const webhook = yield* get(tenantId, webhookId)
    if (!webhook.enabled) return yield* new WebhookDisabled({ webhookId: webhook.webhook_id })
    const now = new Date(yield* Clock.currentTimeMillis)
    return yield* (yield* DeliveryStore).restartFailed(tenantId, webhook.webhook_id, {
      from: range.from,
      // Up to and including now.
      to: range.to ?? new Date(now.getTime() + 1)
    }, now)
  })

/** How long finished deliveries stay in the log (Svix keeps 90 days on its paid plans; Stripe 30 days of events). */
export const deliveryRetentionDays = 30

/** Deletes the finished deliveries older than the retention (unfinished ones are never purged); how many. */
export const purgeDeliveries = (
  retentionDays: number = deliveryRetentionDays
): Effect.Effect<number, StoreError, DeliveryStore> =>
  Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    return yield* (yield* DeliveryStore).purgeFinished(new Date(now - retentionDays * 24 * 60 * 60 * 1000))
  })
