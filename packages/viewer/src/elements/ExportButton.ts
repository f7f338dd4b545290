/**
 * `<analytics-export-button report-id="…">`: a button that opens a small
 * dialog to export a report (docs/guides/console.md): the format (the
 * service's, or those `formats` lists), the pages (PDF, Excel,
 * PowerPoint) or the visual (one visual's formats), the filters as the
 * report shows them now (property `filters`); then `POST
 * /v1/reports/{id}/export`, the job's progress from its `percent_complete`
 * (polled as its `Retry-After` says), a cancel button (`DELETE
 * /v1/jobs/{id}`), and the file downloaded under its name through the
 * job's signed URL (`GET /v1/jobs/{id}/result`).
 *
 * Attributes `report-id`, `report-name`, `visual-id`, `formats`
 * (`"pdf,xlsx,csv"`), `base-url`; methods `show()` and `close()`; events
 * `analytics-export-done` with `{ job_id, url, filename }` and
 * `analytics-problem` with `{ problem }`, bubbling out of shadow roots.
 * Calls go through `client` when the console hands one, else to
 * `base-url` (default: `<meta name="analytics-base-url">`, else the page's
 * base) with the session's cookie and CSRF token.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { css, html, LitElement, nothing, type TemplateResult } from "lit"
import { type ApiClient, type Problem, problemIn } from "../client/ApiClient.ts"
import type { PayloadAt } from "../client/ApiPaths.ts"
import { download, follow, type Format, formats as allFormats, formatWords, type Job, resultOf, sizeWords, visualFormats } from "../client/Jobs.ts"
import { msg } from "../i18n/msg.ts"
import { ModalController, modalStyles, noticeLine, problemBox } from "./Modal.ts"

/** What the dialog asks for (`POST /v1/reports/{id}/export`). */
type ExportRequest = PayloadAt<"POST", `v1/reports/${string}/export`>

/** What the dialog reads of the report (`GET /v1/reports/{id}`): its name, pages, visuals and filters. */
type ReportShape = Json<typeof Groups.Reports.ReportJson>

/** Values of the report's filters by name, as `<analytics-report>` and the export request take them. */
export type FilterValues = Exclude<NonNullable<ExportRequest["filters"]>, ReadonlyArray<unknown>>

type Phase = "form" | "running" | "done"

/** What has focus when the dialog opens or changes: a problem or notice first, else the form's choice, the cancel button or the first button. */
const firstFocus = ".problem, .notice, input[name=format]:checked, button.cancel, .frame button"

const nonEmpty = (text: string | null | undefined): string | undefined => text == null || text === "" ? undefined : text

/** The formats `formats` names, in the service's order; all of them when it names none it knows. */
export const formatsOf = (attribute: string | null): ReadonlyArray<Format> => {
  const named = new Set((attribute ?? "").split(",").map((f) => f.trim().toLowerCase()))
  const chosen = allFormats.filter((f) => named.has(f))
  return chosen.length === 0 ? allFormats : chosen
}

/** A filter's value in words (`EU, US`; a range as `from – to`). */
export const valueWords = (value: unknown): string => {
  if (Array.isArray(value)) return value.map(valueWords).join(", ")
  if (typeof value === "object" && value !== null) {
    const range = value as { from?: unknown; to?: unknown }
    if ("from" in range || "to" in range) return `${valueWords(range.from ?? "…")} – ${valueWords(range.to ?? "…")}`
    return JSON.stringify(value)
  }
  return String(value)
}

/** The export button and its dialog. */
export class AnalyticsExportButton extends LitElement {
  static override properties = {
    reportId: { attribute: "report-id" },
    reportName: { attribute: "report-name" },
    visualId: { attribute: "visual-id" },
    formats: { attribute: "formats" },
    baseUrl: { attribute: "base-url" },
    filters: { attribute: false },
    client: { attribute: false },
    open: { state: true },
    report: { state: true },
    format: { state: true },
    pages: { state: true },
    visual: { state: true },
    phase: { state: true },
    job: { state: true },
    problem: { state: true },
    invalid: { state: true },
    busy: { state: true },
    notice: { state: true },
    file: { state: true },
    waitLeft: { state: true }
  }

