/**
 * `<report-viewer>`: a report in the browser, its filters as controls, a
 * page switcher (a tab list: arrow keys, Home and End) and loading states.
 *
 * Where its data comes from:
 * - the share page (no `src`, no `data`): the page's `application/json`
 *   script (never executed: the content security policy allows it),
 *   keeping the charts the server drew; a filter change asks the page's own
 *   URL for JSON with `?filters=`, and the page's "Download PDF" form is
 *   given the filters then in force;
 * - `data` (the console, the public element): the report given as a
 *   property; with `src`, the URL of its JSON view
 *   (`v1/reports/{id}/view`), which a filter change asks with `?filters=`,
 *   and which it fetches itself when given without `data` (or changed).
 *
 * `linked` (always, on the share page) keeps the address bar in step:
 * the filters in `?filters=`, the page in `#page=`, which it follows too.
 * Unlinked, `showPage` selects a page. Either way it tells its host:
 * `report-load` (the data), `report-filters-change` (the values set),
 * `report-page-change` ({index, name}), `report-mark-click` ({visual_id,
 * values}: the clicked mark's dimension values, for drill-through) and
 * `report-problem` ({status, title, detail}), all bubbling and composed.
 *
 * @since 0.1.0
 */
import { html, LitElement, nothing } from "lit"
import { dataElementId, type FilterValue, type ReportData } from "./Data.ts"
import type { FiltersChange } from "./FilterBar.ts"
import "./FilterBar.ts"
import "./VisualCard.ts"
import { msg } from "./i18n/msg.ts"

