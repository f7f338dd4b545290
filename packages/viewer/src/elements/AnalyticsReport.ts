/**
 * `<analytics-report>`: a report in an embedding app's page, as the
 * signed-in person sees it (`GET {base-url}v1/reports/{id}/view`, their
 * row-level security; the page is same-origin with the service, whose
 * session or the embedding app's authentication says who they are).
 *
 * Attributes and properties:
 * - `report-id` / `reportId`: the report;
 * - `page` / `page`: the page shown, by name (or 1-based number); follows
 *   the person's choice (setting it tells no event: the app chose it);
 * - `filters` / `filters`: the filters' values as JSON
 *   (`{"region":["EU"]}`); follows the person's choice;
 * - `locked-filters` / `lockedFilters`: values the embedding app sets,
 *   shown as set and not changeable in the element (a convenience, not a
 *   boundary: row-level security is what limits rows);
 * - `base-url` / `baseUrl`: where the service is mounted; else the page's
 *   `<meta name="analytics-base-url">`, else the document's base.
 *
 * Events (bubbling, composed): `analytics-filters-change` {filters},
 * `analytics-page-change` {page, index}, `analytics-problem` {problem:
 * {status, title, detail}}. In a shadow root, styled by the
 * `--analytics-*` custom properties set on the element and its parts
 * (`title`, `viewer`).
 *
 * @since 0.1.0
 */
import { html, LitElement, nothing } from "lit"
import { keyed } from "lit/directives/keyed.js"
import type { FilterValue, ReportData } from "../Data.ts"
import "../ReportViewer.ts"
import type { ReportViewer, ViewProblem } from "../ReportViewer.ts"
import { viewerSheet } from "../theme/ViewerStyles.ts"
import { baseUrlOf } from "./ElementClient.ts"

type Values = Readonly<Record<string, FilterValue>>

/** JSON attributes: an object, else none (a bad value is told as a problem, not thrown). */
const jsonObject = {
  fromAttribute: (value: string | null): Values | undefined => {
    if (value === null || value.trim() === "") return undefined
    try {
      const parsed: unknown = JSON.parse(value)
      return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? parsed as Values : undefined
    } catch {
      return undefined
    }
  },
  toAttribute: (value: Values | undefined) => value === undefined ? null : JSON.stringify(value)
}

/** The element's own look: defaults of the tokens (the embedding app overrides them on the element) and its states. */
const hostCss = `
:host { display: block; color: var(--analytics-fg); font-family: var(--analytics-font);
  --analytics-font: inherit; --analytics-bg: #ffffff; --analytics-surface: #f6f8fa; --analytics-fg: #1b1f24; --analytics-muted: #57606a;
  --analytics-border: #d0d7de; --analytics-danger: #b42318; --analytics-danger-bg: #fef3f2; --analytics-primary: #1d4ed8; --analytics-radius: 8px; }
:host([hidden]) { display: none; }
* { box-sizing: border-box; }
h2.title { font-size: 1.25rem; margin: 0 0 12px; }
section.page h2 { font-size: 1rem; margin: 16px 0 8px; }
a, details summary { color: var(--analytics-primary); }
details summary { cursor: pointer; }
:focus-visible { outline: 3px solid var(--analytics-primary); outline-offset: 2px; }
.problem { border: 1px solid var(--analytics-danger); background: var(--analytics-danger-bg); color: var(--analytics-fg); border-radius: var(--analytics-radius); padding: 8px 12px; }
visual-card .state { color: var(--analytics-muted); border: 1px dashed var(--analytics-border); border-radius: var(--analytics-radius); text-align: center; }
`

let hostSheet: CSSStyleSheet | undefined

/** A report, for embedding apps. */
export class AnalyticsReport extends LitElement {
  static override properties = {
    reportId: { type: String, attribute: "report-id", reflect: true },
    page: { type: String, reflect: true },
    filters: { attribute: "filters", converter: jsonObject },
    lockedFilters: { attribute: "locked-filters", converter: jsonObject },
    baseUrl: { type: String, attribute: "base-url" },
    reportName: { state: true }
  }

