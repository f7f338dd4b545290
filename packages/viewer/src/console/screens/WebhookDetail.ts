/**
 * One webhook (`/webhooks/{webhook_id}`, tenant admins), as the Svix portal
 * shows an endpoint (decision 0010): its state; edit its URL, description
 * and events; send a test event, disable or enable it, rotate its secret
 * (after a confirmation) and reveal it (audited); its success rate over
 * the last 24 hours and 7 days; and its
 * deliveries, newest first, a page at a time ("Load more"), each with its
 * event type, status and every attempt (the answer's status code or what
 * went wrong, when, how long it took, the headers sent and answered). Deliveries the worker has not
 * finished are re-read every second until they settle. A finished
 * delivery may be delivered again; every failed delivery of a time range
 * may be recovered at once.
 *
 * @since 0.1.0
 */
import { html, nothing, type TemplateResult } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { currentSession, isAdmin } from "../../client/Session.ts"
import { msg } from "../../i18n/msg.ts"
import { dateTime, relative, when } from "../../i18n/Time.ts"
import { Pager } from "../Pager.ts"
import { linkTitle } from "../Router.ts"
import { Actions, noticeView } from "../Actions.ts"
import { Screen } from "../Screen.ts"
import { empty, loading, missingView, problemView } from "../States.ts"
import {
  type Attempt,
  chosenEvents,
  type Delivery,
  deliveryBadge,
  type DeliveryStatus,
  deliveryWords,
  eventWords,
  type EventType,
  forbidden,
  type Headers,
  inFlight,
  rateWords,
  reasonWords,
  stateBadge,
  stateOf,
  stateWords,
  type SuccessRate,
  type Webhook
} from "../Webhook.ts"
import { confirmChange, copySecret, type HeardType, rotateSecret, sendTest, toggledWords, toggleWebhook, webhookButtons } from "../WebhookActions.ts"

/** How often unfinished deliveries are re-read. */
const pollMillis = 1_000

/** A webhook's screen. */
export class WebhookScreen extends Screen {
  static override properties = {
    ...Screen.properties,
    webhook: { state: true },
    webhookProblem: { state: true },
    invalid: { state: true },
    status: { state: true },
    editing: { state: true },
    editProblem: { state: true },
    editInvalid: { state: true },
    catalog: { state: true },
    rate: { state: true },
    rateFailed: { state: true },
    secret: { state: true },
    copied: { state: true }
  }

  declare webhook: Webhook | undefined
  declare webhookProblem: Problem | undefined
  declare invalid: string | undefined
  /** The deliveries shown: of one status, or all (`""`). */
  declare status: DeliveryStatus | ""
  /** The edit form is open. */
  declare editing: boolean
  declare editProblem: Problem | undefined
  declare editInvalid: string | undefined
  /** The event catalog, for the edit form. */
  declare catalog: ReadonlyArray<EventType> | undefined
  declare rate: SuccessRate | undefined
  /** The success rate could not be read (it is read again at the next refresh). */
  declare rateFailed: boolean
  /** The signing secret on screen (revealed or rotated), until hidden; never kept elsewhere. */
  declare secret: { readonly value: string; readonly rotated: boolean } | undefined
  declare copied: string | undefined
  private deliveries: Pager<Delivery> | undefined
  private timer: ReturnType<typeof setTimeout> | undefined

  /** The webhook's changes: busy meanwhile, then focus on their notice or problem (a secret on its field). */
  private readonly actions = new Actions(this, (failed) => failed ? ".problem" : this.focusSecret ? "#revealed-secret" : ".webhook-notice")
  private focusSecret = false

  constructor() {
    super()
    this.status = ""
    this.editing = false
    this.rateFailed = false
  }

