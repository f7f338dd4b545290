/**
 * Charts of visuals as SVG: a vega-lite spec from the visual's type and
 * encoding, compiled and drawn by vega without a browser or a canvas (text
 * widths are estimated), for the PDF and PNG documents.
 *
 * @since 0.1.0
 */
import type { ReportViews } from "@analytics/core"
import * as vega from "vega"
import * as vl from "vega-lite"

/** A visual with its rows. */
export type Rows = Extract<ReportViews.VisualView, { readonly _tag: "Rows" }>

/** The names of a visual's columns. */
export const names = (v: Rows): ReadonlyArray<string> => v.columns.map((c) => c.name)

/** The names of a visual's measure columns. */
export const measures = (v: Rows): ReadonlyArray<string> => v.columns.filter((c) => c.kind === "measure").map((c) => c.name)

/** A vega-lite spec for a chart visual, or `undefined` for a table or a key figure. */
export const spec = (v: Rows, width: number, height: number): vl.TopLevelSpec | undefined => {
  const encoding = v.visual.encoding ?? {}
  const x = encoding.x ?? names(v).find((c) => !measures(v).includes(c))
  const y = encoding.y?.[0] ?? measures(v)[0]
  const base = { data: { values: v.rows.map((r) => ({ ...r })) }, width, height, config: { font: "Helvetica", view: { stroke: null } } } as const
  switch (v.visual.type) {
    case "bar":
      return x === undefined || y === undefined ? undefined : { ...base, mark: "bar", encoding: { x: { field: x, type: "nominal", sort: null }, y: { field: y, type: "quantitative" } } }
    case "line":
    case "area":
      return x === undefined || y === undefined
        ? undefined
        : { ...base, mark: v.visual.type, encoding: { x: { field: x, type: "ordinal", sort: null }, y: { field: y, type: "quantitative" } } }
    case "pie": {
      const category = encoding.category ?? x
      const value = encoding.value ?? y
      return category === undefined || value === undefined
        ? undefined
        : { ...base, mark: "arc", encoding: { theta: { field: value, type: "quantitative" }, color: { field: category, type: "nominal" } } }
    }
    default:
      return undefined
  }
}

/** The SVG of a chart, its root's size removed (so the box it is drawn in decides it). */
export const svg = async (spec: vl.TopLevelSpec) => {
  const svg = await new vega.View(vega.parse(vl.compile(spec).spec), { renderer: "none" }).toSVG()
  return svg.replace(/^<svg([^>]*?) width="[\d.]+" height="[\d.]+"/, "<svg$1")
}

