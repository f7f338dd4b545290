/**
 * A workspace's alerts (`/w/{workspace_id}/alerts`): each alert's rule in
 * words ("Total amount is above 1,000"), its state (OK or Firing) and what
 * it last measured. Tenant admins create and edit them (name, dataset,
 * measure, condition, threshold, when it is checked), check one now, and
 * delete one after a confirmation; everyone who reads the workspace sees
 * each alert's history (`GET /v1/alerts/{id}/history`: every check, what
 * it measured, and when it fired or resolved).
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, nothing, type TemplateResult } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { currentSession, isAdmin } from "../../client/Session.ts"
import { type MessageKey, msg } from "../../i18n/msg.ts"
import { confirmDialog } from "../../elements/Confirm.ts"
import { Pager } from "../Pager.ts"
import { Actions, noticeView } from "../Actions.ts"
import { oneOf } from "../FormValues.ts"
import { Screen } from "../Screen.ts"
import { empty, loading, problemView } from "../States.ts"

/** An alert as the API shows it (the contract's). */
type Alert = Json<typeof Groups.Alerts.AlertJson>

const conditions: ReadonlyArray<Alert["condition"]> = ["gt", "gte", "lt", "lte"]

/** One check in an alert's history. */
type Check = Json<typeof Groups.Alerts.AlertCheckJson>

/** A dataset of the workspace, to watch: its name and its model's measures. */
type DatasetSummary = Json<typeof Groups.Datasets.DatasetJson>

/** A time in the reader's words. */
const whenWords = (iso: string): string =>
  new Date(iso).toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" })

/** A number in the reader's words. */
const numberWords = (value: number): string => value.toLocaleString(undefined, { maximumFractionDigits: 6 })

/** The alerts screen. */
export class AlertsScreen extends Screen {
  static override properties = {
    ...Screen.properties,
    formProblem: { state: true },
    editing: { state: true },
    datasetId: { state: true }
  }
  declare formProblem: Problem | undefined
  /** The alert being edited, `"new"` for a new one, or none. */
  declare editing: Alert | "new" | undefined
  /** The form's dataset, whose measures it offers. */
  declare datasetId: string
  private alerts: Pager<Alert> | undefined
  private readonly datasets: Array<DatasetSummary> = []
  private datasetsLoaded = false
  private readonly histories = new Map<string, Pager<Check>>()

  /** The changes to an alert: busy meanwhile, then focus on their notice or problem at the top of the list. */
  private readonly actions = new Actions(this, (failed) => failed ? ".alerts-problem" : ".alerts-notice")

  constructor() {
    super()
    this.formProblem = undefined
    this.editing = undefined
    this.datasetId = ""
  }

  override connectedCallback() {
    super.connectedCallback()
    const id = encodeURIComponent(this.workspaceId)
    this.alerts ??= new Pager((cursor) => this.context.client.list(`v1/alerts?workspace_id=${id}&limit=50`, cursor), () => this.requestUpdate())
    if (!this.alerts.loaded) void this.alerts.more()
    void this.loadDatasets(id)
  }

  private async loadDatasets(id: string) {
    try {
      const page = await this.context.client.list(`v1/datasets?workspace_id=${id}&limit=100`)
      this.datasets.push(...page.data)
    } catch {
      // The ids stand for the names; the form says it has no dataset to offer.
    }
    this.datasetsLoaded = true
    this.requestUpdate()
  }

  private datasetOf(id: string): DatasetSummary | undefined {
    return this.datasets.find((d) => d.dataset_id === id)
  }

  /** A measure by its title in its dataset's model, else its name. */
  private measureWords(datasetId: string, measure: string): string {
    return this.datasetOf(datasetId)?.model.measures.find((m) => m.name === measure)?.title ?? measure
  }

  /** The rule in words: "Total amount is above 1,000". */
  private ruleWords(alert: Pick<Alert, "dataset_id" | "measure" | "condition" | "threshold">): string {
    return msg(`alerts.rule.${alert.condition}` as MessageKey, { measure: this.measureWords(alert.dataset_id, alert.measure), threshold: numberWords(alert.threshold) })
  }

  private path<const Tail extends string = "">(alert: Alert, tail: Tail = "" as Tail): `v1/alerts/${string}${Tail}` {
    return `v1/alerts/${encodeURIComponent(alert.alert_id)}${tail}`
  }

