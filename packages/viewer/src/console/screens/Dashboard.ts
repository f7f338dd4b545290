/**
 * A dashboard's screen (`/w/{workspace_id}/dashboards/{dashboard_id}`):
 * breadcrumbs back to its workspace, its name, and its tiles as the caller
 * sees them (`GET /v1/dashboards/{id}/view`), each a visual in its card,
 * placed on the dashboard's 24-column grid (one column on a phone, in the
 * grid's order). Charts load Vega when they are on screen. The tiles'
 * places are set through the CSS object model, which the page's policy
 * allows, not as a `style` attribute (Lit's `styleMap` writes one on its
 * first render), which it refuses.
 *
 * @since 0.1.0
 */
import type { Json, ViewerData } from "@analytics/api"
import { html } from "lit"
import { ref } from "lit/directives/ref.js"
import { type Problem, problemIn } from "../../client/ApiClient.ts"
import { msg } from "../../i18n/msg.ts"
import { adoptScreenStyles } from "../../theme/ViewerStyles.ts"
import "../../VisualCard.ts"
import { crumbs } from "../Crumbs.ts"
import { linkTitle } from "../Router.ts"
import { Screen } from "../Screen.ts"
import { empty, loading, missingView, problemView } from "../States.ts"
import { viewProblem } from "./Report.ts"

/** A dashboard as `GET /v1/dashboards/{id}/view` answers. */
type DashboardView = Json<typeof ViewerData.DashboardViewJson>

/** Places a tile's card on the grid (custom properties the stylesheet reads). */
const place = (card: Element | undefined, tile: DashboardView["tiles"][number]) => {
  if (!(card instanceof HTMLElement)) return
  card.style.setProperty("--x", String(tile.x + 1))
  card.style.setProperty("--w", String(tile.width))
  card.style.setProperty("--y", String(tile.y + 1))
  card.style.setProperty("--h", String(tile.height))
}

/** A dashboard's screen. */
export class DashboardScreen extends Screen {
  private data: DashboardView | undefined
  private problem: Problem | undefined

  override connectedCallback() {
    super.connectedCallback()
    adoptScreenStyles()
    this.readWorkspaceName()
    if (this.data === undefined) void this.load()
  }

  private async load() {
    this.problem = undefined
    this.requestUpdate()
    try {
      this.data = await this.context.client.get(`v1/dashboards/${encodeURIComponent(this.context.match.params.dashboard ?? "")}/view`)
    } catch (error) {
      this.problem = viewProblem(problemIn(error), "dashboard")
    }
    this.requestUpdate()
  }

  override render() {
    const data = this.data
    const title = data?.dashboard.name ?? linkTitle() ?? msg("dashboard.title")
    if (data !== undefined || this.problem !== undefined) this.ready(title)
    const retry = this.problem !== undefined && (this.problem.status >= 500 || this.problem.status === 0) ? () => void this.load() : undefined
    return html`
      ${crumbs([{ text: msg("app.nav.workspaces"), href: "./" }, { text: this.workspace ?? msg("workspace.title"), href: `w/${encodeURIComponent(this.workspaceId)}` }, { text: title }])}
      <div class="screen-head"><h1>${title}</h1></div>
      ${
      this.problem?.status === 404 ? missingView(this.problem.title, { href: `w/${encodeURIComponent(this.workspaceId)}`, text: msg("problem.missing.back") })
        : this.problem !== undefined ? problemView(this.problem, retry) : data === undefined ? loading() : data.tiles.length === 0 ? empty(msg("dashboard.empty")) : html`
        <div class="tiles">${
        data.tiles.map((tile) =>
          html`<visual-card data-visual=${tile.visual.id} .visual=${tile.visual}
            ${ref((card) => place(card, tile))}></visual-card>`
        )
      }</div>`
    }
    `
  }
}

customElements.define("analytics-dashboard-screen", DashboardScreen)
