/**
 * The handlers of `/v1/webhooks...` and `/v1/event-types`.
 *
 * @since 0.1.0
 */
import { Api, Problems } from "@analytics/api"
import { AuditedChanges, AuditLog, Cursor, DeliveryStore, EventPublisher, Events, Pagination, Policy, TenantCache, Transactor, type Webhook, WebhookStore, Webhooks, WorkspaceStore } from "@analytics/core"
import { Clock, Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { toProblem } from "../edge/DomainProblems.ts"
import { caller, captured, listRequest, respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** A webhook as the API shows it (never its secret). */
const webhookJson = (w: Webhook.Webhook, now: number) => ({
  webhook_id: w.webhook_id,
  url: w.url,
  events: w.events,
  workspace_id: w.workspace_id,
  description: w.description,
  enabled: w.enabled,
  disabled_reason: w.disabled_reason,
  previous_secret_expires_at: w.secrets.previous !== undefined && w.secrets.previous.until > now
    ? new Date(w.secrets.previous.until)
    : null,
  created_at: w.created_at,
  updated_at: w.updated_at
})

/** A delivery as the API shows it. */
const deliveryJson = (d: Webhook.Delivery) => ({
  delivery_id: d.delivery_id,
  webhook_id: d.webhook_id,
  event_id: d.event.id,
  event_type: d.event.type,
  status: d.status,
  // Attempts made before excerpts and headers were kept have none.
  attempts: d.attempts.map((a) => ({
    ...a,
    response_excerpt: a.response_excerpt ?? null,
    request_headers: a.request_headers ?? null,
    response_headers: a.response_headers ?? null
  })),
  next_attempt_at: d.next_attempt_at,
  event: d.event,
  created_at: d.created_at,
  updated_at: d.updated_at
})

/** The event catalog, built once, each type with its place in the catalog (the order it is listed in). */
const eventTypes = (() => {
  const schemas = Events.jsonSchemas()
  return Events.eventTypes.map((type, position) => ({ position, json: { type, schema: schemas[type].schema } }))
})()
type CatalogEntry = (typeof eventTypes)[number]
const catalogKey = (entry: CatalogEntry): Pagination.Keyset => ({ value: entry.position, id: entry.json.type })
const catalogSince = new Date(0)

/** One page of the event catalog, in its order. */
const eventTypesPage = (request: Pagination.NewestFirstRequest) =>
  Effect.map(
    Pagination.paginate<CatalogEntry, "position", never, never>(
      { ...request, sort: undefined, sortable: ["position"], defaultSort: { field: "position", direction: "asc" } },
      (query) => Effect.succeed(Pagination.pageOfSorted(eventTypes, query, catalogKey, () => catalogSince)),
      catalogKey
    ),
    (page) => ({ data: page.data.map((entry) => entry.json), page: page.page })
  )

/** `/v1/webhooks...` and `/v1/event-types`. */
export const webhooksLayer = ApiHandlers.group(Api, "webhooks", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(
      WebhookStore.WebhookStore,
      DeliveryStore.DeliveryStore,
      WorkspaceStore.WorkspaceStore,
      Transactor.Transactor,
      AuditLog.AuditStore,
      EventPublisher.EventPublisher,
      Cursor.CursorCodec
    )
    const directory = yield* TenantCache.TenantCache
    /** The caller as the webhook use cases need it: tenant, plan (for the firehose rule) and who owns what it registers. */
    const actor = (operation: Policy.MemberOperation) => Effect.gen(function*() {
      const member = yield* caller(operation)
      const tenant = yield* Effect.mapError(directory.get(member.tenantId), toProblem)
      // A token of a deleted tenant no longer authenticates; this is the same answer.
      if (tenant === undefined) return yield* new Problems.Forbidden({ detail: "The tenant no longer exists" })
      return { tenantId: member.tenantId, plan: tenant.plan, owner: { userId: member.userId, email: member.email }, by: AuditLog.actorOf(member) }
    })
    const now = Clock.currentTimeMillis
    return handlers
      .handle("eventTypes", ({ endpoint, query }) =>
        Effect.gen(function*() {
          yield* caller("webhooks.eventTypes")
          const page = yield* Effect.mapError(provide(eventTypesPage(yield* listRequest(query))), toProblem)
          return respond(endpoint, page)
        }))
      .handle("create", ({ endpoint, payload }) =>
        Effect.gen(function*() {
          const who = yield* actor("webhooks.create")
          const { secret, webhook } = yield* Effect.mapError(provide(AuditedChanges.createWebhook(who, payload, who.by)), toProblem)
          return respond(endpoint, { ...webhookJson(webhook, yield* now), secret })
        }))
      .handle("list", (request) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.list")
          const page = yield* Effect.mapError(
            provide(Webhooks.list(member.tenantId, yield* listRequest(request.query))),
            toProblem
          )
          const at = yield* now
          return respond(request.endpoint, { data: page.data.map((w) => webhookJson(w, at)), page: page.page })
        }))
      .handle("get", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.get")
          const webhook = yield* Effect.mapError(provide(Webhooks.get(member.tenantId, params.webhook_id)), toProblem)
          return respond(endpoint, webhookJson(webhook, yield* now))
        }))
      .handle("update", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const who = yield* actor("webhooks.update")
          const webhook = yield* Effect.mapError(provide(AuditedChanges.updateWebhook(who, params.webhook_id, payload, who.by)), toProblem)
          return respond(endpoint, webhookJson(webhook, yield* now))
        }))
      .handle("remove", ({ params }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.remove")
          yield* Effect.mapError(provide(AuditedChanges.removeWebhook(member.tenantId, params.webhook_id, AuditLog.actorOf(member))), toProblem)
        }))
      .handle("rotateSecret", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.rotateSecret")
          const { secret, webhook } = yield* Effect.mapError(
            provide(AuditedChanges.rotateWebhookSecret(member.tenantId, params.webhook_id, payload.secret, AuditLog.actorOf(member))),
            toProblem
          )
          return respond(endpoint, { ...webhookJson(webhook, yield* now), secret })
        }))
      .handle("secret", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.secret")
          const { secret, webhook } = yield* Effect.mapError(
            provide(AuditedChanges.revealWebhookSecret(member.tenantId, params.webhook_id, AuditLog.actorOf(member))),
            toProblem
          )
          // A secret is kept by no cache, shared or the browser's (decision 0010).
          return HttpServerResponse.setHeader(respond(endpoint, { webhook_id: webhook.webhook_id, secret }), "cache-control", "no-store")
        }))
      .handle("successRate", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.successRate")
          const rate = yield* Effect.mapError(provide(Webhooks.successRate(member.tenantId, params.webhook_id)), toProblem)
          return respond(endpoint, { webhook_id: params.webhook_id as Webhook.WebhookId, ...rate })
        }))
      .handle("test", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.test")
          const delivery = yield* Effect.mapError(provide(Webhooks.sendTest(member.tenantId, params.webhook_id, payload.type)), toProblem)
          return respond(endpoint, deliveryJson(delivery))
        }))
      .handle("deliveries", (request) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.deliveries")
          const page = yield* Effect.mapError(
            provide(Webhooks.deliveries(
              member.tenantId,
              request.params.webhook_id,
              { status: request.query.status, eventType: request.query.event_type },
              yield* listRequest(request.query)
            )),
            toProblem
          )
          return respond(request.endpoint, { data: page.data.map(deliveryJson), page: page.page })
        }))
      .handle("delivery", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.delivery")
          const delivery = yield* Effect.mapError(
            provide(Webhooks.delivery(member.tenantId, params.webhook_id, params.delivery_id)),
            toProblem
          )
          return respond(endpoint, deliveryJson(delivery))
        }))
      .handle("redeliver", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.redeliver")
          const delivery = yield* Effect.mapError(
            provide(Webhooks.redeliver(member.tenantId, params.webhook_id, params.delivery_id)),
            toProblem
          )
          return respond(endpoint, deliveryJson(delivery))
        }))
      .handle("recover", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("webhooks.recover")
          const recovered = yield* Effect.mapError(
            provide(Webhooks.recover(member.tenantId, params.webhook_id, { from: payload.since, to: payload.until })),
            toProblem
          )
          return respond(endpoint, { recovered })
        }))
  }))
