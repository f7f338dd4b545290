/**
 * The webhooks screen (`/webhooks`, tenant admins): the tenant's webhooks a
 * page at a time, each with its state (enabled, disabled, disabled after
 * failures with the reason), its events and, after a rotation, until when
 * the old secret is accepted; enable or disable, rotate the secret, send a
 * test event, delete (after a confirmation); and a form to register one
 * with event types from the catalog (`GET /v1/event-types`) in words. The
 * secret of a new or rotated webhook is shown with a copy button; the words say an admin can reveal it again on the webhook's page (`GET /v1/webhooks/{id}/secret`).
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, nothing, type TemplateResult } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { currentSession, isAdmin } from "../../client/Session.ts"
import { msg } from "../../i18n/msg.ts"
import { dateTime, relative, when } from "../../i18n/Time.ts"
import { Pager } from "../Pager.ts"
import { Actions } from "../Actions.ts"
import { clearFields, showRefusal } from "../FormErrors.ts"
import { Screen } from "../Screen.ts"
import { empty, loading, problemView } from "../States.ts"
import { chosenEvents, eventWords, type EventType, forbidden, reasonWords, stateBadge, stateOf, stateWords, type Webhook } from "../Webhook.ts"
import { confirmChange, copySecret, deleteWebhook, type HeardType, rotateSecret, sendTest, toggledWords, toggleWebhook, webhookButtons } from "../WebhookActions.ts"

/** A secret on screen: whose, and whether it replaced one (then until when the old one is accepted). */
interface ShownSecret {
  readonly webhook: Webhook
  readonly secret: string
  readonly rotated: boolean
}

/** A notice with, for a test send, a link to the webhook's deliveries. */
interface Notice {
  readonly text: string
  readonly href?: string | undefined
}

/** A workspace, as `GET /v1/workspaces` lists it. */
type Workspace = Json<typeof Groups.Workspaces.WorkspaceJson>

/** The firehose, which only the Scale plan may hear. */
const firehose = "audit.event"

/** The webhooks screen. */
export class WebhooksScreen extends Screen {
  static override properties = {
    ...Screen.properties,
    shown: { state: true },
    copied: { state: true },
    catalog: { state: true },
    registerProblem: { state: true },
    invalid: { state: true },
    workspaces: { state: true }
  }

  declare shown: ShownSecret | undefined
  declare copied: string | undefined
  declare catalog: ReadonlyArray<EventType> | undefined
  declare registerProblem: Problem | undefined
  declare invalid: string | undefined
  /** The tenant's workspaces (the first 100), for a webhook scoped to one. */
  declare workspaces: ReadonlyArray<Workspace>
  private pager: Pager<Webhook> | undefined

  /** The actions on a webhook: busy meanwhile, then focus on their problem, a new secret or their notice. */
  private readonly actions = new Actions<Notice>(this, (failed) => failed ? ".problem" : this.shown !== undefined ? ".secret-notice" : ".webhooks-notice")

  constructor() {
    super()
    this.workspaces = []
  }

  override connectedCallback() {
    super.connectedCallback()
    if (!isAdmin(currentSession())) return
    this.pager ??= new Pager((cursor) => this.context.client.list("v1/webhooks?limit=20", cursor), () => this.requestUpdate())
    if (!this.pager.loaded) void this.pager.more()
    if (this.catalog === undefined) void this.loadCatalog()
    if (this.workspaces.length === 0) void this.loadWorkspaces()
  }

  private async loadWorkspaces() {
    try {
      this.workspaces = (await this.context.client.list("v1/workspaces?limit=100")).data
    } catch {
      // Webhooks for every workspace can still be registered; a scoped one shows "one workspace".
    }
  }

  /** Where a webhook's events come from, in words. */
  private scope(webhook: Webhook): string {
    if (webhook.workspace_id === null) return msg("webhooks.scope.all")
    const name = this.workspaces.find((w) => w.workspace_id === webhook.workspace_id)?.name
    return name === undefined ? msg("webhooks.scope.one") : msg("webhooks.scope.named", { name })
  }

  private async loadCatalog() {
    try {
      this.catalog = (await this.context.client.list("v1/event-types")).data
    } catch (error) {
      this.registerProblem = problemIn(error)
    }
  }

  /** Replaces a webhook in the list with what the API answered. */
  private replace(webhook: Webhook) {
    const pager = this.pager!
    pager.items = pager.items.map((w) => w.webhook_id === webhook.webhook_id ? webhook : w)
  }

  /** Runs one action: busy meanwhile, its problem shown, then focus on what it said. */
  private act(action: () => Promise<Notice | undefined>): Promise<Notice | undefined> {
    return this.actions.run(action, (notice) => notice)
  }

