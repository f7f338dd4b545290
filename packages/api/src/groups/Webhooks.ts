/**
 * Webhooks, their deliveries and the event catalog, and the OpenAPI document's `webhooks` section.
 *
 * @since 0.1.0
 */
import { Events, Webhook } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoints from "../Endpoints.ts"
import { Authentication } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import * as QueryParams from "../QueryParams.ts"

/** A webhook as the API shows it: never its secret (shown once, at creation and rotation). */
export const WebhookJson = Schema.Struct({
  webhook_id: Webhook.WebhookId,
  url: Schema.String,
  events: Schema.Array(Events.EventType),
  workspace_id: Schema.NullOr(Schema.String).annotate({ description: "Only this workspace's events; null: every workspace" }),
  description: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  disabled_reason: Schema.NullOr(Schema.String).annotate({
    description: "Why it is disabled: by a member, or its receiver answered 404/410 (its owner was e-mailed)"
  }),
  previous_secret_expires_at: Schema.NullOr(Schema.Date).annotate({
    description: "After a rotation: until when deliveries are also signed with the previous secret"
  }),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** A webhook with its secret, shown once. */
export const WebhookWithSecret = Schema.Struct({
  ...WebhookJson.fields,
  secret: Schema.String.annotate({ description: "The signing secret; shown this once" })
})

/** One attempt of a delivery. */
export const AttemptJson = Schema.Struct({
  attempted_at: Schema.Date,
  status_code: Schema.NullOr(Schema.Int).annotate({ description: "The receiver's status; null when it did not answer" }),
  latency_ms: Schema.Int,
  error: Schema.NullOr(Schema.String),
  response_excerpt: Schema.NullOr(Schema.String).annotate({
    description: "The start of the receiver's answer body as text, at most 1 KB; null when it did not answer, or its body was empty or not text"
  }),
  request_headers: Schema.NullOr(Schema.Record(Schema.String, Schema.String)).annotate({
    description: "The headers the attempt was sent with, names in lower case; null on attempts made before they were kept"
  }),
  response_headers: Schema.NullOr(Schema.Record(Schema.String, Schema.String)).annotate({
    description: "The receiver's answer headers (at most 64, each value at most 1,024 characters); null when it did not answer"
  })
})

/** A webhook's signing secret, read again by an admin. */
export const WebhookSecretJson = Schema.Struct({
  webhook_id: Webhook.WebhookId,
  secret: Schema.String.annotate({ description: "The current signing secret (the previous one, signing for 24 hours after a rotation, is not shown)" })
})

/** Attempts in one window of the success rate. */
export const WindowTallyJson = Schema.Struct({
  since: Schema.Date.annotate({ description: "The window's start; it ends now" }),
  succeeded: Schema.Int.annotate({ description: "Attempts the receiver answered 2xx" }),
  failed: Schema.Int.annotate({ description: "Attempts that got any other answer, or none" })
})

/** A webhook's success rate: its attempts over the last 24 hours and 7 days. */
export const SuccessRateJson = Schema.Struct({
  webhook_id: Webhook.WebhookId,
  last_24_hours: WindowTallyJson,
  last_7_days: WindowTallyJson
})

/** A delivery as the API shows it, with every attempt. */
export const DeliveryJson = Schema.Struct({
  delivery_id: Webhook.DeliveryId,
  webhook_id: Webhook.WebhookId,
  event_id: Schema.String,
  event_type: Events.EventType,
  status: Webhook.DeliveryStatus,
  attempts: Schema.Array(AttemptJson),
  next_attempt_at: Schema.NullOr(Schema.Date),
  event: Schema.Unknown.annotate({ description: "The envelope delivered as the body" }),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** One type of the event catalog. */
export const EventTypeJson = Schema.Struct({
  type: Events.EventType,
  schema: Schema.Unknown.annotate({ description: "JSON Schema (draft 2020-12) of the envelope of this type" })
})

const webhookParams = { webhook_id: Schema.String }
const deliveryParams = { webhook_id: Schema.String, delivery_id: Schema.String }

/** Webhooks of the caller's tenant, their deliveries, and the event catalog. */
export const WebhooksGroup = HttpApiGroup.make("webhooks")
  .add(
    Endpoints.list("eventTypes", "/v1/event-types", {
      item: EventTypeJson,
      error: [...Problems.cursorProblems, Problems.Forbidden],
      description: "The event catalog, each type with its JSON Schema, in the catalog's order; paged like every list."
    })
  )
  .add(Endpoints.create("create", "/v1/webhooks", {
    payload: Webhook.WebhookCreate,
    success: WebhookWithSecret,
    error: [Problems.Forbidden, Problems.SchemeNotAllowed, Problems.FirehoseNotInPlan],
    description: "Registers an https:// URL for event types; the secret (generated when omitted) is returned this once."
  }))
  .add(Endpoints.list("list", "/v1/webhooks", { item: WebhookJson, error: [...Problems.cursorProblems, Problems.Forbidden] }))
  .add(Endpoints.get("get", "/v1/webhooks/:webhook_id", { params: webhookParams, success: WebhookJson, error: [Problems.Forbidden, Problems.NotFound] }))
  .add(Endpoints.update("update", "/v1/webhooks/:webhook_id", {
    params: webhookParams,
    payload: Webhook.WebhookUpdate,
    success: WebhookJson,
    error: [Problems.Forbidden, Problems.NotFound, Problems.SchemeNotAllowed, Problems.FirehoseNotInPlan],
    description: "Changes the url, events, description or state. Disabling fails the unfinished deliveries; recover them after enabling."
  }))
  .add(Endpoints.remove("remove", "/v1/webhooks/:webhook_id", { params: webhookParams, error: [Problems.Forbidden, Problems.NotFound] }))
  .add(Endpoints.action("rotateSecret", "/v1/webhooks/:webhook_id/rotate-secret", {
    params: webhookParams,
    payload: Schema.Struct({ secret: Schema.optionalKey(Webhook.Secret) }),
    success: WebhookWithSecret,
    error: [Problems.Forbidden, Problems.NotFound],
    description: "Replaces the secret (returned this once); for 24 hours every delivery is signed with both, one v1= each."
  }))
  .add(Endpoints.get("secret", "/v1/webhooks/:webhook_id/secret", {
    params: webhookParams,
    success: WebhookSecretJson,
    error: [Problems.Forbidden, Problems.NotFound],
    description: "The current signing secret, for tenant admins; each read is recorded in the audit log (webhook.secret_revealed) and answered with Cache-Control: no-store."
  }))
  .add(Endpoints.get("successRate", "/v1/webhooks/:webhook_id/success-rate", {
    params: webhookParams,
    success: SuccessRateJson,
    error: [Problems.Forbidden, Problems.NotFound],
    description: "How many attempts succeeded and failed over the last 24 hours and 7 days (re-deliveries and test sends included)."
  }))
  .add(Endpoints.action("test", "/v1/webhooks/:webhook_id/test", {
    params: webhookParams,
    payload: Schema.Struct({ type: Events.EventType }),
    success: DeliveryJson.pipe(HttpApiSchema.status(202)),
    error: [Problems.Forbidden, Problems.NotFound, Problems.WebhookDisabled],
    description: "Sends an example event of the type through the normal pipeline (signed, retried, logged)."
  }))
  .add(Endpoints.list("deliveries", "/v1/webhooks/:webhook_id/deliveries", {
    params: webhookParams,
    query: { ...QueryParams.page, status: Schema.optionalKey(Webhook.DeliveryStatus), event_type: Schema.optionalKey(Events.EventType) },
    item: DeliveryJson,
    error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound],
    description: "The deliveries log, newest first, with every attempt."
  }))
  .add(Endpoints.get("delivery", "/v1/webhooks/:webhook_id/deliveries/:delivery_id", {
    params: deliveryParams,
    success: DeliveryJson,
    error: [Problems.Forbidden, Problems.NotFound]
  }))
  .add(Endpoints.action("redeliver", "/v1/webhooks/:webhook_id/deliveries/:delivery_id/redeliver", {
    params: deliveryParams,
    success: DeliveryJson.pipe(HttpApiSchema.status(202)),
    error: [Problems.Forbidden, Problems.NotFound, Problems.WebhookDisabled, Problems.DeliveryInProgress],
    description: "Delivers a finished delivery again: same delivery and event id, back to pending with a fresh retry schedule; earlier attempts stay in its log."
  }))
  .add(Endpoints.action("recover", "/v1/webhooks/:webhook_id/recover", {
    params: webhookParams,
    payload: Schema.Struct({
      since: Schema.Date.annotate({ description: "Failed deliveries created at or after this instant" }),
      until: Schema.optionalKey(Schema.Date.annotate({ description: "…and before this one (default: now)" }))
    }),
    success: Schema.Struct({ recovered: Schema.Int }).pipe(HttpApiSchema.status(202)),
    error: [Problems.Forbidden, Problems.NotFound, Problems.WebhookDisabled],
    description: "Delivers again every failed delivery created in the range, each as a re-delivery."
  }))
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Webhooks: registration, secret rotation, test sends, the deliveries log and recovery.")

/** The OpenAPI 3.1 `webhooks` section: one entry per event type, its body the type's envelope. */
export const documentWebhooks = (spec: Record<string, any>): Record<string, any> => {
  const schemas = Events.jsonSchemas()
  spec.webhooks = Object.fromEntries(Events.eventTypes.map((type) => [type, {
    post: {
      summary: type,
      description: "Signed with X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.<body>\">; X-Service-Event and X-Service-Delivery name the type and the delivery.",
      requestBody: { required: true, content: { "application/json": { schema: schemas[type].schema } } },
      responses: { "200": { description: "Any 2xx within 5 seconds acknowledges the delivery" } }
    }
  }]))
  return spec
}

// ---------------------------------------------------------------------------
// AI questions