  private replace(alert: Alert) {
    const pager = this.alerts!
    pager.items = pager.items.map((a) => a.alert_id === alert.alert_id ? alert : a)
    this.requestUpdate()
  }

  private change(run: () => Promise<string>): Promise<string | undefined> {
    return this.actions.run(run, (notice) => notice)
  }

  private checkNow(alert: Alert) {
    return this.change(async () => {
      const checked = await this.context.client.post(this.path(alert, "/check"))
      this.replace(checked)
      if (this.histories.has(alert.alert_id)) this.openHistory(alert)
      const value = checked.last_value === null ? msg("alerts.value.none") : numberWords(checked.last_value)
      return msg(checked.state === "firing" ? "alerts.checked.firing" : "alerts.checked.ok", { name: checked.name, value })
    })
  }

  private async deleteAlert(alert: Alert) {
    const yes = await confirmDialog(this, {
      title: msg("alerts.delete.title"),
      text: msg("alerts.delete.confirm", { name: alert.name }),
      yes: msg("alerts.delete.yes"),
      no: msg("alerts.delete.no")
    })
    if (!yes) return
    await this.change(async () => {
      await this.context.client.delete(this.path(alert))
      const pager = this.alerts!
      pager.items = pager.items.filter((a) => a.alert_id !== alert.alert_id)
      this.histories.delete(alert.alert_id)
      return msg("alerts.deleted", { name: alert.name })
    })
  }

  private openHistory(alert: Alert) {
    const pager = new Pager((cursor) => this.context.client.list(`${this.path(alert, "/history")}?limit=20`, cursor), () => this.requestUpdate())
    this.histories.set(alert.alert_id, pager)
    void pager.more()
    this.requestUpdate()
  }

  private toggleHistory(alert: Alert) {
    if (this.histories.has(alert.alert_id)) {
      this.histories.delete(alert.alert_id)
      this.requestUpdate()
    } else {
      this.openHistory(alert)
    }
  }

  // ---- The form

  private edit(alert: Alert | "new" | undefined) {
    this.editing = alert
    this.formProblem = undefined
    if (alert !== undefined) this.datasetId = alert === "new" ? this.datasets[0]?.dataset_id ?? "" : alert.dataset_id
    void this.updateComplete.then(() => {
      const target = alert === undefined ? this.querySelector<HTMLElement>("#new-alert") : this.querySelector<HTMLElement>("#alert-name")
      target?.focus()
    })
  }

  private async save(event: Event) {
    event.preventDefault()
    const editing = this.editing
    if (editing === undefined) return
    const data = new FormData(event.target as HTMLFormElement)
    const text = (name: string) => String(data.get(name) ?? "").trim()
    const refuse = (title: string, field: string) => {
      this.formProblem = { status: 400, code: "client", title, detail: "", action: msg("problem.action.fix") }
      void this.updateComplete.then(() => this.querySelector<HTMLElement>(field)?.focus())
    }
    if (text("name") === "") return refuse(msg("alerts.needName"), "#alert-name")
    const threshold = Number(text("threshold").replace(",", "."))
    if (text("threshold") === "" || !Number.isFinite(threshold)) return refuse(msg("alerts.needThreshold"), "#alert-threshold")
    const cron = text("cron")
    const schedule = { after_refresh: data.get("after_refresh") !== null, ...(cron === "" ? {} : { cron }) }
    if (!schedule.after_refresh && cron === "") return refuse(msg("alerts.needWhen"), "#alert-after-refresh")
    const fields = { name: text("name"), measure: text("measure"), condition: oneOf(data.get("condition"), conditions) ?? "gt", threshold, schedule }
    this.actions.busy = true
    this.formProblem = undefined
    try {
      const client = this.context.client
      const saved = editing === "new"
        ? await client.post("v1/alerts", { ...fields, dataset_id: this.datasetId })
        : await client.patch(this.path(editing), fields)
      if (editing === "new") this.alerts!.prepend(saved)
      else this.replace(saved)
      this.editing = undefined
      this.actions.notice = msg(editing === "new" ? "alerts.created" : "alerts.saved", { name: saved.name })
      await this.updateComplete
      this.querySelector<HTMLElement>(".alerts-notice")?.focus()
    } catch (error) {
      this.formProblem = problemIn(error)
      await this.updateComplete
      this.querySelector<HTMLElement>(".form-problem")?.focus()
    } finally {
      this.actions.busy = false
    }
  }