  private toggle(webhook: Webhook) {
    void this.act(async () => {
      const changed = await toggleWebhook(this.context.client, webhook)
      this.replace(changed)
      return { text: toggledWords(changed) }
    })
  }

  /** Rotates after a confirmation: the receiver must learn the new secret within the old one's 24 hours. */
  private async rotate(webhook: Webhook) {
    if (!(await confirmChange(this, webhook, "rotate"))) return
    await this.act(async () => {
      const rotated = await rotateSecret(this.context.client, webhook)
      this.replace(rotated.webhook)
      this.copied = undefined
      this.shown = { webhook: rotated.webhook, secret: rotated.secret, rotated: true }
      return undefined
    })
  }

  private test(webhook: Webhook, type: HeardType) {
    void this.act(async () => {
      const delivery = await sendTest(this.context.client, webhook, type)
      return { text: msg("webhooks.test.sent", { type: delivery.event_type, url: webhook.url }), href: `webhooks/${encodeURIComponent(webhook.webhook_id)}` }
    })
  }

  private async deleteWebhook(webhook: Webhook) {
    if (!(await confirmChange(this, webhook, "delete"))) return
    await this.act(async () => {
      await deleteWebhook(this.context.client, webhook)
      const pager = this.pager!
      pager.items = pager.items.filter((w) => w.webhook_id !== webhook.webhook_id)
      if (this.shown?.webhook.webhook_id === webhook.webhook_id) this.shown = undefined
      return { text: msg("webhooks.deleted", { url: webhook.url }) }
    })
  }