  static override styles = [modalStyles, css`
    :host { display: inline-block; font: 16px/1.5 var(--analytics-font, system-ui, sans-serif); color: var(--analytics-fg, #1b1f24); }
    dialog { width: min(520px, calc(100vw - 24px)); text-align: start; }
    fieldset { gap: 6px; }
    select { font: inherit; color: inherit; background: var(--analytics-bg, #fff); border: 1px solid var(--analytics-muted, #57606a); border-radius: 6px; padding: 8px 10px; width: 100%; box-sizing: border-box; }
    a.button { font: inherit; font-weight: 600; cursor: pointer; border-radius: 6px; padding: 8px 14px; border: 1px solid var(--analytics-primary, #2563eb);
      background: var(--analytics-primary, #2563eb); color: var(--analytics-on-primary, #fff); text-decoration: none; display: inline-block; line-height: 1.5; }
    button { line-height: 1.5; }
    a.button.secondary { background: transparent; color: var(--analytics-primary, #2563eb); }
    dl { margin: 0; display: grid; grid-template-columns: auto 1fr; gap: 2px 12px; }
    dt { font-weight: 600; }
    dd { margin: 0; overflow-wrap: anywhere; }
    progress { width: 100%; height: 12px; accent-color: var(--analytics-primary, #2563eb); }
  `]

  declare reportId: string
  declare reportName: string | null
  declare visualId: string | null
  declare formats: string | null
  declare baseUrl: string | null
  declare filters: FilterValues | undefined
  declare client: ApiClient | undefined
  declare open: boolean
  declare report: ReportShape | undefined
  declare format: Format
  declare pages: ReadonlyArray<string>
  declare visual: string
  declare phase: Phase
  declare job: Job | undefined
  declare problem: Problem | undefined
  declare invalid: string | undefined
  declare busy: boolean
  declare notice: string | undefined
  declare file: { readonly url: string; readonly filename: string } | undefined
  /** Seconds left before the export limit lets this person export again (its `Retry-After`); undefined when not waiting. */
  declare waitLeft: number | undefined
  private waiting: ReturnType<typeof setInterval> | undefined

  private polling: AbortController | undefined
  /** The dialog: focus in on its first control, back to the button on closing. */
  private readonly modal = new ModalController(this, {
    dialog: "dialog",
    focus: firstFocus,
    opened: () => {
      if (this.report === undefined) void this.loadReport()
    },
    returnTo: () => this.renderRoot.querySelector<HTMLElement>("button.opener")
  })

  constructor() {
    super()
    this.reportId = ""
    this.reportName = null
    this.visualId = null
    this.formats = null
    this.baseUrl = null
    this.filters = undefined
    this.client = undefined
    this.open = false
    this.report = undefined
    this.format = "pdf"
    this.pages = []
    this.visual = ""
    this.phase = "form"
    this.job = undefined
    this.problem = undefined
    this.invalid = undefined
    this.busy = false
    this.notice = undefined
    this.file = undefined
  }

  /** Opens the dialog on its form. */
  show(): void {
    if (this.phase !== "running") {
      this.phase = "form"
      this.problem = undefined
      this.notice = undefined
      this.invalid = undefined
    }
    const offered = formatsOf(this.formats)
    if (!offered.includes(this.format)) this.format = offered[0]!
    this.modal.show()
  }

  /** Closes the dialog (an export under way goes on; the button says so). */
  close(): void {
    this.modal.close()
  }

  private get api(): ApiClient {
    return this.modal.api
  }

  override disconnectedCallback() {
    super.disconnectedCallback()
    this.polling?.abort()
    clearInterval(this.waiting)
  }

  private focusFirst() {
    this.modal.focus(firstFocus)
  }

  private async loadReport() {
    try {
      const report = await this.api.get(`v1/reports/${encodeURIComponent(this.reportId)}`)
      this.report = report
      this.pages = report.pages.map((p) => p.name)
      this.visual = this.visualId ?? report.pages[0]?.visuals[0]?.id ?? ""
    } catch (error) {
      this.fail(problemIn(error))
    }
  }

  private fail(problem: Problem) {
    this.problem = problem
    this.dispatchEvent(new CustomEvent("analytics-problem", { detail: { problem }, bubbles: true, composed: true }))
    this.focusFirst()
  }

  private togglePage(name: string, on: boolean) {
    const set = new Set(this.pages)
    if (on) set.add(name)
    else set.delete(name)
    this.pages = (this.report?.pages ?? []).map((p) => p.name).filter((p) => set.has(p))
  }

  /** The export request: the format, the pages unless all, the visual for one visual's formats, the filters. */
  private request(): ExportRequest | string {
    const filters = this.filters !== undefined && Object.keys(this.filters).length > 0 ? { filters: this.filters } : {}
    if (visualFormats.has(this.format)) {
      if (this.visual === "") return msg("export.needVisual")
      return { format: this.format, visual_id: this.visual, ...filters }
    }
    if (this.pages.length === 0) return msg("export.needPage")
    const all = this.report?.pages.length ?? 0
    return { format: this.format, ...(this.pages.length < all ? { pages: this.pages } : {}), ...filters }
  }