  declare reportId: string | undefined
  declare page: string | undefined
  declare filters: Values | undefined
  declare lockedFilters: Values | undefined
  declare baseUrl: string | undefined
  declare reportName: string
  /** The URL of the view the viewer shows. */
  private src: string | undefined
  /** The filters were set from the viewer's answer: nothing to fetch. */
  private echo = false

  constructor() {
    super()
    this.reportName = ""
  }

  protected override createRenderRoot() {
    const root = super.createRenderRoot() as ShadowRoot
    if (hostSheet === undefined) {
      hostSheet = new CSSStyleSheet()
      hostSheet.replaceSync(hostCss)
    }
    root.adoptedStyleSheets = [hostSheet, viewerSheet()]
    return root
  }

  /** Where the service is: `base-url`, the page's `<meta name="analytics-base-url">`, or the document's base; always ending in `/`. */
  private get base(): URL {
    const given = baseUrlOf(this.baseUrl) ?? document.baseURI
    const url = new URL(given, document.baseURI)
    if (!url.pathname.endsWith("/")) url.pathname += "/"
    return url
  }

  protected override willUpdate(changed: Map<PropertyKey, unknown>) {
    const fromViewer = this.echo
    this.echo = false
    if (this.reportId === undefined || this.reportId === "") {
      this.src = undefined
      return
    }
    if (changed.has("reportId")) this.reportName = ""
    if (changed.has("reportId") || changed.has("baseUrl") || changed.has("lockedFilters") || (changed.has("filters") && !fromViewer)) {
      const url = new URL(`v1/reports/${encodeURIComponent(this.reportId)}/view`, this.base)
      const values = { ...this.filters, ...this.lockedFilters }
      if (Object.keys(values).length > 0) url.searchParams.set("filters", JSON.stringify(values))
      this.src = url.href
    }
  }

  protected override updated(changed: Map<PropertyKey, unknown>) {
    if (changed.has("page") && this.page !== undefined && this.page !== "") this.viewer?.showPage(this.page)
  }

  private get viewer(): ReportViewer | null {
    return this.renderRoot.querySelector("report-viewer")
  }

  private tell(type: string, detail: unknown) {
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }))
  }

  private onLoad = (event: CustomEvent<ReportData>) => {
    event.stopPropagation()
    this.reportName = event.detail.report.name
    if (this.page !== undefined && this.page !== "") this.viewer?.showPage(this.page)
  }

  private onFilters = (event: CustomEvent<Values>) => {
    event.stopPropagation()
    const locked = this.lockedFilters ?? {}
    const filters = Object.fromEntries(Object.entries(event.detail).filter(([name]) => !(name in locked)))
    this.echo = true
    this.filters = filters
    this.tell("analytics-filters-change", { filters })
  }

  private onPage = (event: CustomEvent<{ readonly index: number; readonly name: string }>) => {
    event.stopPropagation()
    this.page = event.detail.name
    this.tell("analytics-page-change", { page: event.detail.name, index: event.detail.index })
  }

  private onProblem = (event: CustomEvent<ViewProblem>) => {
    event.stopPropagation()
    this.tell("analytics-problem", { problem: event.detail })
  }

  protected override render() {
    if (this.src === undefined) return nothing
    return html`${this.reportName === "" ? nothing : html`<h2 class="title" part="title">${this.reportName}</h2>`}
      ${
      // Another report is another viewer: nothing of the last one stays on screen while it loads.
      keyed(this.reportId, html`<report-viewer part="viewer" .src=${this.src} .locked=${this.lockedFilters ?? {}}
        @report-load=${this.onLoad} @report-filters-change=${this.onFilters} @report-page-change=${this.onPage} @report-problem=${this.onProblem}></report-viewer>`)
    }`
  }
}

customElements.define("analytics-report", AnalyticsReport)

declare global {
  interface HTMLElementTagNameMap {
    "analytics-report": AnalyticsReport
  }
}