  override connectedCallback() {
    super.connectedCallback()
    if (!isAdmin(currentSession())) return
    if (this.deliveries === undefined) {
      this.deliveries = this.pager()
      void this.deliveries.more()
      void this.load()
      void this.loadRate()
    }
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private get base(): `v1/webhooks/${string}` {
    return `v1/webhooks/${encodeURIComponent(this.context.match.params.webhook ?? "")}`
  }

  private pager(): Pager<Delivery> {
    const status = this.status === "" ? "" : `&status=${this.status}`
    return new Pager((cursor) => this.context.client.list(`${this.base}/deliveries?limit=20${status}`, cursor), () => this.requestUpdate())
  }

  private async load() {
    try {
      this.webhook = await this.context.client.get(this.base)
    } catch (error) {
      this.webhookProblem = problemIn(error)
    }
  }

  private async loadRate() {
    try {
      this.rate = await this.context.client.get(`${this.base}/success-rate`)
      this.rateFailed = false
    } catch {
      // A summary: said in words, without a problem box; the deliveries below say the same, and a refresh reads it again.
      this.rateFailed = this.rate === undefined
    }
  }

  private async loadCatalog() {
    try {
      this.catalog = (await this.context.client.list("v1/event-types")).data
    } catch (error) {
      this.editProblem = problemIn(error)
    }
  }

  protected override updated() {
    this.poll()
  }

  /** Re-reads, in a second, the deliveries the worker has not finished with. */
  private poll() {
    const pager = this.deliveries
    if (this.timer !== undefined || !this.isConnected || pager === undefined || !pager.items.some((d) => inFlight(d.status))) return
    this.timer = setTimeout(async () => {
      await Promise.all(pager.items.filter((d) => inFlight(d.status)).map(async (d) => {
        try {
          this.replace(await this.context.client.get(`${this.base}/deliveries/${encodeURIComponent(d.delivery_id)}`))
        } catch {
          // Read again at the next turn; a lasting problem shows on the next action.
        }
      }))
      this.timer = undefined
      // Attempts settled: the success rate changed.
      if (!pager.items.some((d) => inFlight(d.status))) void this.loadRate()
      this.requestUpdate()
    }, pollMillis)
  }

  private replace(delivery: Delivery) {
    const pager = this.deliveries!
    pager.items = pager.items.map((d) => d.delivery_id === delivery.delivery_id ? delivery : d)
  }

  /** Reads the deliveries from the first page again (after a recovery, or to see new ones). */
  private refresh() {
    clearTimeout(this.timer)
    this.timer = undefined
    this.deliveries = this.pager()
    void this.deliveries.more()
    void this.loadRate()
  }

  private act(action: () => Promise<string>, focusSecret = false): Promise<string | undefined> {
    this.focusSecret = focusSecret
    return this.actions.run(action, (notice) => notice)
  }

  private toggle(webhook: Webhook) {
    void this.act(async () => {
      this.webhook = await toggleWebhook(this.context.client, webhook)
      return toggledWords(this.webhook)
    })
  }

  private sendTest(webhook: Webhook, type: HeardType) {
    void this.act(async () => {
      const delivery = await sendTest(this.context.client, webhook, type)
      // Shown at once, and re-read until it settles (unless another status is shown).
      if (this.status === "" || this.status === delivery.status) this.deliveries?.prepend(delivery)
      return msg("webhook.test.sent", { type: delivery.event_type })
    })
  }

  /** Rotates after a confirmation: the receiver must learn the new secret within the old one's 24 hours. */
  private async rotate(webhook: Webhook) {
    if (!(await confirmChange(this, webhook, "rotate"))) return
    await this.act(async () => {
      const rotated = await rotateSecret(this.context.client, webhook)
      this.webhook = rotated.webhook
      this.copied = undefined
      this.secret = { value: rotated.secret, rotated: true }
      return msg("webhook.rotated")
    }, true)
  }

  /** Reads the secret again (admins; the service records each read in the audit log). */
  private reveal() {
    void this.act(async () => {
      const { secret } = await this.context.client.get(`${this.base}/secret`)
      this.copied = undefined
      this.secret = { value: secret, rotated: false }
      return msg("webhook.secret.revealed")
    }, true)
  }

  private hideSecret() {
    this.secret = undefined
    this.copied = undefined
    void this.updateComplete.then(() => this.querySelector<HTMLElement>("#reveal-secret")?.focus())
  }

  private async copy(secret: string) {
    this.copied = await copySecret(secret, this.querySelector<HTMLInputElement>("#revealed-secret"))
  }

  private openEdit() {
    this.editing = true
    this.editProblem = undefined
    this.editInvalid = undefined
    if (this.catalog === undefined) void this.loadCatalog()
    void this.updateComplete.then(() => this.querySelector<HTMLInputElement>("#edit-url")?.focus())
  }

  private closeEdit() {
    this.editing = false
    void this.updateComplete.then(() => this.querySelector<HTMLElement>("#edit-webhook")?.focus())
  }

  private async save(event: SubmitEvent) {
    event.preventDefault()
    const data = new FormData(event.target as HTMLFormElement)
    const url = String(data.get("url") ?? "").trim()
    const description = String(data.get("description") ?? "").trim()
    const events = chosenEvents(data, this.catalog)
    this.editInvalid = undefined
    this.editProblem = undefined
    if (events.length === 0) {
      this.editInvalid = msg("webhooks.register.needEvent")
      await this.updateComplete
      this.querySelector<HTMLInputElement>("form.edit input[name=events]")?.focus()
      return
    }
    this.actions.busy = true
    try {
      this.webhook = await this.context.client.patch(this.base, { url, description: description === "" ? null : description, events })
      this.editing = false
      this.actions.notice = msg("webhook.edit.saved")
    } catch (error) {
      this.editProblem = problemIn(error)
    } finally {
      this.actions.busy = false
    }
    await this.updateComplete
    this.querySelector<HTMLElement>(this.editProblem === undefined ? ".webhook-notice" : "form.edit [aria-invalid=true], form.edit .problem")?.focus()
  }

  private redeliver(delivery: Delivery) {
    void this.act(async () => {
      this.replace(await this.context.client.post(`${this.base}/deliveries/${encodeURIComponent(delivery.delivery_id)}/redeliver`))
      return msg("webhook.redelivered", { type: delivery.event_type })
    })
  }

  private recover(event: SubmitEvent) {
    event.preventDefault()
    const data = new FormData(event.target as HTMLFormElement)
    const from = String(data.get("from") ?? "")
    const to = String(data.get("to") ?? "")
    // datetime-local values are the reader's local time.
    const since = new Date(from)
    const until = to === "" ? undefined : new Date(to)
    this.invalid = undefined
    if (until !== undefined && until.getTime() <= since.getTime()) {
      this.invalid = msg("webhook.recover.order")
      return
    }
    void this.act(async () => {
      const { recovered } = await this.context.client.post(`${this.base}/recover`, {
        since: since.toISOString(),
        ...(until === undefined ? {} : { until: until.toISOString() })
      })
      if (recovered > 0) this.refresh()
      return recovered === 0 ? msg("webhook.recover.none") : recovered === 1 ? msg("webhook.recover.one") : msg("webhook.recover.many", { count: recovered })
    })
  }

  private attempt(attempt: Attempt): TemplateResult {
    const ok = attempt.status_code !== null && attempt.status_code >= 200 && attempt.status_code < 300
    return html`<li>
      <span class="badge ${ok ? "active" : "failed"}">${attempt.status_code === null ? msg("webhook.attempt.noAnswer") : msg("webhook.attempt.status", { code: attempt.status_code })}</span>
      <span>${when(attempt.attempted_at)}</span>
      <span class="muted">${msg("webhook.attempt.took", { ms: attempt.latency_ms })}</span>
      ${attempt.error === null ? nothing : html`<span class="reason break">${attempt.error}</span>`}
      ${attempt.response_excerpt == null ? nothing : html`<details class="answer"><summary>${msg("webhook.attempt.answer")}</summary><pre>${attempt.response_excerpt}</pre></details>`}
      ${attempt.request_headers == null && attempt.response_headers == null ? nothing : html`<details class="headers"><summary>${msg("webhook.attempt.headers")}</summary>
        ${this.headerList(msg("webhook.attempt.requestHeaders"), attempt.request_headers)}
        ${attempt.response_headers == null ? html`<p class="muted">${msg("webhook.attempt.noResponseHeaders")}</p>` : this.headerList(msg("webhook.attempt.responseHeaders"), attempt.response_headers)}
      </details>`}
    </li>`
  }

  private headerList(title: string, headers: Headers | null | undefined): TemplateResult | typeof nothing {
    if (headers == null) return nothing
    const entries = Object.entries(headers).sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0)
    return html`<p class="headers-title">${title}</p>
      <dl class="headers">${entries.map(([name, value]) => html`<div><dt>${name}</dt><dd>${value}</dd></div>`)}</dl>`
  }

