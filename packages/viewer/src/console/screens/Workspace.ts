/**
 * A workspace's screen (`/w/{workspace_id}`): its reports and dashboards,
 * each a link to its own screen, a page at a time; for tenant admins, each
 * with a "Share" button (the share dialog), reports also an "Export" button
 * (`<analytics-export-button>`), and links to the workspace's datasets,
 * public links and scheduled exports; for everyone, its alerts. Its name as the link that led here gave it, else (a
 * deep link) as `GET /v1/workspaces/{id}` says.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"
import { html, nothing, type TemplateResult } from "lit"
import { featureOn } from "../../client/Boot.ts"
import { currentSession, isAdmin } from "../../client/Session.ts"
import { msg } from "../../i18n/msg.ts"
import { knowWorkspaceName, workspaceName } from "../Crumbs.ts"
import { Pager } from "../Pager.ts"
import { linkTitle } from "../Router.ts"
import { Screen } from "../Screen.ts"
import { exportButton } from "../Export.ts"
import { openShare } from "../Share.ts"
import { empty, loading, missingView, problemView } from "../States.ts"

/** What a section of the screen shows of an item: its name and, a report's, its description. */
interface Named {
  readonly name: string
  readonly description?: string | null
}
type Report = Json<typeof Groups.Reports.ReportJson>
type Dashboard = Json<typeof Groups.Dashboards.DashboardJson>

/** A workspace's screen. */
export class WorkspaceScreen extends Screen {
  private reports: Pager<Report> | undefined
  private dashboards: Pager<Dashboard> | undefined
  /** Its name: `null` while asked, `undefined` when it could not be read. */
  private name: string | null | undefined = null

  override connectedCallback() {
    super.connectedCallback()
    const id = encodeURIComponent(this.workspaceId)
    this.reports ??= new Pager((cursor) => this.context.client.list(`v1/reports?workspace_id=${id}&limit=50`, cursor), () => this.requestUpdate())
    this.dashboards ??= new Pager((cursor) => this.context.client.list(`v1/dashboards?workspace_id=${id}&limit=50`, cursor), () => this.requestUpdate())
    if (!this.reports.loaded) void this.reports.more()
    if (!this.dashboards.loaded) void this.dashboards.more()
    const given = linkTitle()
    if (given !== undefined) {
      this.name = given
      knowWorkspaceName(this.workspaceId, given)
    } else if (this.name === null) {
      void workspaceName(this.context.client, this.workspaceId).then((name) => {
        this.name = name
        this.requestUpdate()
      })
    }
  }


  private section<A extends Named>(
    id: string,
    title: string,
    emptyText: string,
    pager: Pager<A>,
    href: (item: A) => string,
    share?: (item: A) => [type: string, id: string],
    more?: (item: A) => TemplateResult
  ): TemplateResult {
    return html`<section aria-labelledby=${id}>
      <h2 id=${id}>${title}</h2>
      ${problemView(pager.problem, () => void pager.more())}
      ${!pager.loaded ? (pager.loading ? loading() : nothing) : pager.items.length === 0 ? empty(emptyText) : html`<ul class="items">${
        pager.items.map((item) =>
          html`<li class=${share === undefined ? "" : "with-actions"}><a href=${href(item)} data-title=${item.name}>${item.name}</a>${
            item.description == null || item.description === "" ? nothing : html`<span class="muted">${item.description}</span>`
          }${
            share === undefined ? nothing : html`<div class="actions"><button type="button" class="secondary" aria-label=${msg("share.open.named", { name: item.name })}
              @click=${() => void openShare(...share(item), { client: this.context.client, name: item.name })}>${msg("share.open")}</button>${more?.(item) ?? nothing}</div>`
          }</li>`
        )
      }</ul>`}
      ${pager.hasMore ? html`<p><button type="button" class="secondary" ?disabled=${pager.loading} @click=${() => void pager.more()}>${msg("workspaces.more")}</button></p>` : nothing}
    </section>`
  }

  override render() {
    const reports = this.reports!
    const dashboards = this.dashboards!
    const settled = (p: Pager<unknown>) => p.loaded || p.problem !== undefined
    const title = this.name ?? msg("workspace.title")
    if (settled(reports) && settled(dashboards) && this.name !== null) this.ready(title)
    const base = `w/${encodeURIComponent(this.workspaceId)}`
    // A member's grants differ report by report: their Share and Export are on the report's screen, which knows them (its view's actions).
    const admin = isAdmin(currentSession())
    if (reports.problem?.status === 404 || dashboards.problem?.status === 404) {
      return html`<p><a href="./">${msg("workspace.back")}</a></p><h1>${title}</h1>
        ${missingView(msg("problem.missing.workspace"), { href: "./", text: msg("problem.missing.home") })}`
    }
    return html`
      <p><a href="./">${msg("workspace.back")}</a></p>
      <h1>${title}</h1>
      <p class="row">${featureOn(this.context.boot, "ask") ? html`<a href="${base}/ask">${msg("ask.open")}</a>` : nothing}<a href="${base}/alerts">${msg("alerts.open")}</a>${
        admin
          ? html`<a href="${base}/datasets">${msg("datasets.open")}</a><a href="${base}/schedules">${msg("schedules.open")}</a><a href="${base}/links">${msg("links.open")}</a>`
          : nothing
      }</p>
      ${this.section("reports", msg("workspace.reports"), msg("workspace.reports.empty"), reports, (r) => `${base}/reports/${encodeURIComponent(r.report_id)}`, admin ? (r) => ["report", r.report_id] : undefined,
        (r) => exportButton(r.report_id, { client: this.context.client, name: r.name }))}
      ${this.section("dashboards", msg("workspace.dashboards"), msg("workspace.dashboards.empty"), dashboards, (d) => `${base}/dashboards/${encodeURIComponent(d.dashboard_id)}`, admin ? (d) => ["dashboard", d.dashboard_id] : undefined)}
    `
  }
}

customElements.define("analytics-workspace", WorkspaceScreen)
