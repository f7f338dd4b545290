/**
 * What the webhooks screen and a webhook's screen do to one webhook, the
 * same on both: send a test event of a type it hears, disable or enable it,
 * rotate its secret (after a confirmation: the receiver must learn the new
 * one within the old one's 24 hours), delete it (after a confirmation); the
 * buttons that do so, and the service's calls behind them. Each screen
 * keeps what it shows after a change (a list's row, the webhook's page).
 *
 * @since 0.1.0
 */
import { html, nothing, type TemplateResult } from "lit"
import type { ApiClient } from "../client/ApiClient.ts"
import { confirmDialog } from "../elements/Confirm.ts"
import { oneOf } from "./FormValues.ts"
import { msg } from "../i18n/msg.ts"
import type { Delivery, Webhook } from "./Webhook.ts"

/** The API's path of a webhook, or of one of its actions (`tail`: `/test`, `/rotate-secret`…). */
export const webhookPath = <const Tail extends string = "">(webhook: Webhook, tail: Tail = "" as Tail): `v1/webhooks/${string}${Tail}` =>
  `v1/webhooks/${encodeURIComponent(webhook.webhook_id)}${tail}`

/** Disables an enabled webhook, enables a disabled one: the webhook as it is now. */
export const toggleWebhook = (client: ApiClient, webhook: Webhook): Promise<Webhook> =>
  client.patch(webhookPath(webhook), { enabled: !webhook.enabled })

/** What enabling or disabling did, in words. */
export const toggledWords = (webhook: Webhook): string =>
  msg(webhook.enabled ? "webhooks.enabled" : "webhooks.disabled", { url: webhook.url })

/** A type of event a webhook hears. */
export type HeardType = Webhook["events"][number]

/** Sends a test event of `type` to the webhook: its delivery. */
export const sendTest = (client: ApiClient, webhook: Webhook, type: HeardType): Promise<Delivery> =>
  client.post(webhookPath(webhook, "/test"), { type })

/** Asks, in a dialog placed in `host`, whether to rotate the webhook's secret or delete the webhook; true when confirmed. */
export const confirmChange = (host: HTMLElement, webhook: Webhook, change: "rotate" | "delete"): Promise<boolean> =>
  confirmDialog(host, {
    title: msg(`webhooks.${change}.title`),
    text: msg(`webhooks.${change}.confirm`, { url: webhook.url }),
    yes: msg(`webhooks.${change}.yes`),
    no: msg(`webhooks.${change}.no`)
  })

/** Rotates the webhook's secret: the webhook as it is now, and the new secret (shown once). */
export const rotateSecret = async (client: ApiClient, webhook: Webhook): Promise<{ readonly webhook: Webhook; readonly secret: string }> => {
  const { secret, ...changed } = await client.post(webhookPath(webhook, "/rotate-secret"))
  return { webhook: changed, secret }
}

/** Deletes the webhook. */
export const deleteWebhook = async (client: ApiClient, webhook: Webhook): Promise<void> => {
  await client.delete(webhookPath(webhook))
}

/**
 * Copies a secret shown in `field`; where the clipboard refuses, selects
 * it there to copy by hand. What happened, in words.
 */
export const copySecret = async (secret: string, field: HTMLInputElement | null): Promise<string> => {
  try {
    await navigator.clipboard.writeText(secret)
    return msg("webhooks.secret.copied")
  } catch {
    field?.select()
    return msg("webhooks.secret.copyFailed")
  }
}

/** What the buttons do, and how they are drawn, on one screen. */
export interface WebhookButtons {
  /** A change is under way: the buttons wait. */
  readonly busy: boolean
  /** The test type's `<select>` id, where the screen has one. */
  readonly testTypeId?: string
  /** Each button's accessible name with the webhook's (a list of them), from its words; else the words alone. */
  readonly label?: (action: string) => string
  /** Send a test event of the type chosen. */
  readonly test: (type: HeardType) => void
  /** Drawn after the test event's controls (the webhook's screen: its Edit button). */
  readonly after?: TemplateResult
  readonly toggle: () => void
  readonly rotate: () => void
  /** Delete, where the screen offers it. */
  readonly remove?: () => void
}

/**
 * A webhook's buttons: the test event's type and Send (an enabled webhook),
 * what `after` holds, Disable or Enable, Rotate secret and, with `remove`, Delete.
 */
export const webhookButtons = (webhook: Webhook, buttons: WebhookButtons): TemplateResult => {
  const label = (action: string) => buttons.label === undefined ? nothing : buttons.label(action)
  const toggle = msg(webhook.enabled ? "webhooks.disable" : "webhooks.enable")
  // The type chosen beside the button (each webhook of a list has its own), one of the webhook's.
  const chosenType = (event: Event): HeardType | undefined => {
    const chosen = (event.target as HTMLElement).closest(".test")?.querySelector("select")?.value
    return oneOf(chosen, webhook.events) ?? webhook.events[0]
  }
  return html`${webhook.enabled ? html`<span class="row test">
      <label class="inline">${msg("webhooks.test.type")}<select id=${buttons.testTypeId ?? nothing}>${webhook.events.map((type) => html`<option value=${type}>${type}</option>`)}</select></label>
      <button type="button" class="secondary" ?disabled=${buttons.busy} aria-label=${label(msg("webhooks.test"))}
        @click=${(event: Event) => {
          const type = chosenType(event)
          if (type !== undefined) buttons.test(type)
        }}>${msg("webhooks.test")}</button></span>` : nothing}
    ${buttons.after ?? nothing}
    <button type="button" class="secondary" ?disabled=${buttons.busy} aria-label=${label(toggle)} @click=${buttons.toggle}>${toggle}</button>
    <button type="button" class="secondary" ?disabled=${buttons.busy} aria-label=${label(msg("webhooks.rotate"))} @click=${buttons.rotate}>${msg("webhooks.rotate")}</button>
    ${buttons.remove === undefined ? nothing : html`<button type="button" class="danger secondary" ?disabled=${buttons.busy} aria-label=${label(msg("webhooks.delete"))}
      @click=${buttons.remove}>${msg("webhooks.delete")}</button>`}`
}
