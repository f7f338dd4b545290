/**
 * A report's screen (`/w/{workspace_id}/reports/{report_id}`): breadcrumbs
 * back to its workspace, its name, its actions (share, export), the report in
 * `<report-viewer>` as the caller sees it (`GET /v1/reports/{id}/view`,
 * their row-level security), and its
 * comments where the policy lets them read. The filters are kept in the
 * address (`?filters=`, as the share page's), the page in `#page=`; the
 * charts' code (Vega) is fetched only when a chart is on screen.
 *
 * @since 0.1.0
 */
import { html, nothing, type TemplateResult } from "lit"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { currentSession } from "../../client/Session.ts"
import type { ReportData } from "../../Data.ts"
import { msg } from "../../i18n/msg.ts"
import "../../ReportViewer.ts"
import { adoptScreenStyles } from "../../theme/ViewerStyles.ts"
import "../Comments.ts"
import { crumbs } from "../Crumbs.ts"
import type { FilterValues } from "../../elements/ExportButton.ts"
import { exportButton } from "../Export.ts"
import { openShare } from "../Share.ts"
import { linkTitle } from "../Router.ts"
import { Screen } from "../Screen.ts"
import { loading, missingView, problemView } from "../States.ts"

/** The problem of a view in the words of what it is (`report`, `dashboard`): who may not, what is gone. */
export const viewProblem = (problem: Problem, what: "report" | "dashboard"): Problem => {
  if (problem.status === 403 && problem.code !== "auth/csrf-failed") {
    return { ...problem, title: msg(what === "report" ? "report.forbidden" : "dashboard.forbidden"), action: msg("report.forbidden.action") }
  }
  if (problem.status === 404) {
    return { ...problem, title: msg(what === "report" ? "report.notFound" : "dashboard.notFound"), detail: "", action: msg(what === "report" ? "report.notFound.action" : "dashboard.notFound.action") }
  }
  return problem
}

/** A report's screen. */
export class ReportScreen extends Screen {
  static override followsQuery = true

  /** The view, with what the caller may do on the report (`actions`: a view-only grant hides the comment controls). */
  private data: (ReportData & { readonly actions?: ReadonlyArray<string> }) | undefined
  private problem: Problem | undefined
  private src: `v1/reports/${string}/view` | `v1/reports/${string}/view?${string}` = "v1/reports//view"
  /** The filters in force since a person changed them (the view's own until then): what Export applies. */
  private shownFilters: FilterValues | undefined
  /** One function for every render: a new fetcher would make the viewer fetch its first view again. */
  private readonly fetchView = (url: URL) => this.context.client.request<ReportData>("GET", url.href)
  /** Hands the button the filters without drawing the screen again (which would reset the viewer to its first view). */
  private readonly filtersChanged = (event: CustomEvent<FilterValues>) => {
    this.shownFilters = event.detail
    const button = this.querySelector<HTMLElement & { filters?: FilterValues }>("analytics-export-button")
    if (button !== null) button.filters = event.detail
  }

  override connectedCallback() {
    super.connectedCallback()
    adoptScreenStyles()
    this.readWorkspaceName()
    if (this.data === undefined) void this.load()
  }


  private get reportId(): string {
    return this.context.match.params.report ?? ""
  }

  /** The view with the filters the address carries. */
  private async load() {
    const filters = new URLSearchParams(location.search).get("filters")
    const view = `v1/reports/${encodeURIComponent(this.reportId)}/view` as const
    this.src = filters === null ? view : `${view}?filters=${encodeURIComponent(filters)}`
    this.problem = undefined
    this.data = undefined
    this.shownFilters = undefined
    this.requestUpdate()
    try {
      this.data = await this.context.client.get(this.src)
    } catch (error) {
      this.problem = viewProblem(problemIn(error), "report")
    }
    this.requestUpdate()
  }

  private get withoutFilters(): string {
    return `w/${encodeURIComponent(this.workspaceId)}/reports/${encodeURIComponent(this.reportId)}`
  }

  /** The report's actions, in the header beside its name: Share and Export (each its own chunk, Export only with download), the export with the filters shown. */
  protected actions(data: ReportData): TemplateResult | typeof nothing {
    const { report_id, name } = data.report
    const client = this.context.client
    // A grant without share or download hides that control (rule 1); a view without `actions` (an older service) shows both.
    const may = (action: string) => this.data?.actions?.includes(action) !== false
    return html`${
      may("share")
        ? html`<button type="button" class="secondary" aria-label=${msg("share.open.named", { name })}
      @click=${() => void openShare("report", report_id, { client, name })}>${msg("share.open")}</button>`
        : nothing
    }${may("download") ? exportButton(report_id, { client, name, filters: this.shownFilters ?? data.filter_values ?? {} }) : nothing}`
  }

  /** A refused or failed view: in words, with the way out that fits. */
  private problemState(problem: Problem) {
    const badFilters = problem.status === 400 && location.search.includes("filters=")
    return html`${problemView(badFilters ? { ...problem, action: msg("report.badFilters.action") } : problem, problem.status >= 500 || problem.status === 0 ? () => void this.load() : undefined)}
      ${badFilters ? html`<p><a class="button secondary" href=${this.withoutFilters} @click=${() => setTimeout(() => void this.load())}>${msg("report.clearFilters")}</a></p>` : nothing}`
  }

  override render() {
    const data = this.data
    // A refusal's words are in its alert; the heading stays what the page is.
    const title = data?.report.name ?? linkTitle() ?? msg("report.title")
    if (data !== undefined || this.problem !== undefined) this.ready(title)
    const workspaceHref = `w/${encodeURIComponent(this.workspaceId)}`
    return html`
      ${crumbs([{ text: msg("app.nav.workspaces"), href: "./" }, { text: this.workspace ?? msg("workspace.title"), href: workspaceHref }, { text: title }])}
      <div class="screen-head">
        <h1>${title}</h1>
        <div class="actions" role="group" aria-label=${msg("report.actions")} ?hidden=${data === undefined}>${data === undefined ? nothing : this.actions(data)}</div>
      </div>
      ${data?.report.description == null || data.report.description === "" ? nothing : html`<p class="muted">${data.report.description}</p>`}
      ${this.problem?.status === 404 ? missingView(this.problem.title, { href: workspaceHref, text: msg("problem.missing.back") })
        : this.problem !== undefined ? this.problemState(this.problem) : data === undefined ? loading() : html`
        ${data.pages.length === 0 ? html`<div class="state"><p>${msg("report.noPages")}</p></div>` : html`<report-viewer linked
          .src=${this.src} .data=${data} .fetcher=${this.fetchView}
          @report-filters-change=${this.filtersChanged}></report-viewer>`}
        <analytics-comments .client=${this.context.client} .reportId=${this.reportId} .userId=${currentSession()?.user.user_id}
          .mayComment=${data.actions === undefined ? undefined : data.actions.includes("comment")}
          .visuals=${new Map(data.pages.flatMap((p) => p.visuals.map((v) => [v.id, v.title ?? v.id] as const)))}></analytics-comments>`}
    `
  }
}

customElements.define("analytics-report-screen", ReportScreen)