  private async register(event: SubmitEvent) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    const data = new FormData(form)
    const url = String(data.get("url") ?? "").trim()
    const description = String(data.get("description") ?? "").trim()
    const events = chosenEvents(data, this.catalog)
    const workspace = String(data.get("workspace") ?? "")
    this.invalid = undefined
    this.registerProblem = undefined
    if (events.length === 0) {
      this.invalid = msg("webhooks.register.needEvent")
      await this.updateComplete
      this.querySelector<HTMLInputElement>("input[name=events]")?.focus()
      return
    }
    this.actions.busy = true
    clearFields(form)
    try {
      const created = await this.context.client.post("v1/webhooks", {
        url,
        events,
        ...(description === "" ? {} : { description }),
        ...(workspace === "" ? {} : { workspace_id: workspace })
      })
      const { secret, ...webhook } = created
      this.pager?.prepend(webhook)
      this.copied = undefined
      this.actions.notice = undefined
      this.actions.problem = undefined
      this.shown = { webhook, secret, rotated: false }
      form.reset()
    } catch (error) {
      this.actions.busy = false
      // The fields the service names (the url) are marked, focus on the first; else on the box.
      return showRefusal(this, form, problemIn(error), (problem) => (this.registerProblem = problem), "#register .problem")
    } finally {
      this.actions.busy = false
    }
    await this.updateComplete
    this.querySelector<HTMLElement>(".secret-notice")?.focus()
  }

  private async copy(secret: string) {
    this.copied = await copySecret(secret, this.querySelector<HTMLInputElement>("#webhook-secret"))
  }

  /** Forgets the secret (it is not kept anywhere in the page once dismissed). */
  private dismiss() {
    this.shown = undefined
    this.copied = undefined
    void this.updateComplete.then(() => this.querySelector<HTMLElement>("h1")?.focus())
  }

  private secretView(shown: ShownSecret): TemplateResult {
    const until = shown.webhook.previous_secret_expires_at
    return html`<section class="card secret" aria-labelledby="secret-title">
      <p id="secret-title" class="notice secret-notice" tabindex="-1" role="status"><strong>${msg(shown.rotated ? "webhooks.secret.rotated" : "webhooks.secret.created")}</strong></p>
      <label for="webhook-secret" class="break">${msg("webhooks.secret.label", { url: shown.webhook.url })}</label>
      <div class="row"><input id="webhook-secret" class="grow" readonly .value=${shown.secret} aria-describedby="secret-hint">
        <button type="button" @click=${() => void this.copy(shown.secret)}>${msg("webhooks.secret.copy")}</button></div>
      <p class="hint" id="secret-hint">${msg("webhooks.secret.hint")}</p>
      ${shown.rotated && until !== null ? html`<p><strong>${this.oldSecret(until)}</strong></p>` : nothing}
      ${this.copied === undefined ? nothing : html`<p class="hint" role="status">${this.copied}</p>`}
      <p><button type="button" class="secondary" @click=${this.dismiss}>${msg("webhooks.secret.done")}</button></p>
    </section>`
  }

  private oldSecret(until: string): string {
    return msg("webhooks.oldSecret", { time: dateTime(until), relative: relative(until) })
  }

  private row(webhook: Webhook): TemplateResult {
    const state = stateOf(webhook)
    const until = webhook.previous_secret_expires_at
    return html`<li class="webhook">
      <div><a class="break" href="webhooks/${encodeURIComponent(webhook.webhook_id)}" data-title=${webhook.url}>${webhook.url}</a>
        <span class="badge ${stateBadge(webhook)}">${stateWords(webhook)}</span></div>
      ${webhook.description === null || webhook.description === "" ? nothing : html`<span>${webhook.description}</span>`}
      <span class="muted">${msg("webhooks.events", { events: webhook.events.join(", "), scope: this.scope(webhook) })}</span>
      ${state === "failed" && webhook.disabled_reason !== null ? html`<span class="reason">${reasonWords(webhook.disabled_reason)}</span>` : nothing}
      ${until === null ? nothing : html`<span class="muted">${this.oldSecret(until)}</span>`}
      <span class="muted">${msg("webhooks.registered", { when: when(webhook.created_at) })}</span>
      <div class="row actions">${webhookButtons(webhook, {
        busy: this.actions.busy,
        label: (action) => msg("webhooks.actionsFor", { action, url: webhook.url }),
        test: (type) => this.test(webhook, type),
        toggle: () => this.toggle(webhook),
        rotate: () => void this.rotate(webhook),
        remove: () => void this.deleteWebhook(webhook)
      })}</div>
    </li>`
  }

  private registerView(): TemplateResult {
    const catalog = this.catalog
    return html`<section class="card" id="register" aria-labelledby="register-title">
      <h2 id="register-title">${msg("webhooks.register.title")}</h2>
      ${problemView(this.registerProblem, undefined, "register-problem")}
      <form @submit=${this.register}>
        <label>${msg("webhooks.register.url")}
          <input name="url" type="url" required pattern="https://.+" placeholder="https://" aria-describedby="url-hint" autocomplete="url">
          <span class="hint" id="url-hint">${msg("webhooks.register.url.hint")}</span></label>
        <label>${msg("webhooks.register.description")}<input name="description" maxlength="500"></label>
        ${this.workspaces.length === 0 ? nothing : html`<label>${msg("webhooks.register.workspace")}<select name="workspace" data-field="workspace_id">
          <option value="">${msg("webhooks.register.workspace.all")}</option>
          ${this.workspaces.map((w) => html`<option value=${w.workspace_id}>${w.name}</option>`)}</select></label>`}
        <fieldset aria-describedby=${this.invalid === undefined ? nothing : "events-invalid"}>
          <legend>${msg("webhooks.register.events")}</legend>
          ${this.invalid === undefined ? nothing : html`<p class="problem" id="events-invalid" role="alert">${this.invalid}</p>`}
          ${catalog === undefined ? loading() : catalog.map((t) => html`<label class="check"><input type="checkbox" name="events" value=${t.type}>
            <span><code>${t.type}</code><br><span class="hint">${eventWords(t.type)}${t.type === firehose ? ` ${msg("webhooks.register.firehose")}` : ""}</span></span></label>`)}
        </fieldset>
        <div><button type="submit" ?disabled=${this.actions.busy || catalog === undefined}>${msg("webhooks.register.submit")}</button></div>
      </form>
    </section>`
  }

  override render() {
    const pager = this.pager
    if (pager === undefined || pager.problem?.status === 403) {
      this.ready(msg("webhooks.forbidden.title"))
      return forbidden()
    }
    if (pager.loaded || pager.problem !== undefined) this.ready(msg("webhooks.title"))
    const notice = this.actions.notice
    return html`
      <h1>${msg("webhooks.title")}</h1>
      <p class="muted">${msg("webhooks.intro")}</p>
      ${this.shown === undefined ? nothing : this.secretView(this.shown)}
      ${notice === undefined ? nothing : html`<p class="notice webhooks-notice" role="status" tabindex="-1">${notice.text}${
        notice.href === undefined ? nothing : html` <a href=${notice.href}>${msg("webhooks.test.see")}</a>`
      }</p>`}
      ${problemView(this.actions.problem)}
      ${problemView(pager.problem, () => void pager.more())}
      ${!pager.loaded ? (pager.loading ? loading() : nothing) : pager.items.length === 0
      ? empty(msg("webhooks.empty"), msg("webhooks.empty.hint"))
      : html`<ul class="items" aria-label=${msg("webhooks.caption")}>${pager.items.map((w) => this.row(w))}</ul>`}
      ${pager.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${pager.loading} @click=${() => void pager.more()}>${msg("webhooks.more")}</button></p>` : nothing}
      ${this.registerView()}
    `
  }
}

customElements.define("analytics-webhooks", WebhooksScreen)