  private async start(event: Event) {
    event.preventDefault()
    const body = this.request()
    if (typeof body === "string") {
      this.invalid = body
      return
    }
    this.invalid = undefined
    this.problem = undefined
    this.notice = undefined
    this.busy = true
    let retryAfter: string | null = null
    try {
      const job = await this.api.post(`v1/reports/${encodeURIComponent(this.reportId)}/export`, body, {
        onHeaders: (h) => (retryAfter = h.get("retry-after"))
      })
      this.busy = false
      await this.run(job)
    } catch (error) {
      this.busy = false
      this.phase = "form"
      const problem = problemIn(error)
      if (problem.code !== "rate-limit/exports-exceeded") return this.fail(problem)
      this.fail(this.limitProblem(problem, retryAfter))
      this.holdFor(Math.ceil(Number(retryAfter)))
    }
  }

  /**
   * Holds the Export button for the limit's `Retry-After`, counting down on
   * it, so a person is not refused again for pressing early; when the wait
   * is over, the refusal gives way to a notice (a live region) that they may
   * export again.
   */
  private holdFor(seconds: number) {
    clearInterval(this.waiting)
    if (!Number.isFinite(seconds) || seconds <= 0) return
    const until = Date.now() + seconds * 1000
    this.waitLeft = seconds
    this.waiting = setInterval(() => {
      const left = Math.ceil((until - Date.now()) / 1000)
      if (left > 0) return void (this.waitLeft = left)
      clearInterval(this.waiting)
      this.waitLeft = undefined
      if (this.problem?.code === "rate-limit/exports-exceeded") {
        this.problem = undefined
        this.notice = msg("export.limit.over")
      }
    }, 250)
  }

  /** The UI's export class in words: 30 a minute per person, and how long to wait. */
  private limitProblem(problem: Problem, retryAfter: string | null): Problem {
    const seconds = Math.ceil(Number(retryAfter))
    return {
      ...problem,
      title: msg("export.limit.title"),
      action: !Number.isFinite(seconds) || seconds <= 0 ? msg("export.limit.waitBit") : seconds === 1 ? msg("export.limit.waitOne") : msg("export.limit.wait", { seconds })
    }
  }

  /** Follows the job to its end, then downloads its file. */
  private async run(job: Job) {
    this.job = job
    this.phase = "running"
    this.focusFirst()
    const polling = new AbortController()
    this.polling = polling
    const done = await follow(this.api, job, (j) => (this.job = j), polling.signal)
    if (polling.signal.aborted) return
    this.polling = undefined
    if (done.status === "succeeded") {
      const result = await resultOf(this.api, done.job_id)
      download(result.url, result.filename)
      this.file = { url: result.url, filename: result.filename }
      this.notice = msg("export.ready", { filename: result.filename, size: sizeWords(result.bytes) })
      this.phase = "done"
      this.focusFirst()
      this.dispatchEvent(new CustomEvent("analytics-export-done", { detail: { job_id: done.job_id, url: result.url, filename: result.filename }, bubbles: true, composed: true }))
    } else if (done.status === "canceled") {
      this.phase = "form"
      this.notice = msg("export.canceled")
      this.focusFirst()
    } else {
      this.phase = "form"
      const kind = done.error?.kind ?? "permanent"
      this.fail({ status: 0, code: `export/${kind}`, title: msg("export.failed"), detail: done.error?.detail ?? "", action: msg(`export.failed.${kind}`) })
    }
  }

  private async cancel() {
    const job = this.job
    this.polling?.abort()
    this.polling = undefined
    this.phase = "form"
    if (job === undefined) return
    try {
      await this.api.delete(`v1/jobs/${encodeURIComponent(job.job_id)}`)
      this.notice = msg("export.canceled")
      this.focusFirst()
    } catch (error) {
      this.fail(problemIn(error))
    }
  }

  // ---- Rendering

  override render() {
    const name = nonEmpty(this.reportName) ?? nonEmpty(this.report?.name) ?? null
    const running = this.phase === "running"
    // While an export runs with the dialog closed, the button shows its progress (and its name holds those words).
    const label = !running ? msg("export.open") : this.job?.status === "running" ? msg("export.running", { percent: this.job.percent_complete }) : msg("export.queued.short")
    return html`<button type="button" class="opener secondary" part="button" aria-label=${name === null ? label : running ? `${label}: ${name}` : msg("export.open.named", { name })}
      aria-haspopup="dialog" @click=${() => this.show()}>${label}</button>
    <dialog aria-labelledby="export-title" @close=${this.modal.closed}>
      ${this.open ? html`<div class="frame">
        <header>
          <h2 id="export-title">${name === null ? msg("export.title.default") : msg("export.title", { name })}</h2>
          <button type="button" class="close" aria-label=${msg("export.close")} @click=${() => this.close()}>✕</button>
        </header>
        ${problemBox(this.problem)}
        ${noticeLine(this.notice)}
        ${this.phase === "running" ? this.renderRunning() : this.phase === "done" ? this.renderDone() : this.renderForm()}
      </div>` : nothing}
    </dialog>`
  }