  private delivery(delivery: Delivery): TemplateResult {
    const name = `${delivery.event_type}, ${dateTime(delivery.created_at)}`
    return html`<li class="delivery">
      <div><strong><code>${delivery.event_type}</code></strong> <span class="badge ${deliveryBadge(delivery.status)}">${deliveryWords(delivery.status)}</span></div>
      <span class="muted">${msg("webhook.delivery.created", { when: when(delivery.created_at) })} · <span class="break">${msg("webhook.delivery.event", { id: delivery.event_id })}</span></span>
      ${delivery.next_attempt_at === null ? nothing : html`<span class="muted">${msg("webhook.delivery.next", { when: relative(delivery.next_attempt_at) })}</span>`}
      ${delivery.attempts.length === 0
      ? html`<span class="muted">${msg("webhook.attempts.none")}</span>`
      : html`<ol class="attempts" aria-label="${msg("webhook.attempts")}: ${name}">${delivery.attempts.map((a) => this.attempt(a))}</ol>`}
      <details class="event"><summary>${msg("webhook.delivery.body")}</summary><pre>${JSON.stringify(delivery.event, null, 2)}</pre></details>
      ${inFlight(delivery.status) ? nothing : html`<div><button type="button" class="secondary" ?disabled=${this.actions.busy}
        aria-label="${msg("webhook.redeliver")}: ${name}" @click=${() => this.redeliver(delivery)}>${msg("webhook.redeliver")}</button></div>`}
    </li>`
  }

