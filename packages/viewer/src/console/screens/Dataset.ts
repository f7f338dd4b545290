/**
 * A dataset's screen (`/w/{workspace_id}/datasets/{dataset_id}`, tenant
 * admins): what it reads and how many rows it holds; a CSV sent with its
 * progress (`PUT /v1/datasets/{id}/data`, `client/Upload.ts`); a refresh
 * (a PostgreSQL table read again; an upload is refreshed by sending its
 * file again) and the refresh history (`GET /v1/datasets/{id}/refreshes`);
 * and the model editor: measures' and dimensions' titles and formats, the
 * row-level security policies, saved with `PATCH /v1/datasets/{id}`, the
 * API's validation errors shown beside the fields they name. A file the
 * model does not fit is told in words (the columns the model reads that
 * the file lacks, the file's columns it does not read), with the way out:
 * replacing the model with the file's columns (`?model=suggested`, asked
 * first); tenant admins may delete the dataset, the confirmation naming its
 * rows (decision 0013, "Recovering from a file that does not fit"); one
 * that reports, dashboards or alerts use the service refuses (409
 * `dataset/in-use`), told in words with a link to each.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, nothing, type TemplateResult } from "lit"
import { type DatasetUses, type FieldError, type Problem, problemIn } from "../../client/ApiClient.ts"
import { isAdmin, currentSession } from "../../client/Session.ts"
import { upload } from "../../client/Upload.ts"
import { confirmDialog } from "../../elements/Confirm.ts"
import { msg } from "../../i18n/msg.ts"
import { adoptDataStyles } from "../../theme/DataStyles.ts"
import { crumbs } from "../Crumbs.ts"
import { Pager } from "../Pager.ts"
import { linkTitle } from "../Router.ts"
import { Screen } from "../Screen.ts"
import { sourceWords, takesFiles } from "../Sources.ts"
import { empty, loading, missingView, problemView } from "../States.ts"
import { type DatasetSummary, when } from "./Datasets.ts"

/** A dataset as its screen reads it: the contract's, with its model and columns. */
type Dataset = DatasetSummary
type Model = Dataset["model"]
type Measure = Model["measures"][number]
type Dimension = Model["dimensions"][number]
/** A refresh as the dataset's history lists it. */
type Refresh = Json<typeof Groups.Datasets.RefreshJson>

/** The key of a field an error path names: its path after `model` (`measures.0.format`), cut to the editor's fields. */
export const fieldKey = (path: ReadonlyArray<string | number>): string => {
  const at = path.indexOf("model")
  const rest = (at < 0 ? path : path.slice(at + 1)).map(String)
  if (rest[0] === "row_level_security") return "row_level_security"
  // measures.0.format.currency is shown by the format's fields together.
  if (rest[0] === "measures" || rest[0] === "dimensions") return rest.slice(0, 3).join(".")
  return rest.join(".")
}

/** The dataset screen. */
export class DatasetScreen extends Screen {
  static override properties = {
    ...Screen.properties,
    progress: { state: true },
    busy: { state: true },
    notice: { state: true }
  }
  declare progress: number | undefined
  declare busy: boolean
  declare notice: string | undefined
  private record: Dataset | undefined
  private problem: Problem | undefined
  private uploadProblem: Problem | undefined
  private refreshProblem: Problem | undefined
  private modelProblem: Problem | undefined
  private deleteProblem: Problem | undefined
  /** The file last sent, kept while the model does not fit it: replacing the model sends it again. */
  private lastFile: { readonly file: File; readonly type: string } | undefined
  private deleted = false
  private fieldErrors = new Map<string, string>()
  private history: Pager<Refresh> | undefined

  constructor() {
    super()
    this.progress = undefined
    this.busy = false
    this.notice = undefined
  }

  override connectedCallback() {
    super.connectedCallback()
    adoptDataStyles()
    this.readWorkspaceName()
    if (this.record === undefined) void this.load()
    this.loadHistory()
  }


  private get datasetId(): string {
    return this.context.match.params.dataset ?? ""
  }

  private get path(): `v1/datasets/${string}` {
    return `v1/datasets/${encodeURIComponent(this.datasetId)}`
  }

