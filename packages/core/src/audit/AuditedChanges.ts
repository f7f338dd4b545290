/**
 * The changes of the folders before the audit log (workspaces, webhooks),
 * as the API makes them: each use case run with its audit entry in one
 * transaction (`AuditLog.created`, `updated`, `deleted`). Their own modules
 * cannot import the log (it publishes through the webhooks' outbox), so
 * the audited use cases live here.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { NotFound, StoreError } from "../platform/Errors.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { Workspace, WorkspaceCreate } from "../tenancy/Workspace.ts"
import * as Workspaces from "../tenancy/Workspaces.ts"
import type { WorkspaceStore } from "../tenancy/WorkspaceStore.ts"
import type { DeliveryStore } from "../webhooks/DeliveryStore.ts"
import type { FirehoseNeedsScalePlan, Webhook, WebhookCreate, WebhookUpdate } from "../webhooks/Webhook.ts"
import type { WebhookUrlRefused } from "../webhooks/WebhookUrl.ts"
import * as Webhooks from "../webhooks/Webhooks.ts"
import type { WebhookStore } from "../webhooks/WebhookStore.ts"
import * as AuditLog from "./AuditLog.ts"

/** A workspace as its entries show it. */
export const workspaceShown: AuditLog.Shown<Workspace> = {
  type: "workspace",
  id: (w) => w.workspace_id,
  workspace: (w) => w.workspace_id,
  detail: (w) => ({ workspace_id: w.workspace_id, name: w.name, description: w.description })
}

/** Creates a workspace (`workspace.created`). */
export const createWorkspace = (
  tenantId: TenantId,
  input: WorkspaceCreate,
  by: AuditLog.Actor
): Effect.Effect<Workspace, StoreError, WorkspaceStore | AuditLog.Recording> =>
  AuditLog.created(tenantId, workspaceShown, by, Workspaces.create(tenantId, input))

/**
 * A receiver's URL as the log keeps it: scheme, host, port and path. The
 * query and fragment are left out: receivers often put a token there, and
 * the log keeps what it is given for ever.
 */
export const loggedUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    return `${parsed.origin}${parsed.pathname}`
  } catch {
    return ""
  }
}

/** A webhook as its entries show it: never its secrets, its URL without query. */
export const webhookShown: AuditLog.Shown<Webhook> = {
  type: "webhook",
  id: (w) => w.webhook_id,
  workspace: (w) => w.workspace_id,
  detail: (w) => ({
    webhook_id: w.webhook_id,
    url: loggedUrl(w.url),
    events: w.events,
    workspace_id: w.workspace_id,
    description: w.description,
    enabled: w.enabled,
    disabled_reason: w.disabled_reason,
    owner_user_id: w.owner.userId
  })
}

/** Registers a webhook (`webhook.created`); its secret is returned this once, and never logged. */
export const createWebhook = (actor: Webhooks.Actor, input: WebhookCreate, by: AuditLog.Actor) =>
  AuditLog.recorded(
    actor.tenantId,
    Webhooks.create(actor, input),
    ({ webhook }) => AuditLog.entryOn(webhookShown, "created", webhook, by, { secret_given: input.secret !== undefined })
  )

/** Changes a webhook (`webhook.updated`, with each changed field: URL, events, description, enabled). */
export const updateWebhook = (
  actor: Webhooks.Actor,
  webhookId: string,
  change: WebhookUpdate,
  by: AuditLog.Actor
): Effect.Effect<Webhook, NotFound | WebhookUrlRefused | FirehoseNeedsScalePlan | StoreError, WebhookStore | DeliveryStore | AuditLog.Recording> =>
  AuditLog.updated(actor.tenantId, webhookShown, by, Webhooks.get(actor.tenantId, webhookId), () => Webhooks.update(actor, webhookId, change))

/** Replaces a webhook's secret (`webhook.secret_rotated`: when the replaced one stops signing; neither secret). */
export const rotateWebhookSecret = (tenantId: TenantId, webhookId: string, secret: string | undefined, by: AuditLog.Actor) =>
  AuditLog.recorded(
    tenantId,
    Webhooks.rotateSecret(tenantId, webhookId, secret),
    ({ previousExpiresAt, webhook }) =>
      AuditLog.entryOn(webhookShown, "secret_rotated", webhook, by, {
        secret_given: secret !== undefined,
        previous_secret_expires_at: previousExpiresAt.toISOString()
      })
  )

/**
 * An admin reads a webhook's current secret again (`webhook.secret_revealed`,
 * never the secret itself): reading it is recorded as a change is, since
 * whoever holds it can sign as the service (decision 0010).
 */
export const revealWebhookSecret = (
  tenantId: TenantId,
  webhookId: string,
  by: AuditLog.Actor
): Effect.Effect<{ readonly webhook: Webhook; readonly secret: string }, NotFound | StoreError, WebhookStore | AuditLog.Recording> =>
  AuditLog.recorded(tenantId, Webhooks.secret(tenantId, webhookId), ({ webhook }) => AuditLog.entryOn(webhookShown, "secret_revealed", webhook, by))

/** Deletes a webhook and its deliveries log (`webhook.deleted`). */
export const removeWebhook = (
  tenantId: TenantId,
  webhookId: string,
  by: AuditLog.Actor
): Effect.Effect<void, NotFound | StoreError, WebhookStore | AuditLog.Recording> =>
  Effect.asVoid(AuditLog.deleted(tenantId, webhookShown, by, Webhooks.get(tenantId, webhookId), () => Webhooks.remove(tenantId, webhookId)))

