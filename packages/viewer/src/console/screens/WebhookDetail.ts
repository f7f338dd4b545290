/**
 * One webhook (`/webhooks/{webhook_id}`, tenant admins): its state and its
 * deliveries, newest first, a page at a time ("Load more"), each with its
 * event type, status and every attempt (the answer's status code or what
 * went wrong, when, how long it took). Deliveries the worker has not
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
import { type Attempt, type Delivery, deliveryBadge, type DeliveryStatus, deliveryWords, forbidden, reasonWords, inFlight, stateBadge, stateOf, stateWords, type Webhook } from "../Webhook.ts"

/** How often unfinished deliveries are re-read. */
const pollMillis = 1_000

/** A webhook's screen. */
export class WebhookScreen extends Screen {
  static override properties = {
    ...Screen.properties,
    webhook: { state: true },
    webhookProblem: { state: true },
    invalid: { state: true },
    status: { state: true }
  }

  declare webhook: Webhook | undefined
  declare webhookProblem: Problem | undefined
  declare invalid: string | undefined
  /** The deliveries shown: of one status, or all (`""`). */
  declare status: DeliveryStatus | ""
  private deliveries: Pager<Delivery> | undefined
  private timer: ReturnType<typeof setTimeout> | undefined

  /** Redelivery and recovery: busy meanwhile, then focus on their notice or problem. */
  private readonly actions = new Actions(this, (failed) => failed ? ".problem" : ".webhook-notice")

  constructor() {
    super()
    this.status = ""
  }

  override connectedCallback() {
    super.connectedCallback()
    if (!isAdmin(currentSession())) return
    if (this.deliveries === undefined) {
      this.deliveries = this.pager()
      void this.deliveries.more()
      void this.load()
    }
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private get base(): string {
    return `v1/webhooks/${encodeURIComponent(this.context.match.params.webhook ?? "")}`
  }

  private pager(): Pager<Delivery> {
    const status = this.status === "" ? "" : `&status=${this.status}`
    return new Pager<Delivery>(this.context.client, `${this.base}/deliveries?limit=20${status}`, () => this.requestUpdate())
  }

  private async load() {
    try {
      this.webhook = await this.context.client.get<Webhook>(this.base)
    } catch (error) {
      this.webhookProblem = problemIn(error)
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
          this.replace(await this.context.client.get<Delivery>(`${this.base}/deliveries/${encodeURIComponent(d.delivery_id)}`))
        } catch {
          // Read again at the next turn; a lasting problem shows on the next action.
        }
      }))
      this.timer = undefined
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
  }

  private act(action: () => Promise<string>): Promise<string | undefined> {
    return this.actions.run(action, (notice) => notice)
  }

  private redeliver(delivery: Delivery) {
    void this.act(async () => {
      this.replace(await this.context.client.post<Delivery>(`${this.base}/deliveries/${encodeURIComponent(delivery.delivery_id)}/redeliver`))
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
      const { recovered } = await this.context.client.post<{ recovered: number }>(`${this.base}/recover`, {
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
    </li>`
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
      ${until === null ? nothing : html`<p class="muted">${msg("webhooks.oldSecret", { time: dateTime(until), relative: relative(until) })}</p>`}`
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