  private async load() {
    this.problem = undefined
    try {
      this.record = await this.context.client.get(this.path)
    } catch (error) {
      this.problem = problemIn(error)
    }
    this.requestUpdate()
  }

  private loadHistory() {
    this.history = new Pager((cursor) => this.context.client.list(`${this.path}/refreshes?limit=20`, cursor), () => this.requestUpdate())
    void this.history.more()
  }

  private async send(event: Event) {
    event.preventDefault()
    const input = (event.target as HTMLFormElement).elements.namedItem("file") as HTMLInputElement
    const file = input.files?.[0]
    if (file === undefined) return
    const type = /\.parquet$/i.test(file.name) ? "application/vnd.apache.parquet" : "text/csv"
    await this.sendFile({ file, type }, "keep")
  }

  /** Sends a file: keeping the model, or replacing it with the one suggested from the file's columns. */
  private async sendFile(sent: { readonly file: File; readonly type: string }, model: "keep" | "suggested"): Promise<boolean> {
    this.uploadProblem = undefined
    this.notice = undefined
    this.busy = true
    this.progress = 0
    try {
      const query = model === "suggested" ? "?model=suggested" : ""
      this.record = await upload<Dataset>("PUT", `${this.path}/data${query}`, sent.file, sent.type, (fraction) => (this.progress = fraction))
      this.progress = 1
      const count = (this.record.row_count ?? 0).toLocaleString()
      this.notice = model === "suggested" ? msg("dataset.replaced", { count }) : msg("dataset.uploaded", { count })
      this.lastFile = undefined
      const input = this.querySelector<HTMLInputElement>(".upload-card input[type=file]")
      if (input !== null) input.value = ""
      return true
    } catch (error) {
      this.uploadProblem = problemIn(error)
      this.lastFile = sent
      this.progress = undefined
      return false
    } finally {
      this.busy = false
      this.loadHistory()
      await this.updateComplete
      this.querySelector<HTMLElement>(this.notice === undefined ? ".upload-card [role=alert]" : ".model-notice")?.focus()
    }
  }

  /** Replaces the model with the file's columns, once the person has said yes. */
  private async replaceModel() {
    const sent = this.lastFile
    const dataset = this.record
    if (sent === undefined || dataset === undefined) return
    const ok = await confirmDialog(this, {
      title: msg("dataset.replace.title", { name: dataset.name }),
      text: msg("dataset.replace.text", {
        members: dataset.model.dimensions.length + dataset.model.measures.length,
        columns: (this.uploadProblem?.fileColumns ?? []).join(", ")
      }),
      yes: msg("dataset.replace.yes"),
      no: msg("dataset.replace.no")
    })
    if (ok) await this.sendFile(sent, "suggested")
  }

  private async deleteDataset() {
    const dataset = this.record
    if (dataset === undefined) return
    this.deleteProblem = undefined
    const ok = await confirmDialog(this, {
      title: msg("dataset.delete.title", { name: dataset.name }),
      text: dataset.row_count === null
        ? msg("dataset.delete.noRows")
        : msg("dataset.delete.text", { rows: dataset.row_count.toLocaleString() }),
      yes: msg("dataset.delete.yes"),
      no: msg("dataset.delete.no")
    })
    if (!ok) return
    this.busy = true
    try {
      await this.context.client.delete(this.path)
      this.deleted = true
      this.notice = msg("dataset.deleted", { name: dataset.name })
    } catch (error) {
      this.deleteProblem = problemIn(error)
    } finally {
      this.busy = false
    }
    await this.updateComplete
    this.querySelector<HTMLElement>(this.deleteProblem === undefined ? ".model-notice" : ".delete-problem")?.focus()
  }

