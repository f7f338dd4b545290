/**
 * A workspace's scheduled exports (`/w/{workspace_id}/schedules`, tenant
 * admins: `GET /v1/export-schedules` is theirs): each schedule with its
 * report, format, recipients and timing in plain words ("Every Monday at
 * 09:00 (Europe/Paris)"); create and edit (report, format, cron and time
 * zone, recipients, on or off), turn on and off, **Send now**, its run
 * history (`GET /v1/export-schedules/{id}/runs`: each recipient's job),
 * and delete after a confirmation.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, nothing, type TemplateResult } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { type Format, formats, formatWords, sizeWords, visualFormats } from "../../client/Jobs.ts"
import { oneOf } from "../FormValues.ts"
import { type MessageKey, msg } from "../../i18n/msg.ts"
import { confirmDialog } from "../../elements/Confirm.ts"
import { Pager } from "../Pager.ts"
import { Actions, noticeView } from "../Actions.ts"
import { clearFields, showRefusal } from "../FormErrors.ts"
import { Screen } from "../Screen.ts"
import { empty, loading, problemView } from "../States.ts"

/** A schedule as the API shows it (the contract's). */
type Schedule = Json<typeof Groups.ExportSchedules.ScheduleJson>

/** A recipient's job in a schedule's history. */
type RunDelivery = Json<typeof Groups.ExportSchedules.RunDeliveryJson>

/** A report of the workspace, to schedule: its name, its pages and their visuals. */
type ReportSummary = Json<typeof Groups.Reports.ReportJson>

const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/

