/**
 * Webhooks and their deliveries as the console shows them (the OpenAPI
 * document's `webhooks` group): the contract's shapes (type-only), a webhook's state and a
 * delivery's status in words, each event type's description, and the
 * "not available to you" state members see (webhooks are the tenant
 * admins', core's policy). Shared by the webhooks and webhook screens.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, type TemplateResult } from "lit"
import { en } from "../i18n/en.ts"
import { type MessageKey, msg } from "../i18n/msg.ts"
import { dateTime } from "../i18n/Time.ts"

/** A webhook as `GET /v1/webhooks` lists it (never its secret); after a rotation, `previous_secret_expires_at` says until when the old secret still signs. */
export type Webhook = Json<typeof Groups.Webhooks.WebhookJson>

/** One attempt of a delivery: the receiver's status, the start of its answer body, the headers sent and answered. */
export type Attempt = Json<typeof Groups.Webhooks.AttemptJson>

/** HTTP headers, names in lower case. */
export type Headers = NonNullable<Attempt["request_headers"]>

/** Attempts in one window of the success rate. */
export type Tally = Json<typeof Groups.Webhooks.WindowTallyJson>

/** `GET /v1/webhooks/{id}/success-rate`. */
export type SuccessRate = Json<typeof Groups.Webhooks.SuccessRateJson>

/** A window's share of attempts that succeeded, in words ("75% succeeded"), rounded down so 99.6% is not "100%". */
export const rateWords = (tally: Pick<Tally, "succeeded" | "failed">): string => {
  const total = tally.succeeded + tally.failed
  return msg("webhook.rate.percent", { percent: total === 0 ? 0 : Math.floor((tally.succeeded / total) * 100) })
}

/** A delivery, with every attempt (oldest first); `event` is the envelope delivered as the body. */
export type Delivery = Json<typeof Groups.Webhooks.DeliveryJson>

/** Where a delivery stands. */
export type DeliveryStatus = Delivery["status"]

/** One type of the event catalog (`GET /v1/event-types`). */
export type EventType = Json<typeof Groups.Webhooks.EventTypeJson>

/** The types of the catalog a form's `events` checkboxes chose (the form offers the catalog's, nothing else). */
export const chosenEvents = (data: FormData, catalog: ReadonlyArray<EventType> | undefined): Array<EventType["type"]> => {
  const chosen = new Set(data.getAll("events").map(String))
  return (catalog ?? []).map((entry) => entry.type).filter((type) => chosen.has(type))
}

/** The reason core records when an admin disables a webhook; any other reason is the receiver's doing (404/410). */
const byAdmin = "Disabled by an admin"

/** A webhook's state: `enabled`, `disabled` (by an admin) or `failed` (disabled because its receiver said it is gone). */
export const stateOf = (webhook: Webhook): "enabled" | "disabled" | "failed" =>
  webhook.enabled ? "enabled" : webhook.disabled_reason === null || webhook.disabled_reason === byAdmin ? "disabled" : "failed"

/** A webhook's state in words. */
export const stateWords = (webhook: Webhook): string => msg(`webhooks.state.${stateOf(webhook)}` as MessageKey)

/** The badge class of a state, as the theme colours them. */
export const stateBadge = (webhook: Webhook): string => ({ enabled: "active", disabled: "expired", failed: "failed" })[stateOf(webhook)]

/** Why a webhook is disabled, in words: "Why: …", its instants (core writes ISO 8601) in the reader's date and time. */
export const reasonWords = (reason: string): string =>
  msg("webhooks.reason", { reason: reason.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?Z/g, (iso) => dateTime(iso)) })

/** A delivery's status in words. */
export const deliveryWords = (status: DeliveryStatus): string => msg(`webhook.delivery.${status}` as MessageKey)

/** The badge class of a delivery's status. */
export const deliveryBadge = (status: DeliveryStatus): string =>
  ({ pending: "paused", retrying: "paused", succeeded: "active", failed: "failed" })[status]

/** Whether a delivery may change by itself (the worker has not finished with it). */
export const inFlight = (status: DeliveryStatus): boolean => status === "pending" || status === "retrying"

/** What an event type means, in words (the type itself for one the console does not know yet). */
export const eventWords = (type: string): string => {
  const key = `webhooks.event.${type}`
  return key in en ? msg(key as MessageKey) : type
}

/** What members see on a webhooks address. */
export const forbidden = (): TemplateResult => html`
  <h1>${msg("webhooks.forbidden.title")}</h1>
  <div class="state"><p>${msg("webhooks.forbidden.detail")}</p><p><a href="./">${msg("webhooks.forbidden.home")}</a></p></div>`