  private renderForm(editing: Alert | "new"): TemplateResult {
    const isNew = editing === "new"
    const current = isNew ? undefined : editing
    const measures = this.datasetOf(this.datasetId)?.model.measures ?? []
    const title = isNew ? msg("alerts.new") : msg("alerts.edit.title", { name: editing.name })
    return html`<section class="card" aria-labelledby="alert-form-title">
      <h2 id="alert-form-title">${title}</h2>
      ${this.formProblem === undefined ? nothing : html`<div class="problem form-problem" role="alert" tabindex="-1">
        <strong>${this.formProblem.title}</strong>
        ${this.formProblem.detail === "" ? nothing : html`<p>${this.formProblem.detail}</p>`}
        <p>${this.formProblem.action}</p>
      </div>`}
      <form class="stack" @submit=${this.save} novalidate>
        <label>${msg("alerts.name")}<input id="alert-name" name="name" required maxlength="200" .value=${current?.name ?? ""}></label>
        <label>${msg("alerts.dataset")}<select name="dataset" ?disabled=${!isNew}
          @change=${(e: Event) => (this.datasetId = (e.target as HTMLSelectElement).value)}>${
          this.datasets.map((d) => html`<option value=${d.dataset_id} ?selected=${d.dataset_id === this.datasetId}>${d.name}</option>`)
        }</select></label>
        <label>${msg("alerts.measure")}<select name="measure">${
          measures.map((m) => html`<option value=${m.name} ?selected=${m.name === current?.measure}>${m.title ?? m.name}</option>`)
        }</select></label>
        <label>${msg("alerts.condition")}<select name="condition">${
          conditions.map((c) => html`<option value=${c} ?selected=${c === (current?.condition ?? "gt")}>${msg(`alerts.condition.${c}` as MessageKey)}</option>`)
        }</select></label>
        <label>${msg("alerts.threshold")}<input id="alert-threshold" name="threshold" inputmode="decimal" required autocomplete="off"
          .value=${current === undefined ? "" : String(current.threshold)}></label>
        <fieldset class="stack">
          <legend>${msg("alerts.when")}</legend>
          <label class="check"><input id="alert-after-refresh" type="checkbox" name="after_refresh" ?checked=${current?.schedule.after_refresh ?? true}>${msg("alerts.afterRefresh")}</label>
          <div class="field">
            <label for="alert-cron">${msg("alerts.cron")}</label>
            <input id="alert-cron" name="cron" .value=${current?.schedule.cron ?? ""} aria-describedby="alert-cron-hint" spellcheck="false" autocomplete="off">
            <p class="hint" id="alert-cron-hint">${msg("alerts.cron.hint")}</p>
          </div>
        </fieldset>
        <p class="hint">${msg("alerts.notify")}</p>
        <div class="row">
          <button type="submit" ?disabled=${this.actions.busy}>${isNew ? msg("alerts.create") : msg("alerts.save")}</button>
          <button type="button" class="secondary" @click=${() => this.edit(undefined)}>${msg("alerts.cancel")}</button>
        </div>
      </form>
    </section>`
  }

  // ---- The list