  private header(webhook: Webhook): TemplateResult {
    const until = webhook.previous_secret_expires_at
    return html`<p><span class="badge ${stateBadge(webhook)}">${stateWords(webhook)}</span></p>
      ${webhook.description === null || webhook.description === "" ? nothing : html`<p>${webhook.description}</p>`}
      ${stateOf(webhook) === "failed" && webhook.disabled_reason !== null ? html`<p class="reason">${reasonWords(webhook.disabled_reason)}</p>` : nothing}
      <p class="muted">${msg("webhooks.events", { events: webhook.events.join(", "), scope: msg(webhook.workspace_id === null ? "webhooks.scope.all" : "webhooks.scope.one") })}</p>
      ${until === null ? nothing : html`<p class="muted">${msg("webhooks.oldSecret", { time: dateTime(until), relative: relative(until) })}</p>`}
      <div class="row webhook-actions">${webhookButtons(webhook, {
        busy: this.actions.busy,
        testTypeId: "test-type",
        test: (type) => this.sendTest(webhook, type),
        after: html`<button type="button" class="secondary" id="edit-webhook" ?disabled=${this.actions.busy} aria-expanded=${this.editing ? "true" : "false"}
          @click=${() => this.editing ? this.closeEdit() : this.openEdit()}>${msg("webhook.edit")}</button>`,
        toggle: () => this.toggle(webhook),
        rotate: () => void this.rotate(webhook)
      })}</div>`
  }

