/**
 * What a deprovisioning stops, at once and in the transaction that
 * deprovisions the user (over the API or SCIM): whatever acts on their
 * behalf. Their console sessions end; their personal API tokens are revoked (a later re-activation does
 * not bring them back); the webhooks they registered are disabled (their
 * unfinished deliveries failed), and so are the export schedules they made;
 * an admin may enable either again and then owns it. Their grants stay, as
 * the organisation's decisions, and still reach no one but active users.
 * Each session's end is audited (`session.ended`, reason `deprovisioned`).
 * Docs: decision 0018.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import * as Sessions from "../auth/Sessions.ts"
import type { EventPublisher } from "../webhooks/EventPublisher.ts"
import { DeliveryStore } from "../webhooks/DeliveryStore.ts"
import type { StoreError } from "../platform/Errors.ts"
import { SessionStore } from "../auth/SessionStore.ts"
import { ExportScheduleStore, scheduleKey } from "../exports/ExportScheduleStore.ts"
import { everyRow } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { TenantStore } from "../tenancy/TenantStore.ts"
import { userRole } from "../auth/TenantTokens.ts"
import { WebhookStore, webhookKey } from "../webhooks/WebhookStore.ts"
import { workspaceKey, WorkspaceStore } from "../tenancy/WorkspaceStore.ts"

/** What stopping a user's agents reads and writes. */
export type Services =
  | TenantStore
  | WebhookStore
  | DeliveryStore
  | ExportScheduleStore
  | WorkspaceStore
  | SessionStore
  | AuditLog.AuditStore
  | EventPublisher

/** The reason a deprovisioning's webhooks and schedules show. */
export const reason = "Its owner was deprovisioned"

/** What was stopped, counted. */
export interface Stopped {
  readonly sessions: number
  readonly tokens: number
  readonly webhooks: number
  readonly schedules: number
}

/**
 * Stops what acts for the user: run it in the transaction that changes the
 * user's status from active to deprovisioned.
 */
export const stopActingFor = (tenantId: TenantId, userId: string, by: AuditLog.Actor): Effect.Effect<Stopped, StoreError, Services> =>
  Effect.gen(function*() {
    const now = new Date(yield* Clock.currentTimeMillis)
    const ended = yield* (yield* SessionStore).endForUser(tenantId, userId, now)
    // Each session's end in the log, by whoever deprovisioned the user.
    for (const session of ended) yield* AuditLog.record(tenantId, Sessions.endedEntry(session, "deprovisioned", by))
    const sessions = ended.length
    const tenants = yield* TenantStore
    let tokens = 0
    for (const token of yield* tenants.listTokens(tenantId, userRole)) {
      if (token.userId === userId && (yield* tenants.removeToken(tenantId, token.tokenId))) tokens++
    }

    const webhookStore = yield* WebhookStore
    const deliveries = yield* DeliveryStore
    let webhooks = 0
    for (const webhook of yield* everyRow((query) => webhookStore.list(tenantId, query), webhookKey, now)) {
      if (!webhook.enabled || webhook.owner.userId !== userId) continue
      if (!(yield* webhookStore.update({ ...webhook, enabled: false, disabled_reason: reason, updated_at: now }))) continue
      yield* deliveries.failUnfinished(tenantId, webhook.webhook_id, now)
      webhooks++
    }

    const scheduleStore = yield* ExportScheduleStore
    const workspaceStore = yield* WorkspaceStore
    let schedules = 0
    const workspaces = yield* everyRow((query) => workspaceStore.list(tenantId, query), (w) => workspaceKey(w, "created_at"), now)
    for (const workspace of workspaces) {
      const owned = yield* everyRow((query) => scheduleStore.list(tenantId, workspace.workspace_id, query), scheduleKey, now)
      for (const schedule of owned) {
        if (!schedule.enabled || schedule.created_by.id !== userId) continue
        if (yield* scheduleStore.update({ ...schedule, enabled: false, next_run_at: null, updated_at: now })) schedules++
      }
    }
    return { sessions, tokens, webhooks, schedules }
  })
