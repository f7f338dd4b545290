/**
 * Port: webhook registrations. Every method is scoped by tenant: another
 * tenant's webhook is indistinguishable from a missing one.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { Webhook, WebhookId } from "./Webhook.ts"

/** The keyset position of a webhook (lists sort by `created_at`). */
export const webhookKey = (webhook: Webhook): Keyset => ({ value: webhook.created_at.getTime(), id: webhook.webhook_id })

/** Webhook registrations, scoped by tenant. */
export class WebhookStore extends Context.Service<WebhookStore, {
  readonly insert: (webhook: Webhook) => Effect.Effect<void, StoreError>
  readonly find: (tenantId: TenantId, webhookId: WebhookId) => Effect.Effect<Webhook | undefined, StoreError>
  /** One page, in `Pagination.applyInMemory` order. */
  readonly list: (tenantId: TenantId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<Webhook>, StoreError>
  /** Replaces a webhook's fields; `false` when there was none in this tenant. */
  readonly update: (webhook: Webhook) => Effect.Effect<boolean, StoreError>
  /** Deletes a webhook and its deliveries; `false` when there was none in this tenant. */
  readonly remove: (tenantId: TenantId, webhookId: WebhookId) => Effect.Effect<boolean, StoreError>
}>()("@analytics/core/WebhookStore") {}