  private editView(webhook: Webhook): TemplateResult {
    const catalog = this.catalog
    // What the service said of the URL (a validation problem names the field), beside it.
    const urlError = this.editProblem?.errors?.filter((e) => e.path.at(-1) === "url").map((e) => e.message).join(" ") || undefined
    return html`<section class="card" aria-labelledby="edit-title">
      <h2 id="edit-title">${msg("webhook.edit.title")}</h2>
      <form class="edit" @submit=${this.save}>
        ${problemView(this.editProblem)}
        <label>${msg("webhooks.register.url")}
          <input id="edit-url" name="url" type="url" required pattern="https://.+" .value=${webhook.url} autocomplete="url"
            aria-invalid=${urlError === undefined ? nothing : "true"} aria-describedby=${urlError === undefined ? "edit-url-hint" : "edit-url-error edit-url-hint"}>
          ${urlError === undefined ? nothing : html`<span class="field-error" id="edit-url-error">${urlError}</span>`}
          <span class="hint" id="edit-url-hint">${msg("webhooks.register.url.hint")}</span></label>
        <label>${msg("webhook.edit.description")}<input name="description" maxlength="500" .value=${webhook.description ?? ""}></label>
        <fieldset aria-describedby=${this.editInvalid === undefined ? nothing : "edit-events-invalid"}>
          <legend>${msg("webhooks.register.events")}</legend>
          ${this.editInvalid === undefined ? nothing : html`<p class="problem" id="edit-events-invalid" role="alert">${this.editInvalid}</p>`}
          ${catalog === undefined ? loading() : catalog.map((t) => html`<label class="check"><input type="checkbox" name="events" value=${t.type} .checked=${webhook.events.includes(t.type)}>
            <span><code>${t.type}</code><br><span class="hint">${eventWords(t.type)}</span></span></label>`)}
        </fieldset>
        <div class="row"><button type="submit" ?disabled=${this.actions.busy || catalog === undefined}>${msg("webhook.edit.save")}</button>
          <button type="button" class="secondary" @click=${() => this.closeEdit()}>${msg("webhook.edit.cancel")}</button></div>
      </form>
    </section>`
  }

  private rateView(): TemplateResult {
    const rate = this.rate
    const window = (name: "last_24_hours" | "last_7_days") => {
      const tally = rate?.[name]
      const total = tally === undefined ? 0 : tally.succeeded + tally.failed
      return html`<div><dt>${msg(name === "last_24_hours" ? "webhook.rate.day" : "webhook.rate.week")}</dt><dd>${
        tally === undefined ? (this.rateFailed ? html`<span class="muted">${msg("webhook.rate.failed")}</span>` : loading()) : total === 0 ? html`<span class="muted">${msg("webhook.rate.none")}</span>` : html`<strong>${rateWords(tally)}</strong>
          <span class="muted">${msg("webhook.rate.counts", { succeeded: tally.succeeded, failed: tally.failed })}</span>`
      }</dd></div>`
    }
    return html`<section class="card" aria-labelledby="rate-title">
      <h2 id="rate-title">${msg("webhook.rate.title")}</h2>
      <dl class="rate">${window("last_24_hours")}${window("last_7_days")}</dl>
      <p class="hint">${msg("webhook.rate.hint")}</p>
    </section>`
  }

  private secretView(): TemplateResult {
    const secret = this.secret
    return html`<section class="card secret" aria-labelledby="secret-title">
      <h2 id="secret-title">${msg("webhook.secret.title")}</h2>
      <p class="hint" id="secret-hint">${msg("webhooks.secret.hint")}</p>
      ${secret === undefined
      ? html`<p class="muted">${msg("webhook.secret.hidden")}</p>
          <p><button type="button" class="secondary" id="reveal-secret" ?disabled=${this.actions.busy} @click=${() => this.reveal()}>${msg("webhook.secret.reveal")}</button></p>`
      : html`<label for="revealed-secret">${msg(secret.rotated ? "webhook.secret.new" : "webhook.secret.label")}</label>
          <div class="row"><input id="revealed-secret" class="grow" readonly .value=${secret.value} aria-describedby="secret-hint">
            <button type="button" @click=${() => void this.copy(secret.value)}>${msg("webhooks.secret.copy")}</button>
            <button type="button" class="secondary" @click=${() => this.hideSecret()}>${msg("webhook.secret.hide")}</button></div>
          ${this.copied === undefined ? nothing : html`<p class="hint" role="status">${this.copied}</p>`}`}
    </section>`
  }

