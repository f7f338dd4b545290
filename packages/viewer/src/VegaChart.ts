/**
 * `<vega-chart>`: one chart. It first shows the SVG the server drew (no
 * script needed, nothing to wait for), then, once it has a width (its page
 * is shown) and the browser is idle, loads the Vega chunk and swaps in a
 * live view: tooltips,
 * and a redraw at its own width whenever the card resizes. When the card is
 * much narrower or wider than the server's drawing (a phone), it swaps at
 * once, since the scaled drawing's text would be too small or too large.
 *
 * On a page in dark mode it draws in the spec's dark colours (`DarkColors`).
 *
 * A plain custom element rather than a Lit one: it renders nothing itself,
 * it hands its box to Vega.
 *
 * @since 0.1.0
 */
import { forScheme, onSchemeChange, recolorDrawing } from "./DarkColors.ts"
import { chartSize } from "./Data.ts"
import { msg } from "./i18n/msg.ts"
import type { Chart } from "./VegaRuntime.ts"

/** The Vega chunk, loaded once for every chart. */
let runtime: Promise<typeof import("./VegaRuntime.ts")> | undefined
const loadRuntime = () => (runtime ??= import("./VegaRuntime.ts"))

/** How far the card's width may differ from the server's drawing before the live chart replaces it at once. */
const tolerance = 0.2

const idle = (then: () => void) =>
  "requestIdleCallback" in window ? window.requestIdleCallback(then, { timeout: 600 }) : setTimeout(then, 50)

/** A chart drawn by the server, then by Vega in the browser. */
export class VegaChart extends HTMLElement {
  /** The compiled Vega spec. */
  spec: unknown
  rows: ReadonlyArray<Readonly<Record<string, unknown>>> = []
  /** The server's drawing of the same spec, shown until the live view is ready. */
  served: Element | undefined
  private chart: Chart | undefined
  private drawing = false
  private scheduled = false
  private width = 0
  private observers: Array<{ disconnect(): void }> = []

  connectedCallback() {
    this.classList.add("chart")
    if (this.served !== undefined && this.served.parentElement !== this) {
      recolorDrawing(this.served, this.spec)
      this.replaceChildren(this.served)
    }
    if (this.served === undefined && this.chart === undefined) {
      this.setAttribute("aria-busy", "true")
      // the theme shows these words while the chart is drawn (CSS `attr()`)
      this.setAttribute("data-drawing", msg("viewer.chart.drawing"))
    }
    // Observed from the start: the first callback tells its width; a chart on a hidden page has none until shown.
    const resized = new ResizeObserver(() => this.resized())
    resized.observe(this)
    // Dark mode on or off: drawn again in the other colours.
    const scheme = onSchemeChange(() => {
      this.chart?.finalize()
      this.chart = undefined
      void this.draw()
    })
    this.observers = [resized, scheme]
  }

  disconnectedCallback() {
    for (const o of this.observers) o.disconnect()
    this.observers = []
    this.chart?.finalize()
    this.chart = undefined
    this.scheduled = false
  }

  private async draw() {
    if (this.drawing || this.chart !== undefined || !this.isConnected) return
    this.drawing = true
    try {
      const { draw } = await loadRuntime()
      const box = document.createElement("div")
      box.className = "live"
      this.width = this.clientWidth
      const chart = await draw(box, forScheme(this.spec), this.rows, this.width)
      if (!this.isConnected) return void chart.finalize()
      this.chart = chart
      this.replaceChildren(box)
      this.removeAttribute("aria-busy")
      this.removeAttribute("data-drawing")
      this.dispatchEvent(new Event("chart-drawn", { bubbles: true }))
    } finally {
      this.drawing = false
    }
  }

  private resized() {
    const width = this.clientWidth
    if (width === 0) return
    if (this.chart === undefined) {
      if (this.scheduled) return
      this.scheduled = true
      const far = Math.abs(width - chartSize.width) / chartSize.width > tolerance
      if (this.served === undefined || far) void this.draw()
      else idle(() => void this.draw())
      return
    }
    if (Math.abs(width - this.width) < 2) return
    this.width = width
    void loadRuntime().then(({ resize }) => this.chart === undefined ? undefined : resize(this.chart, width))
  }
}

customElements.define("vega-chart", VegaChart)

declare global {
  interface HTMLElementTagNameMap {
    "vega-chart": VegaChart
  }
}