  private renderHistory(alert: Alert): TemplateResult | typeof nothing {
    const history = this.histories.get(alert.alert_id)
    if (history === undefined) return nothing
    const id = `history-${alert.alert_id}`
    return html`<div class="runs">
      <h3 id=${id}>${msg("alerts.history.title", { name: alert.name })}</h3>
      ${problemView(history.problem, () => void history.more())}
      ${!history.loaded ? (history.loading ? loading() : nothing) : history.items.length === 0 ? html`<p class="muted">${msg("alerts.history.empty")}</p>` : html`<ul aria-labelledby=${id}>${
        history.items.map((check) => html`<li>
          <span>${whenWords(check.checked_at)}</span> ·
          ${check.transition === null
            ? html`<span class="badge ${check.state === "firing" ? "failed" : "active"}">${msg(`alerts.state.${check.state}`)}</span>`
            : html`<span class="badge ${check.transition === "fired" ? "failed" : "active"}">${msg(`alerts.transition.${check.transition}`)}</span>`} ·
          <span>${msg("alerts.history.measured", { value: check.value === null ? msg("alerts.value.none") : numberWords(check.value), rule: this.ruleWords({ ...check, dataset_id: alert.dataset_id }) })}</span> ·
          <span class="muted">${msg(`alerts.trigger.${check.trigger}`)}</span>
        </li>`)
      }</ul>`}
      ${history.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${history.loading} @click=${() => void history.more()}>${msg("alerts.more")}</button></p>` : nothing}
    </div>`
  }

  private row(alert: Alert, admin: boolean): TemplateResult {
    const name = alert.name
    const open = this.histories.has(alert.alert_id)
    const dataset = this.datasetOf(alert.dataset_id)?.name ?? alert.dataset_id
    const when = [alert.schedule.after_refresh ? msg("alerts.when.afterRefresh") : "", alert.schedule.cron === undefined ? "" : msg("alerts.when.cron", { cron: alert.schedule.cron })]
      .filter((w) => w !== "").join(" · ")
    return html`<li>
      <div><strong>${name}</strong> <span class="badge ${alert.state === "firing" ? "failed" : "active"}">${msg(`alerts.state.${alert.state}`)}</span></div>
      <span>${this.ruleWords(alert)}</span>
      <span class="muted">${msg("alerts.meta", { dataset, when })}</span>
      <span class="muted">${alert.last_checked_at === null
        ? msg("alerts.never")
        : msg("alerts.last", { at: whenWords(alert.last_checked_at), value: alert.last_value === null ? msg("alerts.value.none") : numberWords(alert.last_value) })}</span>
      <div class="row">
        ${admin ? html`
          <button type="button" class="secondary" aria-label="${msg("alerts.edit")}: ${name}" @click=${() => this.edit(alert)}>${msg("alerts.edit")}</button>
          <button type="button" class="secondary" ?disabled=${this.actions.busy} aria-label="${msg("alerts.check")}: ${name}" @click=${() => void this.checkNow(alert)}>${msg("alerts.check")}</button>` : nothing}
        <button type="button" class="secondary" aria-expanded=${open ? "true" : "false"} aria-label="${msg(open ? "alerts.history.hide" : "alerts.history")}: ${name}"
          @click=${() => this.toggleHistory(alert)}>${msg(open ? "alerts.history.hide" : "alerts.history")}</button>
        ${admin ? html`<button type="button" class="danger secondary" ?disabled=${this.actions.busy} aria-label="${msg("alerts.delete")}: ${name}" @click=${() => void this.deleteAlert(alert)}>${msg("alerts.delete")}</button>` : nothing}
      </div>
      ${this.renderHistory(alert)}
    </li>`
  }

  override render() {
    const alerts = this.alerts!
    const loaded = alerts.loaded && this.datasetsLoaded
    const admin = isAdmin(currentSession())
    if (loaded || alerts.problem !== undefined) this.ready(msg("alerts.title"))
    return html`
      <p><a href="w/${encodeURIComponent(this.workspaceId)}">${msg("alerts.back")}</a></p>
      <h1>${msg("alerts.title")}</h1>
      <p class="muted">${msg("alerts.intro")}</p>
      ${noticeView(this.actions.notice, "alerts-notice")}
      ${this.actions.problem === undefined ? nothing : html`<div class="alerts-problem" tabindex="-1">${problemView(this.actions.problem)}</div>`}
      ${!admin ? nothing : this.editing === undefined
        ? html`<p><button type="button" id="new-alert" ?disabled=${!loaded || this.datasets.length === 0} @click=${() => this.edit("new")}>${msg("alerts.new")}</button></p>`
        : this.renderForm(this.editing)}
      ${problemView(alerts.problem, () => void alerts.more())}
      ${!loaded ? (alerts.problem === undefined ? loading() : nothing) : alerts.items.length === 0 ? empty(msg("alerts.empty")) : html`<ul class="items alerts" aria-label=${msg("alerts.caption")}>${
        alerts.items.map((a) => this.row(a, admin))
      }</ul>`}
      ${alerts.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${alerts.loading} @click=${() => void alerts.more()}>${msg("alerts.more")}</button></p>` : nothing}
    `
  }
}

customElements.define("analytics-alerts", AlertsScreen)