  override render() {
    const pager = this.deliveries
    if (pager === undefined || pager.problem?.status === 403 || this.webhookProblem?.status === 403) {
      this.ready(msg("webhooks.forbidden.title"))
      return forbidden()
    }
    const webhook = this.webhook
    const title = webhook?.url ?? linkTitle() ?? msg("webhook.title")
    if ((pager.loaded || pager.problem !== undefined) && (webhook !== undefined || this.webhookProblem !== undefined)) this.ready(title)
    if (this.webhookProblem?.status === 404) {
      return html`<p><a href="webhooks">${msg("webhook.back")}</a></p><h1 class="break">${title}</h1>
        ${missingView(msg("problem.missing.webhook"), { href: "webhooks", text: msg("problem.missing.webhooks") })}`
    }
    return html`
      <p><a href="webhooks">${msg("webhook.back")}</a></p>
      <h1 class="break">${title}</h1>
      ${problemView(this.webhookProblem, () => {
        this.webhookProblem = undefined
        void this.load()
      })}
      ${webhook === undefined ? nothing : this.header(webhook)}
      ${noticeView(this.actions.notice, "webhook-notice")}
      ${problemView(this.actions.problem)}
      ${webhook === undefined || !this.editing ? nothing : this.editView(webhook)}
      ${webhook === undefined ? nothing : html`${this.rateView()}${this.secretView()}`}
      <section aria-labelledby="deliveries-title">
        <div class="row spread"><h2 id="deliveries-title">${msg("webhook.deliveries")}</h2>
          <button type="button" class="secondary" ?disabled=${pager.loading} @click=${() => this.refresh()}>${msg("webhook.deliveries.refresh")}</button></div>
        <p class="muted">${msg("webhook.deliveries.intro")}</p>
        <p><label class="inline">${msg("webhook.deliveries.show")}<select @change=${(event: Event) => {
          this.status = (event.target as HTMLSelectElement).value as DeliveryStatus | ""
          this.refresh()
        }}>${(["", "failed", "retrying", "pending", "succeeded"] as const).map((status) => html`<option value=${status} ?selected=${status === this.status}>${
          status === "" ? msg("webhook.deliveries.all") : deliveryWords(status)
        }</option>`)}</select></label></p>
        ${problemView(pager.problem, () => void pager.more())}
        ${!pager.loaded ? (pager.loading ? loading() : nothing) : pager.items.length === 0
      ? empty(msg(this.status === "" ? "webhook.deliveries.empty" : "webhook.deliveries.none"))
      : html`<ul class="items" aria-label=${msg("webhook.deliveries.caption")}>${pager.items.map((d) => this.delivery(d))}</ul>`}
        ${pager.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${pager.loading} @click=${() => void pager.more()}>${msg("webhook.deliveries.more")}</button></p>` : nothing}
      </section>
      <section class="card" aria-labelledby="recover-title">
        <h2 id="recover-title">${msg("webhook.recover.title")}</h2>
        <p class="muted">${msg("webhook.recover.intro")}</p>
        ${this.invalid === undefined ? nothing : html`<p class="problem" role="alert">${this.invalid}</p>`}
        <form class="recover" @submit=${this.recover}>
          <label>${msg("webhook.recover.from")}<input type="datetime-local" name="from" required></label>
          <label>${msg("webhook.recover.to")}<input type="datetime-local" name="to"></label>
          <div><button type="submit" ?disabled=${this.actions.busy}>${msg("webhook.recover.submit")}</button></div>
        </form>
      </section>
    `
  }
}

customElements.define("analytics-webhook", WebhookScreen)
