/**
 * `<visual-card>`: one visual in its card: its title, then its chart, key
 * figure or table, or a message instead of an empty chart (no rows match,
 * its query timed out, nothing visible to this viewer), and the chart's
 * data as a table behind "Show data", its text alternative. While the
 * view reloads for new filters, it is dimmed and marked busy (the viewer
 * says once that the report is loading).
 *
 * Rendered in the light DOM, so the page's own styles (and print styles)
 * apply, and the markup is the server's.
 *
 * @since 0.1.0
 */
import { html, LitElement, nothing, type TemplateResult } from "lit"
import { keyed } from "lit/directives/keyed.js"
import type { TableData, VisualData } from "./Data.ts"
import "./VegaChart.ts"
import { msg } from "./i18n/msg.ts"

/** The data as an accessible table, its header row and numbers aligned. */
export const dataTable = (table: TableData, caption?: string): TemplateResult =>
  html`<div class="table-scroll" tabindex="0" role="region" aria-label=${caption ?? msg("viewer.data")}><table>
    ${caption === undefined ? nothing : html`<caption class="visually-hidden">${caption}</caption>`}
    <thead><tr>${table.columns.map((c) => html`<th scope="col" class=${c.numeric ? "number" : ""}>${c.title}</th>`)}</tr></thead>
    <tbody>${table.cells.map((row) => html`<tr>${row.map((cell, i) => html`<td class=${table.columns[i]?.numeric ? "number" : ""}>${cell}</td>`)}</tr>`)}</tbody>
  </table></div>${
    table.rows > table.cells.length ? html`<p class="note">${msg("viewer.data.firstRows", { shown: table.cells.length, rows: table.rows })}</p>` : nothing
  }`

/** A visual of the report in its card. */
export class VisualCard extends LitElement {
  static override properties = {
    visual: { attribute: false },
    served: { attribute: false },
    busy: { type: Boolean, reflect: true }
  }

  declare visual: VisualData
  /** The server's drawing of its chart, shown until the live chart is drawn. */
  declare served: Element | undefined
  declare busy: boolean

  constructor() {
    super()
    this.busy = false
  }

  protected override createRenderRoot() {
    return this
  }

  override connectedCallback() {
    super.connectedCallback()
    this.classList.add("visual")
  }

  protected override render() {
    const v = this.visual
    if (v === undefined) return nothing
    const titleId = `visual-${v.id}-title`
    return html`<article aria-labelledby=${titleId} aria-busy=${this.busy ? "true" : "false"}>
      <h3 id=${titleId}>${v.title ?? v.id}</h3>
      ${this.body(v)}
      ${v.download_url === undefined ? nothing : html`<a class="download" href=${v.download_url} download>${msg("viewer.download")}</a>`}
    </article>`
  }

  private body(v: VisualData) {
    if (v.state !== "rows") return html`<p class="state ${v.state}">${v.message ?? v.unavailable ?? ""}</p>`
    if (v.kind === "kpi") return html`<p class="kpi">${v.figure ?? ""}</p>`
    if (v.vega !== undefined) {
      // a new view's visual is a new object: a new chart, drawn from its rows
      return html`<figure>
        ${keyed(v, html`<vega-chart .spec=${v.vega} .rows=${v.rows ?? []} .served=${this.served}></vega-chart>`)}
        <figcaption class="visually-hidden">${v.description ?? ""}</figcaption>
      </figure>
      ${v.table === undefined ? nothing : html`<details class="data"><summary>${msg("viewer.data.show")}</summary>${dataTable(v.table, v.description)}</details>`}`
    }
    return v.table === undefined ? nothing : dataTable(v.table, v.title ?? undefined)
  }
}

customElements.define("visual-card", VisualCard)

declare global {
  interface HTMLElementTagNameMap {
    "visual-card": VisualCard
  }
}