  private renderForm(): TemplateResult {
    const report = this.report
    const oneVisual = visualFormats.has(this.format)
    return html`<form @submit=${this.start} novalidate>
      <fieldset>
        <legend>${msg("export.format")}</legend>
        ${formatsOf(this.formats).map((f) => html`<label class="check">
          <input type="radio" name="format" value=${f} .checked=${this.format === f} @change=${() => (this.format = f, this.invalid = undefined)}>
          ${msg(formatWords(f))}
        </label>`)}
      </fieldset>
      ${report === undefined ? nothing : oneVisual ? this.visualId === null ? html`<label>${msg("export.visual")}
        <select name="visual" @change=${(e: Event) => (this.visual = (e.target as HTMLSelectElement).value)}>
          ${report.pages.map((p) => html`<optgroup label=${p.name}>${
            p.visuals.map((v) => html`<option value=${v.id} ?selected=${v.id === this.visual}>${v.title ?? v.id}</option>`)
          }</optgroup>`)}
        </select></label>` : html`<p><strong>${msg("export.visual")}</strong>: ${this.visualTitle(report)}</p>` : report.pages.length > 1 ? html`<fieldset>
        <legend>${msg("export.pages")}</legend>
        <p class="hint">${msg("export.pages.hint")}</p>
        ${report.pages.map((p) => html`<label class="check"><input type="checkbox" name="page" value=${p.name} .checked=${this.pages.includes(p.name)}
          @change=${(e: Event) => this.togglePage(p.name, (e.target as HTMLInputElement).checked)}>${p.name}</label>`)}
      </fieldset>` : nothing}
      ${this.renderFilters()}
      ${this.invalid === undefined ? nothing : html`<p class="problem" role="alert"><strong>${this.invalid}</strong></p>`}
      <div class="row"><button type="submit" ?disabled=${this.busy || report === undefined || this.waitLeft !== undefined}>${
      this.busy ? msg("export.starting") : this.waitLeft !== undefined ? msg("export.limit.again", { seconds: this.waitLeft }) : msg("export.start")
    }</button></div>
    </form>`
  }

  /** The title of the visual the page named (`visual-id`), else its id. */
  private visualTitle(report: ReportShape): string {
    const visual = report.pages.flatMap((p) => p.visuals).find((v) => v.id === this.visualId)
    return visual?.title ?? this.visualId ?? ""
  }

  private renderFilters(): TemplateResult {
    // Named by their titles, which the report gives: until it is read, the filters wait with it (never their raw names).
    if (this.report === undefined) {
      return html`<div><p><strong>${msg("export.filters")}</strong></p><p class="hint">${msg("app.loading")}</p></div>`
    }
    const values = Object.entries(this.filters ?? {}).filter(([, v]) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0))
    const titles = new Map((this.report?.filters ?? []).map((f) => [f.name, f.title ?? f.name]))
    return html`<div>
      <p><strong>${msg("export.filters")}</strong></p>
      ${values.length === 0 ? html`<p class="hint">${msg("export.filters.none")}</p>` : html`<dl>${
        values.map(([k, v]) => html`<dt>${titles.get(k) ?? k}</dt><dd>${valueWords(v)}</dd>`)
      }</dl><p class="hint">${msg("export.filters.hint")}</p>`}
    </div>`
  }

  private renderRunning(): TemplateResult {
    const job = this.job
    const percent = job?.percent_complete ?? 0
    const words = job === undefined || job.status === "queued" ? msg("export.queued") : msg("export.running", { percent })
    // Queued, the bar has no value (it moves without saying how far); running, the job's percent.
    return html`<div class="running">
      <p role="status">${words}</p>
      <p><progress max="100" value=${job?.status === "running" ? percent : nothing} aria-label=${msg("export.progress")}></progress></p>
      <div class="row"><button type="button" class="secondary cancel" @click=${() => void this.cancel()}>${msg("export.cancel")}</button></div>
    </div>`
  }

  private renderDone(): TemplateResult {
    const file = this.file!
    return html`<div class="row">
      <a class="button" href=${file.url} download=${file.filename} rel="noopener">${msg("export.again")}</a>
      <button type="button" class="secondary" @click=${() => this.show()}>${msg("export.another")}</button>
    </div>`
  }
}

if (customElements.get("analytics-export-button") === undefined) customElements.define("analytics-export-button", AnalyticsExportButton)
