/**
 * `<visual-card>`: one visual in its card: its title, then its chart, key
 * figure or table, or a message instead of an empty chart (no rows match,
 * its query timed out, nothing visible to this viewer), and the chart's
 * data as a table behind "Show data", its text alternative; a table wider
 * than the card says it scrolls (`ScrollHint`). Its menu (⋯) downloads
 * the visual's CSV with the filters on screen (when the share allows it:
 * the one CSV entry, decision 0014), its chart as a PNG, and shows the card
 * full screen. A long key figure is compact (`€52.8M`), its exact value in
 * the tooltip and for screen readers. While the
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
import type { FilterValue, TableData, VisualData } from "./Data.ts"
import { watch } from "./ScrollHint.ts"
import "./VegaChart.ts"
import { msg } from "./i18n/msg.ts"

let tables = 0

/** The data as an accessible table, its header row and numbers aligned; the hint above it shows while it overflows (`ScrollHint`). */
export const dataTable = (table: TableData, caption?: string): TemplateResult => {
  const hint = `table-hint-${++tables}`
  return html`<p class="scroll-hint" id=${hint} hidden>${msg("viewer.table.scroll")}</p><div class="table-scroll" tabindex="0" role="region" aria-label=${caption ?? msg("viewer.data")}><table>
    ${caption === undefined ? nothing : html`<caption class="visually-hidden">${caption}</caption>`}
    <thead><tr>${table.columns.map((c) => html`<th scope="col" class=${c.numeric ? "number" : ""}>${c.title}</th>`)}</tr></thead>
    <tbody>${table.cells.map((row) => html`<tr>${row.map((cell, i) => html`<td class=${table.columns[i]?.numeric ? "number" : ""}>${cell}</td>`)}</tr>`)}</tbody>
  </table></div>${
    table.rows > table.cells.length ? html`<p class="note">${msg("viewer.data.firstRows", { shown: table.cells.length, rows: table.rows })}</p>` : nothing
  }`
}

/** A key figure: compact when long, the exact value its tooltip and what screen readers read. */
export const keyFigure = (v: VisualData): TemplateResult =>
  v.figure_compact === undefined || v.figure_compact === v.figure
    ? html`<p class="kpi">${v.figure ?? ""}</p>`
    : html`<p class="kpi" title=${v.figure ?? ""}><span aria-hidden="true">${v.figure_compact}</span><span class="visually-hidden">${v.figure ?? ""}</span></p>`

/** The URL of a visual's CSV with `filters` (the values on screen) in `?filters=`, as the page's own URL holds them. */
export const csvUrl = (downloadUrl: string, filters: Readonly<Record<string, FilterValue>> | undefined): string => {
  const url = new URL(downloadUrl, document.baseURI)
  if (filters !== undefined && Object.keys(filters).length > 0) url.searchParams.set("filters", JSON.stringify(filters))
  return url.pathname + url.search
}