/** A time in the reader's words and zone, the zone named (the schedule's may be another): "Nov 30, 2026, 8:00 AM UTC". */
const whenWords = (iso: string): string =>
  new Date(iso).toLocaleString(undefined, { year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit", timeZoneName: "short" })

/** The reader's time zone, the form's default. */
const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone ?? "UTC"

/** The schedules screen. */
export class SchedulesScreen extends Screen {
  static override properties = {
    ...Screen.properties,
    formProblem: { state: true },
    editing: { state: true },
    cron: { state: true },
    zone: { state: true },
    format: { state: true },
    visuals: { state: true }
  }
  declare formProblem: Problem | undefined
  /** The schedule being edited, `"new"` for a new one, or none. */
  declare editing: Schedule | "new" | undefined
  declare cron: string
  declare zone: string
  declare format: Format
  /** The visuals of the form's report, for one visual's formats. */
  declare visuals: ReadonlyArray<{ readonly id: string; readonly title: string }>
  private schedules: Pager<Schedule> | undefined
  private readonly reports: Array<ReportSummary> = []
  private reportsLoaded = false
  private readonly runs = new Map<string, Pager<RunDelivery>>()
  private words: ((cron: string, zone: string) => string) | undefined

  /** The changes to a schedule: busy meanwhile, then focus on their notice or problem at the top of the list. */
  private readonly actions = new Actions(this, (failed) => failed ? ".schedules-problem" : ".schedules-notice")

  constructor() {
    super()
    this.formProblem = undefined
    this.editing = undefined
    this.cron = "0 9 * * 1"
    this.zone = localZone()
    this.format = "pdf"
    this.visuals = []
  }

  override connectedCallback() {
    super.connectedCallback()
    const id = encodeURIComponent(this.workspaceId)
    this.schedules ??= new Pager((cursor) => this.context.client.list(`v1/export-schedules?workspace_id=${id}&limit=50`, cursor), () => this.requestUpdate())
    if (!this.schedules.loaded) void this.schedules.more()
    void this.loadReports(id)
    // The cron formatter is its own small chunk.
    import("../CronWords.ts").then((m) => {
      this.words = m.cronWords
      this.requestUpdate()
    }).catch(() => undefined)
  }


  private async loadReports(id: string) {
    try {
      const page = await this.context.client.list(`v1/reports?workspace_id=${id}&limit=100`)
      this.reports.push(...page.data)
    } catch {
      // The ids stand for the names; the form says it has no report to offer.
    }
    this.reportsLoaded = true
    this.requestUpdate()
  }

  private cronText(schedule: { readonly cron: string; readonly timezone: string }): string {
    return this.words?.(schedule.cron, schedule.timezone) ?? `${schedule.cron} (${schedule.timezone})`
  }

  private reportName(id: string): string {
    return this.reports.find((r) => r.report_id === id)?.name ?? id
  }

  private replace(schedule: Schedule) {
    const pager = this.schedules!
    pager.items = pager.items.map((s) => s.schedule_id === schedule.schedule_id ? schedule : s)
    this.requestUpdate()
  }

  /** Runs a change; its notice or problem is shown at the top of the list and gets focus. */
  private change(run: () => Promise<string>): Promise<string | undefined> {
    return this.actions.run(run, (notice) => notice)
  }

  private path<const Tail extends string = "">(schedule: Schedule, tail: Tail = "" as Tail): `v1/export-schedules/${string}${Tail}` {
    return `v1/export-schedules/${encodeURIComponent(schedule.schedule_id)}${tail}`
  }

  private toggle(schedule: Schedule) {
    return this.change(async () => {
      const changed = await this.context.client.patch(this.path(schedule), { enabled: !schedule.enabled })
      this.replace(changed)
      return changed.enabled
        ? msg("schedules.enabled.done", { name: changed.name, at: changed.next_run_at === null ? "—" : whenWords(changed.next_run_at) })
        : msg("schedules.disabled.done", { name: changed.name })
    })
  }

  private sendNow(schedule: Schedule) {
    return this.change(async () => {
      const run = await this.context.client.post(this.path(schedule, "/send-now"))
      this.replace(await this.context.client.get(this.path(schedule)))
      const history = this.runs.get(schedule.schedule_id)
      if (history !== undefined) this.openHistory(schedule)
      const count = run.deliveries.length
      return count === 1 ? msg("schedules.sent.one", { name: schedule.name }) : msg("schedules.sent", { name: schedule.name, count })
    })
  }

  private async deleteSchedule(schedule: Schedule) {
    const yes = await confirmDialog(this, {
      title: msg("schedules.delete.title"),
      text: msg("schedules.delete.confirm", { name: schedule.name, recipients: this.recipientWords(schedule) }),
      yes: msg("schedules.delete.yes"),
      no: msg("schedules.delete.no")
    })
    if (!yes) return
    await this.change(async () => {
      await this.context.client.delete(this.path(schedule))
      const pager = this.schedules!
      pager.items = pager.items.filter((s) => s.schedule_id !== schedule.schedule_id)
      this.runs.delete(schedule.schedule_id)
      return msg("schedules.deleted", { name: schedule.name })
    })
  }

  private openHistory(schedule: Schedule) {
    const pager = new Pager((cursor) => this.context.client.list(`${this.path(schedule, "/runs")}?limit=20`, cursor), () => this.requestUpdate())
    this.runs.set(schedule.schedule_id, pager)
    void pager.more()
    this.requestUpdate()
  }

  private toggleHistory(schedule: Schedule) {
    if (this.runs.has(schedule.schedule_id)) {
      this.runs.delete(schedule.schedule_id)
      this.requestUpdate()
    } else {
      this.openHistory(schedule)
    }
  }

  // ---- The form

  private edit(schedule: Schedule | "new" | undefined) {
    this.editing = schedule
    this.formProblem = undefined
    if (schedule !== undefined) {
      this.cron = schedule === "new" ? "0 9 * * 1" : schedule.cron
      this.zone = schedule === "new" ? localZone() : schedule.timezone
      this.format = schedule === "new" ? "pdf" : schedule.format
      const reportId = schedule === "new" ? this.reports[0]?.report_id : schedule.report_id
      if (reportId !== undefined) void this.loadVisuals(reportId)
    }
    void this.updateComplete.then(() => {
      const target = schedule === undefined ? this.querySelector<HTMLElement>("#new-schedule") : this.querySelector<HTMLElement>("#schedule-name")
      target?.focus()
    })
  }

  private async loadVisuals(reportId: string) {
    try {
      const report = await this.context.client.get(`v1/reports/${encodeURIComponent(reportId)}`)
      this.visuals = report.pages.flatMap((p) => p.visuals.map((v) => ({ id: v.id, title: `${p.name}: ${v.title ?? v.id}` })))
    } catch {
      this.visuals = []
    }
  }

  private async save(event: Event) {
    event.preventDefault()
    const editing = this.editing
    if (editing === undefined) return
    const form = event.target as HTMLFormElement
    const data = new FormData(form)
    const text = (name: string) => String(data.get(name) ?? "").trim()
    const recipients = text("recipients").split(/[\s,;]+/).filter((r) => r !== "")
    // Checked here first, said the way the service's refusals are: the field marked, the box listing it.
    const refuse = (message: string, field: string) =>
      showRefusal(this, form, {
        status: 400,
        code: "client",
        title: msg("problem.title.invalid"),
        detail: "",
        action: msg("problem.action.fix"),
        errors: [{ path: [field], message }]
      }, (problem) => (this.formProblem = problem), ".form-problem")
    if (recipients.length === 0) return refuse(msg("schedules.needRecipients"), "recipients")
    const bad = recipients.find((r) => !emailPattern.test(r))
    if (bad !== undefined) return refuse(msg("schedules.badRecipient", { email: bad }), "recipients")
    const oneVisual = visualFormats.has(this.format)
    const visual = text("visual")
    if (oneVisual && visual === "") return refuse(msg("schedules.needVisual"), "visual_id")
    const fields = {
      name: text("name"),
      cron: text("cron"),
      timezone: text("timezone"),
      format: this.format,
      recipients,
      enabled: data.get("enabled") !== null
    }
    this.actions.busy = true
    this.formProblem = undefined
    clearFields(form)
    try {
      const client = this.context.client
      const saved = editing === "new"
        ? await client.post("v1/export-schedules", { ...fields, report_id: text("report"), ...(oneVisual ? { visual_id: visual } : {}) })
        : await client.patch(this.path(editing), { ...fields, visual_id: oneVisual ? visual : null })
      if (editing === "new") this.schedules!.prepend(saved)
      else this.replace(saved)
      this.editing = undefined
      this.actions.notice = msg(editing === "new" ? "schedules.created" : "schedules.saved", { name: saved.name })
      await this.updateComplete
      this.querySelector<HTMLElement>(".schedules-notice")?.focus()
    } catch (error) {
      this.actions.busy = false
      await showRefusal(this, form, problemIn(error), (problem) => (this.formProblem = problem), ".form-problem")
    } finally {
      this.actions.busy = false
    }
  }

  private renderForm(editing: Schedule | "new"): TemplateResult {
    const isNew = editing === "new"
    const current = isNew ? undefined : editing
    const oneVisual = visualFormats.has(this.format)
    const title = isNew ? msg("schedules.new") : msg("schedules.edit.title", { name: editing.name })
    return html`<section class="card" aria-labelledby="schedule-form-title">
      <h2 id="schedule-form-title">${title}</h2>
      ${problemView(this.formProblem, undefined, "form-problem")}
      <form class="stack" @submit=${this.save} novalidate>
        <label>${msg("schedules.name")}<input id="schedule-name" name="name" required maxlength="200" .value=${current?.name ?? ""}></label>
        <label>${msg("schedules.report")}<select name="report" data-field="report_id" ?disabled=${!isNew}
          @change=${(e: Event) => void this.loadVisuals((e.target as HTMLSelectElement).value)}>${
          this.reports.map((r) => html`<option value=${r.report_id} ?selected=${r.report_id === current?.report_id}>${r.name}</option>`)
        }</select></label>
        <label>${msg("schedules.format")}<select name="format" @change=${(e: Event) => (this.format = oneOf((e.target as HTMLSelectElement).value, formats) ?? this.format)}>${
          formats.map((f) => html`<option value=${f} ?selected=${f === this.format}>${msg(formatWords(f))}</option>`)
        }</select></label>
        ${oneVisual ? html`<label>${msg("schedules.visual")}<select id="schedule-visual" name="visual" data-field="visual_id">${
          this.visuals.map((v) => html`<option value=${v.id} ?selected=${v.id === current?.visual_id}>${v.title}</option>`)
        }</select></label>` : nothing}
        <div class="field">
          <label for="schedule-cron">${msg("schedules.cron")}</label>
          <input id="schedule-cron" name="cron" required .value=${this.cron} aria-describedby="cron-words cron-hint" spellcheck="false" autocomplete="off"
            @input=${(e: Event) => (this.cron = (e.target as HTMLInputElement).value)}>
          <p class="cron-words" id="cron-words" aria-live="polite"><strong>${this.cronText({ cron: this.cron, timezone: this.zone })}</strong></p>
          <p class="hint" id="cron-hint">${msg("schedules.cron.hint")}</p>
        </div>
        <label>${msg("schedules.timezone")}<input name="timezone" required list="zones" .value=${this.zone} autocomplete="off" spellcheck="false"
          @input=${(e: Event) => (this.zone = (e.target as HTMLInputElement).value)}></label>
        <datalist id="zones">${(Intl.supportedValuesOf?.("timeZone") ?? []).map((z) => html`<option value=${z}></option>`)}</datalist>
        <div class="field">
          <label for="schedule-recipients">${msg("schedules.recipients")}</label>
          <textarea id="schedule-recipients" name="recipients" rows="3" aria-describedby="recipients-hint" .value=${current?.recipients.join("\n") ?? ""}></textarea>
          <p class="hint" id="recipients-hint">${msg("schedules.recipients.hint")}</p>
        </div>
        <label class="check"><input type="checkbox" name="enabled" ?checked=${current?.enabled ?? true}>${msg("schedules.enabled")}</label>
        <div class="row">
          <button type="submit" ?disabled=${this.actions.busy}>${isNew ? msg("schedules.create") : msg("schedules.save")}</button>
          <button type="button" class="secondary" @click=${() => this.edit(undefined)}>${msg("schedules.cancel")}</button>
        </div>
      </form>
    </section>`
  }

  // ---- The list

  private renderRuns(schedule: Schedule): TemplateResult | typeof nothing {
    const runs = this.runs.get(schedule.schedule_id)
    if (runs === undefined) return nothing
    const id = `runs-${schedule.schedule_id}`
    return html`<div class="runs">
      <h3 id=${id}>${msg("schedules.history.title", { name: schedule.name })}</h3>
      ${problemView(runs.problem, () => void runs.more())}
      ${!runs.loaded ? (runs.loading ? loading() : nothing) : runs.items.length === 0 ? html`<p class="muted">${msg("schedules.history.empty")}</p>` : html`<ul aria-labelledby=${id}>${
        runs.items.map((run) => html`<li>
          <span>${whenWords(run.created_at)}</span> · <span>${run.recipient}</span> ·
          ${run.status === "succeeded" && run.mail === "logged"
            // succeeded, but nobody got it: the host has no mail service
            ? html`<span class="badge paused">${msg("schedules.run.status.logged")}</span>`
            : html`<span class="badge ${run.status === "succeeded" ? "active" : run.status === "failed" ? "failed" : "paused"}">${msg(`schedules.run.status.${run.status}` as MessageKey)}</span>`}
          ${run.result === null ? nothing : html` · <span class="muted">${run.result.filename} (${sizeWords(run.result.bytes)})</span>`}
          ${run.error === null ? nothing : html` · <span class="muted">${run.error.detail}</span>`}
        </li>`)
      }</ul>`}
      ${runs.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${runs.loading} @click=${() => void runs.more()}>${msg("schedules.history.more")}</button></p>` : nothing}
    </div>`
  }

  private recipientWords(schedule: Schedule): string {
    const count = schedule.recipients.length
    return count === 1 ? msg("schedules.recipientCount.one") : msg("schedules.recipientCount", { count })
  }

  private row(schedule: Schedule): TemplateResult {
    const name = schedule.name
    const recipients = this.recipientWords(schedule)
    const open = this.runs.has(schedule.schedule_id)
    return html`<li>
      <div><strong>${name}</strong> <span class="badge ${schedule.enabled ? "active" : "paused"}">${msg(schedule.enabled ? "schedules.on" : "schedules.off")}</span></div>
      <span>${this.cronText(schedule)}</span>
      <span class="muted">${msg("schedules.meta", { report: this.reportName(schedule.report_id), format: schedule.format.toUpperCase(), recipients })}</span>
      <span class="muted">${schedule.next_run_at === null ? msg("schedules.next.none") : msg("schedules.next", { at: whenWords(schedule.next_run_at) })}${
        schedule.last_run === null ? "" : ` · ${msg("schedules.last", { at: whenWords(schedule.last_run.at) })}`
      }</span>
      <div class="row">
        <button type="button" class="secondary" aria-label="${msg("schedules.edit")}: ${name}" @click=${() => this.edit(schedule)}>${msg("schedules.edit")}</button>
        <button type="button" class="secondary" ?disabled=${this.actions.busy} aria-label="${msg(schedule.enabled ? "schedules.disable" : "schedules.enable")}: ${name}"
          @click=${() => void this.toggle(schedule)}>${msg(schedule.enabled ? "schedules.disable" : "schedules.enable")}</button>
        <button type="button" class="secondary" ?disabled=${this.actions.busy} aria-label="${msg("schedules.sendNow")}: ${name}" @click=${() => void this.sendNow(schedule)}>${msg("schedules.sendNow")}</button>
        <button type="button" class="secondary" aria-expanded=${open ? "true" : "false"} aria-label="${msg(open ? "schedules.history.hide" : "schedules.history")}: ${name}"
          @click=${() => this.toggleHistory(schedule)}>${msg(open ? "schedules.history.hide" : "schedules.history")}</button>
        <button type="button" class="danger secondary" ?disabled=${this.actions.busy} aria-label="${msg("schedules.delete")}: ${name}" @click=${() => void this.deleteSchedule(schedule)}>${msg("schedules.delete")}</button>
      </div>
      ${this.renderRuns(schedule)}
    </li>`
  }

  override render() {
    const schedules = this.schedules!
    const loaded = schedules.loaded && this.reportsLoaded
    if (loaded || schedules.problem !== undefined) this.ready(msg("schedules.title"))
    return html`
      <p><a href="w/${encodeURIComponent(this.workspaceId)}">${msg("schedules.back")}</a></p>
      <h1>${msg("schedules.title")}</h1>
      <p class="muted">${msg("schedules.intro")}</p>
      ${noticeView(this.actions.notice, "schedules-notice")}
      ${this.actions.problem === undefined ? nothing : html`<div class="schedules-problem" tabindex="-1">${problemView(this.actions.problem)}</div>`}
      ${this.editing === undefined
        ? html`<p><button type="button" id="new-schedule" ?disabled=${!loaded || this.reports.length === 0} @click=${() => this.edit("new")}>${msg("schedules.new")}</button></p>`
        : this.renderForm(this.editing)}
      ${problemView(schedules.problem, () => void schedules.more())}
      ${!loaded ? (schedules.problem === undefined ? loading() : nothing) : schedules.items.length === 0 ? empty(msg("schedules.empty")) : html`<ul class="items schedules" aria-label=${msg("schedules.caption")}>${
        schedules.items.map((s) => this.row(s))
      }</ul>`}
      ${schedules.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${schedules.loading} @click=${() => void schedules.more()}>${msg("schedules.history.more")}</button></p>` : nothing}
    `
  }
}

customElements.define("analytics-schedules", SchedulesScreen)
