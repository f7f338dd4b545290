/**
 * The workspaces screen (the console's home, `/`): the tenant's workspaces
 * a page at a time ("Load more"), each a link to its screen, and for
 * admins a form to create one.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, nothing } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { currentSession, isAdmin } from "../../client/Session.ts"
import { msg } from "../../i18n/msg.ts"
import { Pager } from "../Pager.ts"
import { Screen } from "../Screen.ts"
import { clearFields, showRefusal } from "../FormErrors.ts"
import { empty, loading, problemView } from "../States.ts"

/** A workspace as `GET /v1/workspaces` lists it. */
type Workspace = Json<typeof Groups.Workspaces.WorkspaceJson>

/** The workspaces screen. */
export class WorkspacesScreen extends Screen {
  static override properties = {
    ...Screen.properties,
    creating: { state: true },
    createProblem: { state: true },
    created: { state: true }
  }

  declare creating: boolean
  declare createProblem: Problem | undefined
  declare created: string | undefined
  private pager: Pager<Workspace> | undefined

  constructor() {
    super()
    this.creating = false
  }

  override connectedCallback() {
    super.connectedCallback()
    this.pager ??= new Pager((cursor) => this.context.client.list("v1/workspaces?limit=20", cursor), () => this.requestUpdate())
    if (!this.pager.loaded) void this.pager.more()
  }

  private async create(event: SubmitEvent) {
    event.preventDefault()
    const form = event.target as HTMLFormElement
    const data = new FormData(form)
    const name = String(data.get("name") ?? "").trim()
    const description = String(data.get("description") ?? "").trim()
    this.creating = true
    this.createProblem = undefined
    this.created = undefined
    clearFields(form)
    try {
      const workspace = await this.context.client.post("v1/workspaces", { name, ...(description === "" ? {} : { description }) })
      this.pager?.prepend(workspace)
      this.created = workspace.name
      form.reset()
    } catch (error) {
      this.creating = false
      await showRefusal(this, form, problemIn(error), (problem) => (this.createProblem = problem), ".create-problem")
    } finally {
      this.creating = false
    }
  }

  override render() {
    const pager = this.pager!
    const admin = isAdmin(currentSession())
    if (pager.loaded || pager.problem !== undefined) this.ready(msg("workspaces.title"))
    return html`
      <h1>${msg("workspaces.title")}</h1>
      ${problemView(pager.problem, () => void pager.more())}
      ${!pager.loaded ? (pager.loading ? loading() : nothing) : pager.items.length === 0
      ? empty(msg("workspaces.empty"), admin ? msg("workspaces.empty.admin") : undefined)
      : html`<ul class="items">${
        pager.items.map((w) =>
          html`<li><a href=${`w/${encodeURIComponent(w.workspace_id)}`} data-title=${w.name}>${w.name}</a>${
            w.description === null || w.description === "" ? nothing : html`<span class="muted">${w.description}</span>`
          }</li>`
        )
      }</ul>`}
      ${pager.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${pager.loading} @click=${() => void pager.more()}>${msg("workspaces.more")}</button></p>` : nothing}
      ${admin ? html`
        <section class="card" aria-labelledby="new-workspace">
          <h2 id="new-workspace">${msg("workspaces.create.title")}</h2>
          ${this.created === undefined ? nothing : html`<p class="notice" role="status">${msg("workspaces.created", { name: this.created })}</p>`}
          ${problemView(this.createProblem, undefined, "create-problem")}
          <form @submit=${this.create}>
            <label>${msg("workspaces.create.name")}<input name="name" required maxlength="200"></label>
            <label>${msg("workspaces.create.description")}<input name="description" maxlength="2000"></label>
            <div><button type="submit" ?disabled=${this.creating}>${msg("workspaces.create.submit")}</button></div>
          </form>
        </section>` : nothing}
    `
  }
}

customElements.define("analytics-workspaces", WorkspacesScreen)
