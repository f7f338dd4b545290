/**
 * `<report-viewer>`: a shared report in the browser. It reads the report
 * from the page's `application/json` script (never executed: the content
 * security policy allows it), keeps the charts the server drew, and adds
 * the filters as controls, a page switcher (a tab list: arrow keys, Home
 * and End; `#page=` in the URL) and loading states. A filter change asks
 * the same URL for JSON with `?filters=` and redraws.
 *
 * @since 0.1.0
 */
import { html, LitElement, nothing } from "lit"
import { dataElementId, type FilterValue, type ReportData } from "./Data.ts"
import type { FiltersChange } from "./FilterBar.ts"
import "./FilterBar.ts"
import "./VisualCard.ts"

const pageFromHash = (names: ReadonlyArray<string>): number => {
  const match = /(?:^#|&)page=([^&]*)/.exec(location.hash)
  if (match === null) return 0
  const wanted = decodeURIComponent(match[1])
  const index = names.indexOf(wanted)
  return index >= 0 ? index : Math.max(0, Math.min(names.length - 1, Number(wanted) - 1 || 0))
}

/** The report, its filters and its pages. */
export class ReportViewer extends LitElement {
  static override properties = {
    data: { attribute: false },
    page: { state: true },
    busy: { state: true },
    problem: { state: true }
  }

  declare data: ReportData | undefined
  declare page: number
  declare busy: boolean
  declare problem: string | undefined
  /** The server's drawings by visual id, until filters change what is drawn. */
  private served = new Map<string, Element>()
  private request = 0

  constructor() {
    super()
    this.page = 0
    this.busy = false
  }

  protected override createRenderRoot() {
    return this
  }

  override connectedCallback() {
    const source = document.getElementById(dataElementId)
    if (source !== null && this.data === undefined) {
      this.data = JSON.parse(source.textContent ?? "null") as ReportData
      // Keep the server's drawings: the first paint stays, no chart is drawn twice before it is needed.
      for (const chart of this.querySelectorAll("[data-visual] .chart > svg")) {
        const id = chart.closest("[data-visual]")?.getAttribute("data-visual")
        if (id != null) this.served.set(id, chart)
      }
      this.replaceChildren()
    }
    this.page = pageFromHash(this.data?.pages.map((p) => p.name) ?? [])
    window.addEventListener("hashchange", this.onHash)
    super.connectedCallback()
  }

  override disconnectedCallback() {
    window.removeEventListener("hashchange", this.onHash)
    super.disconnectedCallback()
  }

  private onHash = () => {
    this.page = pageFromHash(this.data?.pages.map((p) => p.name) ?? [])
  }

  private select(index: number, focus: boolean) {
    const pages = this.data?.pages ?? []
    const next = (index + pages.length) % pages.length
    this.page = next
    history.replaceState(null, "", `#page=${encodeURIComponent(pages[next].name)}`)
    if (focus) void this.updateComplete.then(() => (this.querySelector(`#tab-${next}`) as HTMLElement | null)?.focus())
  }

  private onKey = (e: KeyboardEvent) => {
    const last = (this.data?.pages.length ?? 1) - 1
    const target = e.key === "ArrowRight" ? this.page + 1 : e.key === "ArrowLeft" ? this.page - 1 : e.key === "Home" ? 0 : e.key === "End" ? last : undefined
    if (target === undefined) return
    e.preventDefault()
    this.select(target, true)
  }

  private onFilters = async (e: FiltersChange) => {
    const values: Readonly<Record<string, FilterValue>> = e.detail
    const url = new URL(location.href)
    url.hash = ""
    if (Object.keys(values).length === 0) url.searchParams.delete("filters")
    else url.searchParams.set("filters", JSON.stringify(values))
    const request = ++this.request
    this.busy = true
    this.problem = undefined
    try {
      const response = await fetch(url, { headers: { accept: "application/json" }, credentials: "same-origin" })
      const body = await response.json() as ReportData & { readonly detail?: string }
      if (request !== this.request) return
      if (!response.ok) {
        this.problem = body.detail ?? "These filters cannot be applied."
        return
      }
      this.served.clear()
      this.data = body
      history.replaceState(null, "", `${url.pathname}${url.search}${location.hash}`)
    } catch {
      if (request === this.request) this.problem = "The report could not be loaded; check your connection and try again."
    } finally {
      if (request === this.request) this.busy = false
    }
  }

  protected override render() {
    const data = this.data
    if (data === undefined) return nothing
    const tabs = data.pages.length > 1
    return html`
      <filter-bar .filters=${data.filters ?? []} .values=${data.filter_values ?? {}} ?disabled=${this.busy} @filters-change=${this.onFilters}></filter-bar>
      <p class="loading" role="status">${this.busy ? "Loading the report with these filters…" : ""}</p>
      ${this.problem === undefined ? nothing : html`<p class="problem" role="alert">${this.problem}</p>`}
      ${
      tabs
        ? html`<div class="tabs" role="tablist" aria-label="Pages" @keydown=${this.onKey}>${
          data.pages.map((p, i) =>
            html`<button type="button" role="tab" id="tab-${i}" aria-controls="page-${i}" aria-selected=${i === this.page ? "true" : "false"}
              tabindex=${i === this.page ? 0 : -1} @click=${() => this.select(i, false)}>${p.name}</button>`
          )
        }</div>`
        : nothing
    }
      ${
      data.pages.map((p, i) =>
        html`<section class="page" id="page-${i}" role=${tabs ? "tabpanel" : nothing} aria-labelledby=${tabs ? `tab-${i}` : nothing} ?hidden=${tabs && i !== this.page}>
          <h2 class=${tabs ? "visually-hidden" : ""}>${p.name}</h2>
          <div class="visuals">${
          p.visuals.map((v) => html`<visual-card data-visual=${v.id} .visual=${v} .served=${this.served.get(v.id)} ?busy=${this.busy}></visual-card>`)
        }</div>
        </section>`
      )
    }`
  }
}

customElements.define("report-viewer", ReportViewer)

declare global {
  interface HTMLElementTagNameMap {
    "report-viewer": ReportViewer
  }
}
