/**
 * A workspace's datasets (`/w/{workspace_id}/datasets`): each with its
 * rows and when they were loaded, a link to its own screen; for tenant
 * admins, a form to create one (an upload, whose file is sent on its
 * screen next).
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, nothing } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { currentSession, isAdmin } from "../../client/Session.ts"
import { msg } from "../../i18n/msg.ts"
import { adoptDataStyles } from "../../theme/DataStyles.ts"
import { crumbs } from "../Crumbs.ts"
import { Pager } from "../Pager.ts"
import { navigate } from "../Router.ts"
import { Screen } from "../Screen.ts"
import { createdSource } from "../Sources.ts"
import { clearFields, showRefusal } from "../FormErrors.ts"
import { empty, loading, problemView } from "../States.ts"

/** A dataset as the API shows it (the list and the dataset's screen alike): its source, model, columns and last load. */
export type DatasetSummary = Json<typeof Groups.Datasets.DatasetJson>

/** When, in words. */
export const when = (iso: string | null): string => iso === null ? msg("datasets.never") : new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" })

/** The datasets screen. */
export class DatasetsScreen extends Screen {
  static override properties = { ...Screen.properties, problem: { state: true }, busy: { state: true } }
  declare problem: Problem | undefined
  declare busy: boolean
  private datasets: Pager<DatasetSummary> | undefined

  constructor() {
    super()
    this.problem = undefined
    this.busy = false
  }

  override connectedCallback() {
    super.connectedCallback()
    adoptDataStyles()
    this.datasets ??= new Pager((cursor) => this.context.client.list(`v1/datasets?workspace_id=${encodeURIComponent(this.workspaceId)}&limit=50`, cursor), () => this.requestUpdate())
    if (!this.datasets.loaded) void this.datasets.more()
    this.readWorkspaceName()
  }


  private async create(event: Event) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    const name = (form.elements.namedItem("name") as HTMLInputElement).value.trim()
    const description = (form.elements.namedItem("description") as HTMLInputElement).value.trim()
    this.busy = true
    this.problem = undefined
    clearFields(form)
    try {
      const created = await this.context.client.post("v1/datasets", {
        workspace_id: this.workspaceId,
        name,
        ...(description === "" ? {} : { description }),
        source: createdSource
      })
      navigate(`w/${encodeURIComponent(this.workspaceId)}/datasets/${encodeURIComponent(created.dataset_id)}`, { state: { title: created.name } })
    } catch (error) {
      this.busy = false
      await showRefusal(this, form, problemIn(error), (problem) => (this.problem = problem), ".create-problem")
    } finally {
      this.busy = false
    }
  }

  override render() {
    const datasets = this.datasets!
    const title = msg("datasets.title")
    if (datasets.loaded || datasets.problem !== undefined) this.ready(title)
    const base = `w/${encodeURIComponent(this.workspaceId)}`
    return html`
      ${crumbs([{ text: msg("app.nav.workspaces"), href: "./" }, { text: this.workspace ?? msg("workspace.title"), href: base }, { text: title }])}
      <h1>${title}</h1>
      ${problemView(datasets.problem, () => void datasets.more())}
      ${!datasets.loaded ? (datasets.loading ? loading() : nothing) : datasets.items.length === 0 ? empty(msg("datasets.empty")) : html`<ul class="items">${
        datasets.items.map((d) => html`<li>
          <a href="${base}/datasets/${encodeURIComponent(d.dataset_id)}" data-title=${d.name}>${d.name}</a>
          <span class="muted">${d.row_count === null ? msg("datasets.noRows") : msg("datasets.rows", { count: d.row_count.toLocaleString() })} · ${msg("datasets.loadedAt", { when: when(d.refreshed_at) })}</span>
        </li>`)
      }</ul>`}
      ${datasets.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${datasets.loading} @click=${() => void datasets.more()}>${msg("workspaces.more")}</button></p>` : nothing}
      ${isAdmin(currentSession()) ? html`<section class="card" aria-labelledby="new-dataset">
        <h2 id="new-dataset">${msg("datasets.create.title")}</h2>
        <p class="muted">${msg("datasets.create.intro")}</p>
        ${problemView(this.problem, undefined, "create-problem")}
        <form @submit=${(e: Event) => void this.create(e)}>
          <label>${msg("datasets.create.name")}<input name="name" required maxlength="200" autocomplete="off"></label>
          <label>${msg("datasets.create.description")}<input name="description" maxlength="2000" autocomplete="off"></label>
          <p><button type="submit" ?disabled=${this.busy}>${msg("datasets.create.submit")}</button></p>
        </form>
      </section>` : nothing}
    `
  }
}

customElements.define("analytics-datasets", DatasetsScreen)