  /** A dataset the service would not delete: what uses it, each a link, and the way out; nothing was deleted. */
  private inUseView(dataset: Dataset, uses: DatasetUses): TemplateResult {
    const workspace = `w/${encodeURIComponent(this.workspaceId)}`
    const list = (heading: string, items: DatasetUses["reports"], href: (id: string) => string) =>
      items.length === 0 ? nothing : html`<p>${heading}</p><ul>${items.map((u) => html`<li><a href=${href(u.id)} data-title=${u.name}>${u.name}</a></li>`)}</ul>`
    return html`<div class="problem delete-problem in-use" role="alert" tabindex="-1">
      <strong>${msg("dataset.inUse.title", { name: dataset.name })}</strong>
      ${list(msg("dataset.inUse.reports"), uses.reports, (id) => `${workspace}/reports/${encodeURIComponent(id)}`)}
      ${list(msg("dataset.inUse.dashboards"), uses.dashboards, (id) => `${workspace}/dashboards/${encodeURIComponent(id)}`)}
      ${list(msg("dataset.inUse.alerts"), uses.alerts, () => `${workspace}/alerts`)}
      <p>${msg("dataset.inUse.action")}</p>
    </div>`
  }

  /** A file the model does not fit, in words: what the model reads that the file lacks, what the file has that it does not read, and the way out. */
  private misfitView(problem: Problem, dataset: Dataset): TemplateResult {
    const mismatches = problem.mismatches ?? []
    const read = new Set([...dataset.model.dimensions.map((d) => (typeof d.column === "string" ? d.column : d.name)), ...dataset.model.measures.flatMap((m) => typeof m.column === "string" ? [m.column] : [])])
    const unread = (problem.fileColumns ?? []).filter((c) => !read.has(c))
    return html`<div class="problem" role="alert" tabindex="-1">
      <strong>${msg("dataset.misfit.title")}</strong>
      <p>${msg("dataset.misfit.missing")}</p>
      <ul class="misfits">${mismatches.map((m) => html`<li>${m.problem === "missing"
        ? msg("dataset.misfit.missingColumn", { column: m.column, kind: msg(`dataset.misfit.kind.${m.kind}`), member: m.member })
        : msg("dataset.misfit.notNumeric", { column: m.column, member: m.member })}</li>`)}</ul>
      ${unread.length === 0 ? nothing : html`<p>${msg("dataset.misfit.unread", { columns: unread.map((c) => `"${c}"`).join(", ") })}</p>`}
      ${unread.length === (problem.fileColumns ?? []).length ? nothing : html`<p>${msg("dataset.misfit.fileColumns", { columns: (problem.fileColumns ?? []).map((c) => `"${c}"`).join(", ") })}</p>`}
      <p>${msg("dataset.misfit.what")}</p>
      ${this.lastFile === undefined ? nothing : html`<p><button type="button" ?disabled=${this.busy} @click=${() => void this.replaceModel()}>${msg("dataset.misfit.replace")}</button></p>`}
    </div>`
  }

  private uploadProblemView(dataset: Dataset): TemplateResult | typeof nothing {
    const problem = this.uploadProblem
    if (problem === undefined) return nothing
    if (problem.code === "dataset/model-invalid" && (problem.mismatches ?? []).length > 0) return this.misfitView(problem, dataset)
    // A file the check refused: its detail names the line; the fix is in the file.
    return problemView(problem.code === "dataset/source-invalid" ? { ...problem, action: msg("dataset.upload.fixFile") } : problem)
  }

  private async refresh() {
    this.refreshProblem = undefined
    this.notice = undefined
    this.busy = true
    try {
      this.record = await this.context.client.post(`${this.path}/refresh`)
      this.notice = msg("dataset.refreshed", { count: (this.record.row_count ?? 0).toLocaleString() })
    } catch (error) {
      this.refreshProblem = problemIn(error)
    } finally {
      this.busy = false
      this.loadHistory()
    }
  }

