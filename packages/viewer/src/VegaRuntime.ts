/**
 * The part of the viewer loaded only when a chart is drawn: vega, its
 * expression interpreter and its tooltips, in a chunk of their own. Specs
 * are parsed to an expression AST and run by the interpreter, so the page's
 * content security policy needs no `unsafe-eval`.
 *
 * @since 0.1.0
 */
import { parse, type Spec, View, Warn } from "vega"
import { expressionInterpreter } from "vega-interpreter"
import { createDefaultStyle, Handler } from "vega-tooltip"

/** A live chart. */
export type Chart = View

/** Rows as the spec parses them: times serialised as ISO text become the UTC text it reads (`2025-01-01 00:00:00`). */
const normalise = (rows: ReadonlyArray<Readonly<Record<string, unknown>>>) =>
  rows.map((row) => {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(row)) {
      out[k] = typeof v === "string" && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(v) ? v.slice(0, 19).replace("T", " ") : v
    }
    return out
  })

/** One tooltip handler for every chart of the page (it owns one floating element). */
let tooltip: Handler | undefined

/**
 * The tooltip handler, its default look adopted as a constructed stylesheet
 * rather than the `<style>` element it would add: the console's policy
 * allows no inline style, and constructed sheets are outside it.
 */
const tooltipHandler = () => {
  const sheet = new CSSStyleSheet()
  sheet.replaceSync(createDefaultStyle("vg-tooltip-element"))
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet]
  return new Handler({ theme: "light", disableDefaultStyle: true })
}

/** Draws `spec` with `rows` into `container` as SVG, `width` pixels wide. */
export const draw = async (
  container: HTMLElement,
  spec: unknown,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>,
  width: number
): Promise<Chart> => {
  tooltip ??= tooltipHandler()
  const view = new View(parse(spec as Spec, undefined, { ast: true }), {
    renderer: "svg",
    container,
    hover: true,
    expr: expressionInterpreter,
    logLevel: Warn,
    tooltip: tooltip.call
  })
  view.data("rows", normalise(rows))
  // A click on a mark is told with its datum (`chart-mark-click`): the viewer turns it into the mark's dimension values, for drill-through.
  view.addEventListener("click", (_event, item) => {
    const datum = (item as { readonly datum?: unknown } | null | undefined)?.datum
    if (typeof datum === "object" && datum !== null) {
      container.dispatchEvent(new CustomEvent("chart-mark-click", { detail: { datum }, bubbles: true }))
    }
  })
  // The spec's white suits a white page; in the page the chart takes its card's colour (light or dark), its text the theme's (ViewerStyles).
  view.background("transparent")
  view.width(width)
  await view.runAsync()
  return view
}

/** Redraws a chart at a new width. */
export const resize = (chart: Chart, width: number): Promise<unknown> => chart.width(width).runAsync()