/** The page named by `#page=` (a name, else a 1-based number), else the first. */
const pageFromHash = (names: ReadonlyArray<string>): number => {
  const match = /(?:^#|&)page=([^&]*)/.exec(location.hash)
  if (match === null) return 0
  return pageIndex(names, decodeURIComponent(match[1]))
}

/** A page by name, else by 1-based number, else the first. */
const pageIndex = (names: ReadonlyArray<string>, wanted: string): number => {
  const index = names.indexOf(wanted)
  return index >= 0 ? index : Math.max(0, Math.min(names.length - 1, Number(wanted) - 1 || 0))
}

/** A failure to load the report, as `report-problem` carries it. */
export interface ViewProblem {
  readonly status: number
  readonly title: string
  readonly detail: string
}

/** How a view is fetched: JSON or a thrown error (its `problem`, when it has one, is told in words). */
export type ViewFetcher = (url: URL) => Promise<ReportData>

/** The default fetcher: the page's cookies, JSON; a problem's detail as the error's. */
const fetchView: ViewFetcher = async (url) => {
  const response = await fetch(url, { headers: { accept: "application/json" }, credentials: "same-origin" })
  const body = await response.json().catch(() => ({})) as ReportData & { readonly title?: string; readonly detail?: string }
  if (!response.ok) {
    const detail = body.detail ?? msg("viewer.problem.filters")
    throw Object.assign(new Error(detail), {
      problem: { status: response.status, title: body.title ?? msg("viewer.problem.title"), detail }
    })
  }
  return body
}

const problemOf = (error: unknown): ViewProblem | undefined => {
  const problem = (error as { problem?: ViewProblem } | null)?.problem
  return typeof problem === "object" && problem !== null ? problem : undefined
}

/** No filter set: one object, so a render without values tells the filter bar nothing new. */
const noValues: Readonly<Record<string, FilterValue>> = {}

/** The share page's PDF form's field holding the filters on screen (SharePage), kept in step with them. */
const exportFiltersField = 'form.export input[name="filters"]'

/** The report, its filters and its pages. */
export class ReportViewer extends LitElement {
  static override properties = {
    data: { attribute: false },
    src: { type: String },
    linked: { type: Boolean },
    locked: { attribute: false },
    fetcher: { attribute: false },
    page: { state: true },
    busy: { state: true },
    problem: { state: true }
  }

  declare data: ReportData | undefined
  /** The URL of the report's JSON view; relative to the document's base. */
  declare src: string | undefined
  /** The address bar follows the filters (`?filters=`) and the page (`#page=`). */
  declare linked: boolean
  /** Filters an embedding app set: shown as set, and kept in every request. */
  declare locked: Readonly<Record<string, FilterValue>>
  /** How views are fetched (the console's client: its problems in words, a 401 to sign-in). */
  declare fetcher: ViewFetcher
  declare page: number
  declare busy: boolean
  declare problem: string | undefined
  /** The server's drawings by visual id, until filters change what is drawn. */
  private served = new Map<string, Element>()
  private request = 0
  /** The URL the data shown was fetched from, so a `src` set to it again fetches nothing. */
  private shownUrl: string | undefined
  /** The page asked for by name before the data arrived. */
  private wantedPage: string | undefined

  constructor() {
    super()
    this.page = 0
    this.busy = false
    this.linked = false
    this.locked = {}
    this.fetcher = fetchView
  }

  protected override createRenderRoot() {
    return this
  }

  /** On the share page: no `src` and no `data` given. */
  private get sharePage(): boolean {
    return this.src === undefined
  }

  private get follows(): boolean {
    return this.sharePage || this.linked
  }

  override connectedCallback() {
    const source = this.sharePage ? document.getElementById(dataElementId) : null
    if (source !== null && this.data === undefined) {
      this.data = JSON.parse(source.textContent ?? "null") as ReportData
      // Keep the server's drawings: the first paint stays, no chart is drawn twice before it is needed.
      for (const chart of this.querySelectorAll("[data-visual] .chart > svg")) {
        const id = chart.closest("[data-visual]")?.getAttribute("data-visual")
        if (id != null) this.served.set(id, chart)
      }
      this.replaceChildren()
    }
    if (this.follows) this.page = pageFromHash(this.names)
    window.addEventListener("hashchange", this.onHash)
    this.addEventListener("chart-mark-click", this.onMark)
    super.connectedCallback()
  }

  override disconnectedCallback() {
    window.removeEventListener("hashchange", this.onHash)
    this.removeEventListener("chart-mark-click", this.onMark)
    super.disconnectedCallback()
  }

  protected override willUpdate(changed: Map<PropertyKey, unknown>) {
    if (changed.has("data") && this.data !== undefined) {
      const names = this.names
      if (this.wantedPage !== undefined) this.page = pageIndex(names, this.wantedPage)
      else if (this.follows) this.page = pageFromHash(names)
      this.page = Math.min(this.page, Math.max(0, names.length - 1))
    }
    // A new `src` is fetched, unless it is what is shown (or the data came with it).
    if (changed.has("src") && this.src !== undefined) {
      const url = this.resolve(this.src).href
      if (this.data === undefined || (changed.get("src") !== undefined && url !== this.shownUrl)) void this.load(new URL(url), false)
      else this.shownUrl ??= url
    }
  }

  private get names(): ReadonlyArray<string> {
    return this.data?.pages.map((p) => p.name) ?? []
  }

  private resolve(src: string): URL {
    return new URL(src, document.baseURI)
  }

  /** Shows the page `name` (or its 1-based number), without moving focus or telling `report-page-change` (the host chose it). */
  showPage(name: string): void {
    if (this.data === undefined) {
      this.wantedPage = name
      return
    }
    const index = pageIndex(this.names, name)
    if (index !== this.page) this.select(index, false, false)
  }

  private onHash = () => {
    if (this.follows) this.page = pageFromHash(this.names)
  }

  private tell(type: string, detail: unknown) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }))
  }

  /** Selects a page; `told`: a person chose it (the host hears of it). */
  private select(index: number, focus: boolean, told = true) {
    const pages = this.data?.pages ?? []
    if (pages.length === 0) return
    const next = (index + pages.length) % pages.length
    this.page = next
    this.wantedPage = undefined
    if (this.follows) history.replaceState(history.state, "", `${location.pathname}${location.search}#page=${encodeURIComponent(pages[next].name)}`)
    if (told) this.tell("report-page-change", { index: next, name: pages[next].name })
    if (focus) void this.updateComplete.then(() => (this.querySelector(`#tab-${next}`) as HTMLElement | null)?.focus())
  }

  private onKey = (e: KeyboardEvent) => {
    const last = (this.data?.pages.length ?? 1) - 1
    const target = e.key === "ArrowRight" ? this.page + 1 : e.key === "ArrowLeft" ? this.page - 1 : e.key === "Home" ? 0 : e.key === "End" ? last : undefined
    if (target === undefined) return
    e.preventDefault()
    this.select(target, true)
  }

  /** A mark clicked in a live chart: its visual and the dimension values of its datum (times as ISO text). */
  private onMark = (e: Event) => {
    e.stopPropagation()
    const datum = (e as CustomEvent<{ readonly datum: Readonly<Record<string, unknown>> }>).detail.datum
    const visualId = (e.target as Element | null)?.closest("[data-visual]")?.getAttribute("data-visual")
    const visual = this.data?.pages.flatMap((p) => p.visuals).find((v) => v.id === visualId)
    if (visual === undefined) return
    const values: Record<string, string | number | boolean> = {}
    for (const name of visual.dimensions ?? []) {
      const value = datum[name]
      if (value instanceof Date) values[name] = value.toISOString()
      else if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") values[name] = value
    }
    this.tell("report-mark-click", { visual_id: visual.id, values })
  }

  private onFilters = (e: FiltersChange) => {
    e.stopPropagation()
    const values: Readonly<Record<string, FilterValue>> = { ...e.detail, ...this.locked }
    const url = this.sharePage ? new URL(location.href) : this.resolve(this.src!)
    url.hash = ""
    if (Object.keys(values).length === 0) url.searchParams.delete("filters")
    else url.searchParams.set("filters", JSON.stringify(values))
    void this.load(url, true)
  }

  /** Fetches the view at `url`; `filtered`: a person changed the filters (the address bar follows). */
  private async load(url: URL, filtered: boolean) {
    const request = ++this.request
    this.busy = true
    this.problem = undefined
    try {
      const body = await this.fetcher(url)
      if (request !== this.request) return
      this.served.clear()
      this.shownUrl = url.href
      this.data = body
      if (this.sharePage) {
        const values = body.filter_values ?? noValues
        for (const field of document.querySelectorAll<HTMLInputElement>(exportFiltersField)) {
          field.value = Object.keys(values).length === 0 ? "" : JSON.stringify(values)
        }
      }
      this.tell("report-load", body)
      if (filtered) {
        const values = url.searchParams.get("filters")
        if (this.follows) {
          const here = new URL(location.href)
          if (values === null) here.searchParams.delete("filters")
          else here.searchParams.set("filters", values)
          history.replaceState(history.state, "", `${here.pathname}${here.search}${location.hash}`)
        }
        this.tell("report-filters-change", body.filter_values ?? {})
      }
    } catch (error) {
      if (request !== this.request) return
      const problem = problemOf(error) ?? { status: 0, title: msg("viewer.problem.title"), detail: msg("viewer.problem.connection") }
      this.problem = problem.detail === "" ? problem.title : problem.detail
      // The view asked for is not shown: the controls show the values in force again.
      this.querySelector("filter-bar")?.settle()
      this.tell("report-problem", problem)
    } finally {
      if (request === this.request) this.busy = false
    }
  }

  /** The filters as controls, those the host locked shown with their value. */
  private controls(data: ReportData) {
    const locked = this.locked
    return (data.filters ?? []).map((f) => {
      const value = locked[f.name]
      return value === undefined ? f : { ...f, locked: Array.isArray(value) ? value.join(" – ") : value as string | number | boolean }
    })
  }

  protected override render() {
    const data = this.data
    if (data === undefined) {
      // Fetching `src` for the first time: say so, or why it failed.
      return this.problem !== undefined
        ? html`<p class="problem" role="alert">${this.problem}</p>`
        : this.busy ? html`<p class="loading" role="status">${msg("viewer.loading")}</p>` : nothing
    }
    const tabs = data.pages.length > 1
    return html`
      <filter-bar .filters=${this.controls(data)} .values=${data.filter_values ?? noValues} @filters-change=${this.onFilters}></filter-bar>
      <p class="loading" role="status">${this.busy ? msg("viewer.loading.filters") : ""}</p>
      ${this.problem === undefined ? nothing : html`<p class="problem" role="alert">${this.problem}</p>`}
      ${
      tabs
        ? html`<div class="tabs" role="tablist" aria-label=${msg("viewer.pages")} @keydown=${this.onKey}>${
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
          p.visuals.map((v) => html`<visual-card data-visual=${v.id} .visual=${v} .served=${this.served.get(v.id)} .filters=${data.filter_values ?? noValues} ?busy=${this.busy}></visual-card>`)
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