/** A file name of a visual's title: letters, digits and dashes. */
const fileName = (title: string) => title.normalize("NFKD").replace(/[^\w-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 80) || "chart"

/**
 * The chart's drawing as a PNG at twice its size, on its card's colour
 * (an SVG image drawn on a canvas: the page's policy allows `data:` images).
 */
const chartPng = async (svg: SVGSVGElement, background: string): Promise<Blob> => {
  const box = svg.getBoundingClientRect()
  const width = Math.max(1, Math.round(box.width))
  const height = Math.max(1, Math.round(box.height))
  const copy = svg.cloneNode(true) as SVGSVGElement
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg")
  copy.setAttribute("width", String(width))
  copy.setAttribute("height", String(height))
  const image = new Image()
  image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(copy))}`
  await image.decode()
  const canvas = document.createElement("canvas")
  canvas.width = width * 2
  canvas.height = height * 2
  const context = canvas.getContext("2d")!
  context.fillStyle = background
  context.fillRect(0, 0, canvas.width, canvas.height)
  context.drawImage(image, 0, 0, canvas.width, canvas.height)
  return new Promise((resolve, reject) => canvas.toBlob((blob) => blob === null ? reject(new Error("No PNG")) : resolve(blob), "image/png"))
}

/** A visual of the report in its card. */
export class VisualCard extends LitElement {
  static override properties = {
    visual: { attribute: false },
    served: { attribute: false },
    filters: { attribute: false },
    busy: { type: Boolean, reflect: true },
    full: { state: true }
  }

  declare visual: VisualData
  /** The server's drawing of its chart, shown until the live chart is drawn. */
  declare served: Element | undefined
  declare busy: boolean
  /** The filters on screen: the CSV downloads with them. */
  declare filters: Readonly<Record<string, FilterValue>> | undefined
  /** Whether the card is full screen. */
  declare full: boolean
  private hints: { disconnect(): void } | undefined

  constructor() {
    super()
    this.busy = false
    this.full = false
  }

  protected override createRenderRoot() {
    return this
  }

  override connectedCallback() {
    super.connectedCallback()
    this.classList.add("visual")
    this.hints = watch(this)
    document.addEventListener("fullscreenchange", this.onFullscreen)
  }

  override disconnectedCallback() {
    this.hints?.disconnect()
    document.removeEventListener("fullscreenchange", this.onFullscreen)
    super.disconnectedCallback()
  }

  private onFullscreen = () => {
    this.full = document.fullscreenElement === this
  }

  /** Closes the menu, focus back on its button. */
  private closeMenu() {
    const menu = this.querySelector<HTMLDetailsElement>("details.menu")
    if (menu === null) return
    menu.open = false
    menu.querySelector("summary")?.focus()
  }

  private png = async () => {
    const svg = this.querySelector<SVGSVGElement>(".chart svg")
    this.closeMenu()
    if (svg === null) return
    const background = getComputedStyle(this.querySelector("article") ?? this).backgroundColor
    const url = URL.createObjectURL(await chartPng(svg, background))
    const link = document.createElement("a")
    link.href = url
    link.download = `${fileName(this.visual.title ?? this.visual.id)}.png`
    link.click()
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
  }

  private fullscreen = async () => {
    this.closeMenu()
    if (document.fullscreenElement === this) await document.exitFullscreen()
    else await this.requestFullscreen()
  }

  /** Focus gone elsewhere (a click or Tab out): the menu closes, as a menu does. */
  private onMenuFocusOut = (e: FocusEvent) => {
    const menu = e.currentTarget as HTMLDetailsElement
    if (e.relatedTarget instanceof Node && menu.contains(e.relatedTarget)) return
    menu.open = false
  }

  private onMenuKey = (e: KeyboardEvent) => {
    if (e.key === "Escape") {
      e.preventDefault()
      this.closeMenu()
    }
  }

  /** The visual's menu: its CSV (with the filters on screen), its chart as PNG, full screen. */
  private menu(v: VisualData, title: string) {
    const csv = v.download_url === undefined ? undefined : csvUrl(v.download_url, this.filters)
    const chart = v.state === "rows" && v.vega !== undefined
    const full = typeof document.documentElement.requestFullscreen === "function"
    if (csv === undefined && !chart && !full) return nothing
    return html`<details class="menu" @keydown=${this.onMenuKey} @focusout=${this.onMenuFocusOut}>
      <summary><span aria-hidden="true">⋯</span><span class="visually-hidden">${msg("viewer.menu", { title })}</span></summary>
      <ul>
        ${csv === undefined ? nothing : html`<li><a href=${csv} download @click=${() => this.closeMenu()}>${msg("viewer.menu.csv")}</a></li>`}
        ${chart ? html`<li><button type="button" @click=${this.png}>${msg("viewer.menu.png")}</button></li>` : nothing}
        ${full ? html`<li><button type="button" @click=${this.fullscreen}>${msg(this.full ? "viewer.menu.fullscreen.exit" : "viewer.menu.fullscreen")}</button></li>` : nothing}
      </ul>
    </details>`
  }

  protected override render() {
    const v = this.visual
    if (v === undefined) return nothing
    const titleId = `visual-${v.id}-title`
    const title = v.title ?? v.id
    return html`<article aria-labelledby=${titleId} aria-busy=${this.busy ? "true" : "false"}>
      <div class="card-head"><h3 id=${titleId}>${title}</h3>${this.menu(v, title)}</div>
      ${this.body(v)}
    </article>`
  }

  private body(v: VisualData) {
    if (v.state !== "rows") return html`<p class="state ${v.state}">${v.message ?? v.unavailable ?? ""}</p>`
    if (v.kind === "kpi") return keyFigure(v)
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