  /** The model as the editor's fields hold it. */
  private edited(form: HTMLFormElement): Model | string {
    const model = this.record!.model
    const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement | null)?.value.trim() ?? ""
    const titled = <A extends { readonly title?: string }>(item: A, title: string): A => {
      const { title: _old, ...rest } = item
      return (title === "" ? rest : { ...rest, title }) as A
    }
    const measures = model.measures.map((m, i) => {
      const { format: _old, ...rest } = titled(m, value(`measures.${i}.title`))
      const type = value(`measures.${i}.format.type`)
      const decimalsText = value(`measures.${i}.format.decimals`)
      const decimals = decimalsText === "" ? {} : { decimals: Number(decimalsText) }
      if (type === "") return rest as Measure
      const format = type === "currency" ? { type, currency: value(`measures.${i}.format.currency`), ...decimals } : { type, ...decimals }
      return { ...rest, format } as Measure
    })
    const dimensions = model.dimensions.map((d, i) => titled(d, value(`dimensions.${i}.title`)))
    let rls: NonNullable<Model["row_level_security"]>
    try {
      // The rules as the person wrote them, sent as they are: the service checks them and names the rule at fault.
      rls = JSON.parse(value("row_level_security") || "[]") as NonNullable<Model["row_level_security"]>
    } catch {
      return msg("dataset.model.rls.notJson")
    }
    return { ...model, dimensions, measures, row_level_security: rls }
  }

  private async save(event: Event) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    this.modelProblem = undefined
    this.fieldErrors = new Map()
    this.notice = undefined
    const model = this.edited(form)
    if (typeof model === "string") {
      this.fieldErrors.set("row_level_security", model)
      this.requestUpdate()
      return this.focusError()
    }
    this.busy = true
    try {
      this.record = await this.context.client.patch(this.path, { model })
      this.notice = msg("dataset.model.saved")
    } catch (error) {
      const problem = problemIn(error)
      this.modelProblem = problem
      for (const e of problem.errors ?? []) this.placeError(e)
    } finally {
      this.busy = false
    }
    await this.updateComplete
    this.focusError()
  }

  private placeError(error: FieldError) {
    const key = fieldKey(error.path)
    this.fieldErrors.set(key, [this.fieldErrors.get(key), error.message].filter((m) => m !== undefined).join(" "))
  }

  private async focusError() {
    await this.updateComplete
    const invalid = this.querySelector<HTMLElement>("[aria-invalid=true]")
    ;(invalid ?? this.querySelector<HTMLElement>(".model-notice"))?.focus()
  }

  /** A field's error, if the API named it, and the attributes that tie it to the field. */
  private err(key: string): { readonly id: string; readonly message: string | undefined } {
    return { id: `err-${key.replaceAll(".", "-")}`, message: this.fieldErrors.get(key) }
  }

  private errorText(key: string): TemplateResult | typeof nothing {
    const { id, message } = this.err(key)
    return message === undefined ? nothing : html`<p class="field-error" id=${id}>${message}</p>`
  }

  private measureRow(m: Measure, i: number): TemplateResult {
    const title = this.err(`measures.${i}.title`)
    const format = this.err(`measures.${i}.format`)
    const type = m.format?.type ?? ""
    return html`<li>
      <strong>${m.name}</strong>
      <label>${msg("dataset.model.title")}
        <input name="measures.${i}.title" .value=${m.title ?? ""} maxlength="200" aria-label=${msg("dataset.model.titleOf", { name: m.name })}
          aria-invalid=${title.message === undefined ? "false" : "true"} aria-describedby=${title.message === undefined ? nothing : title.id}>
        ${this.errorText(`measures.${i}.title`)}
      </label>
      <div class="format">
        <label>${msg("dataset.model.format")}
          <select name="measures.${i}.format.type" aria-label=${msg("dataset.model.formatOf", { name: m.name })}>
            ${(["", "number", "percent", "currency"] as const).map((t) => html`<option value=${t} ?selected=${t === type}>${msg(`dataset.model.format.${t === "" ? "none" : t}`)}</option>`)}
          </select>
        </label>
        <label>${msg("dataset.model.currency")}
          <input name="measures.${i}.format.currency" .value=${m.format?.type === "currency" ? m.format.currency : ""} maxlength="10" autocomplete="off"
            aria-label=${msg("dataset.model.currencyOf", { name: m.name })}
            aria-invalid=${format.message === undefined ? "false" : "true"} aria-describedby=${format.message === undefined ? nothing : format.id}>
        </label>
        <label>${msg("dataset.model.decimals")}
          <input name="measures.${i}.format.decimals" type="number" min="0" max="10" .value=${m.format?.decimals === undefined ? "" : String(m.format.decimals)}
            aria-label=${msg("dataset.model.decimalsOf", { name: m.name })}>
        </label>
        ${this.errorText(`measures.${i}.format`)}
      </div>
    </li>`
  }

  private dimensionRow(d: Dimension, i: number): TemplateResult {
    const title = this.err(`dimensions.${i}.title`)
    return html`<li>
      <strong>${d.name}</strong>
      <label>${msg("dataset.model.title")}
        <input name="dimensions.${i}.title" .value=${d.title ?? ""} maxlength="200" aria-label=${msg("dataset.model.titleOf", { name: d.name })}
          aria-invalid=${title.message === undefined ? "false" : "true"} aria-describedby=${title.message === undefined ? nothing : title.id}>
        ${this.errorText(`dimensions.${i}.title`)}
      </label>
      <span class="muted">${msg("dataset.model.type", { type: d.type })}</span>
    </li>`
  }

  private modelEditor(dataset: Dataset): TemplateResult {
    const rls = this.err("row_level_security")
    const model = dataset.model
    return html`<section class="card" aria-labelledby="model-title">
      <h2 id="model-title">${msg("dataset.model.heading")}</h2>
      <p class="muted">${msg("dataset.model.intro")}</p>
      <form @submit=${(e: Event) => void this.save(e)} novalidate>
        <h3>${msg("dataset.model.measures")}</h3>
        ${model.measures.length === 0 ? html`<p class="muted">${msg("dataset.model.none")}</p>` : html`<ul class="members">${model.measures.map((m, i) => this.measureRow(m, i))}</ul>`}
        <h3>${msg("dataset.model.dimensions")}</h3>
        ${model.dimensions.length === 0 ? html`<p class="muted">${msg("dataset.model.none")}</p>` : html`<ul class="members">${model.dimensions.map((d, i) => this.dimensionRow(d, i))}</ul>`}
        <label>${msg("dataset.model.rls")}
          <span class="hint">${msg("dataset.model.rls.hint")}</span>
          <textarea class="code" name="row_level_security" rows="6" spellcheck="false" .value=${JSON.stringify(model.row_level_security ?? [], null, 2)}
            aria-invalid=${rls.message === undefined ? "false" : "true"} aria-describedby=${rls.message === undefined ? nothing : rls.id}></textarea>
          ${this.errorText("row_level_security")}
        </label>
        ${this.modelProblem === undefined ? nothing : problemView(this.modelProblem)}
        <p><button type="submit" ?disabled=${this.busy}>${msg("dataset.model.save")}</button></p>
      </form>
    </section>`
  }

  private historyView(): TemplateResult {
    const history = this.history!
    return html`<section class="card history" aria-labelledby="history-title">
      <h2 id="history-title">${msg("dataset.history")}</h2>
      ${problemView(history.problem, () => this.loadHistory())}
      ${!history.loaded ? (history.loading ? loading() : nothing) : history.items.length === 0 ? empty(msg("dataset.history.empty")) : html`<div class="table-scroll" tabindex="0" role="region" aria-label=${msg("dataset.history")}><table>
        <thead><tr><th scope="col">${msg("dataset.history.when")}</th><th scope="col">${msg("dataset.history.trigger")}</th><th scope="col">${msg("dataset.history.status")}</th><th scope="col" class="number">${msg("dataset.history.rows")}</th><th scope="col" class="number">${msg("dataset.history.duration")}</th></tr></thead>
        <tbody>${history.items.map((r) => html`<tr>
          <td>${when(r.started_at)}</td>
          <td>${msg(`dataset.trigger.${r.trigger}`)}</td>
          <td><span class="status-${r.status}">${msg(`dataset.status.${r.status}`)}</span>${r.error === null ? nothing : html` <span class="muted">${r.error.message}</span>`}</td>
          <td class="number">${r.row_count === null ? "" : r.row_count.toLocaleString()}</td>
          <td class="number">${msg("dataset.history.ms", { ms: r.duration_ms.toLocaleString() })}</td>
        </tr>`)}</tbody>
      </table></div>`}
      ${history.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${history.loading} @click=${() => void history.more()}>${msg("workspaces.more")}</button></p>` : nothing}
    </section>`
  }

  override render() {
    const dataset = this.record
    const title = dataset?.name ?? linkTitle() ?? msg("dataset.title")
    if (dataset !== undefined || this.problem !== undefined) this.ready(title)
    const base = `w/${encodeURIComponent(this.workspaceId)}`
    const progress = this.progress
    return html`
      ${crumbs([{ text: msg("app.nav.workspaces"), href: "./" }, { text: this.workspace ?? msg("workspace.title"), href: base }, { text: msg("datasets.title"), href: `${base}/datasets` }, { text: title }])}
      <h1>${title}</h1>
      ${this.deleted ? html`<p class="notice model-notice" role="status" tabindex="-1">${this.notice}</p><p><a href="${base}/datasets">${msg("dataset.deleted.back")}</a></p>`
        : this.problem?.status === 404 ? missingView(msg("problem.missing.dataset"), { href: `${base}/datasets`, text: msg("problem.missing.datasets") })
        : this.problem !== undefined ? problemView(this.problem, this.problem.status >= 500 || this.problem.status === 0 ? () => void this.load() : undefined) : dataset === undefined ? loading() : html`
        ${dataset.description === null || dataset.description === "" ? nothing : html`<p class="muted">${dataset.description}</p>`}
        <dl class="facts">
          <dt>${msg("dataset.source")}</dt><dd>${sourceWords(dataset.source)}</dd>
          <dt>${msg("dataset.rowCount")}</dt><dd class="row-count">${dataset.row_count === null ? msg("datasets.noRows") : dataset.row_count.toLocaleString()}</dd>
          <dt>${msg("dataset.loadedAt")}</dt><dd>${when(dataset.refreshed_at)}</dd>
        </dl>
        ${this.notice === undefined ? nothing : html`<p class="notice model-notice" role="status" tabindex="-1">${this.notice}</p>`}
        ${takesFiles(dataset.source) ? html`<section class="card upload-card" aria-labelledby="upload-title">
          <h2 id="upload-title">${msg("dataset.upload")}</h2>
          <p class="muted">${msg("dataset.upload.intro")}</p>
          ${this.uploadProblemView(dataset)}
          <form @submit=${(e: Event) => void this.send(e)}>
            <label>${msg("dataset.upload.file")}<input type="file" name="file" accept=".csv,text/csv,.parquet" required></label>
            ${progress === undefined ? nothing : html`<div class="upload-progress">
              <progress max="100" value=${Math.round(progress * 100)} aria-label=${msg("dataset.upload.progress")}></progress>
              <span class="muted" role="status">${msg("dataset.upload.percent", { percent: Math.round(progress * 100) })}</span>
            </div>`}
            <p><button type="submit" ?disabled=${this.busy}>${msg("dataset.upload.submit")}</button></p>
          </form>
        </section>` : html`<section class="card" aria-labelledby="refresh-title">
          <h2 id="refresh-title">${msg("dataset.refresh")}</h2>
          <p class="muted">${msg("dataset.refresh.intro")}</p>
          ${problemView(this.refreshProblem)}
          <p><button type="button" ?disabled=${this.busy} @click=${() => void this.refresh()}>${msg("dataset.refresh.submit")}</button></p>
        </section>`}
        ${this.historyView()}
        ${this.modelEditor(dataset)}
        ${dataset.columns.length === 0 ? nothing : html`<section class="card dataset-columns" aria-labelledby="columns-title">
          <h2 id="columns-title">${msg("dataset.columns")}</h2>
          <div class="table-scroll" tabindex="0" role="region" aria-label=${msg("dataset.columns")}><table>
            <thead><tr><th scope="col">${msg("dataset.columns.name")}</th><th scope="col">${msg("dataset.columns.type")}</th></tr></thead>
            <tbody>${dataset.columns.map((c) => html`<tr><td>${c.name}</td><td>${c.type} (${c.engine_type})</td></tr>`)}</tbody>
          </table></div>
        </section>`}
        ${!isAdmin(currentSession()) ? nothing : html`<section class="card" aria-labelledby="delete-title">
          <h2 id="delete-title">${msg("dataset.delete")}</h2>
          <p class="muted">${msg("dataset.delete.intro")}</p>
          ${this.deleteProblem?.uses === undefined ? problemView(this.deleteProblem, undefined, "delete-problem") : this.inUseView(dataset, this.deleteProblem.uses)}
          <p><button type="button" class="danger" ?disabled=${this.busy} @click=${() => void this.deleteDataset()}>${msg("dataset.delete")}</button></p>
        </section>`}
      `}
    `
  }
}

customElements.define("analytics-dataset", DatasetScreen)
