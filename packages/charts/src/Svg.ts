/**
 * Charts drawn as SVG, in Node or a browser, without `eval`: a Vega-Lite
 * spec compiled to Vega (memoised), parsed to an expression AST and run by
 * vega-interpreter, so a page whose content security policy forbids
 * `unsafe-eval` draws the same marks as the server (docs/decisions/0014-sharing.md).
 *
 * @since 0.1.0
 */
import * as vega from "vega"
import { expressionInterpreter } from "vega-interpreter"
import * as vl from "vega-lite"

/** A compiled Vega spec. */
export type VegaSpec = vega.Spec

const compiled = new Map<string, VegaSpec>()
const maxCompiled = 500

/** A Vega-Lite spec compiled to Vega, once per distinct spec (the last 500 are kept). */
export const compile = (spec: vl.TopLevelSpec): VegaSpec => {
  const key = JSON.stringify(spec)
  const known = compiled.get(key)
  if (known !== undefined) return known
  const result = vl.compile(spec).spec
  if (compiled.size >= maxCompiled) compiled.delete(compiled.keys().next().value!)
  compiled.set(key, result)
  return result
}

/** A drawn chart: its SVG and how many data marks it holds. */
export interface Drawn {
  readonly svg: string
  /** Bars, points, arcs and rects drawn, plus one per line or area path. */
  readonly marks: number
}

/** Mark types whose items are each one drawn mark. */
const itemMarks = new Set(["rect", "arc", "symbol", "path", "shape", "image"])
/** Mark types drawn as one path per mark, whatever their items. */
const pathMarks = new Set(["line", "area", "trail"])

interface SceneNode {
  readonly marktype?: string
  readonly role?: string
  readonly items?: ReadonlyArray<SceneNode>
}

/** The data marks under a scenegraph node (axes, legends and titles are not counted). */
const countMarks = (node: SceneNode): number => {
  let n = 0
  if (node.marktype !== undefined && node.role === "mark") {
    if (pathMarks.has(node.marktype)) return (node.items?.length ?? 0) > 0 ? 1 : 0
    if (itemMarks.has(node.marktype)) return node.items?.length ?? 0
  }
  for (const child of node.items ?? []) n += countMarks(child)
  return n
}

/** Engines' rows as Vega reads them: a `Date` becomes the UTC text the spec parses (`2025-01-01 00:00:00`). */
const normalise = (rows: ReadonlyArray<Readonly<Record<string, unknown>>>): Array<Record<string, unknown>> =>
  rows.map((row) => {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(row)) out[k] = v instanceof Date ? v.toISOString().slice(0, 19).replace("T", " ") : v
    return out
  })

/** The last drawings of each compiled spec, by rows and size: a shared page drawn for each viewer draws the same charts. */
const drawings = new WeakMap<VegaSpec, Map<string, Promise<Drawn>>>()
const maxDrawingsPerSpec = 20

/**
 * A compiled spec drawn with `rows` as its `rows` data, at `size`, as SVG
 * (no canvas: text widths are estimated), with the count of its marks.
 * The same spec, rows and size give the same drawing, kept for the next
 * time (the last 20 of each spec compiled by `compile`).
 */
export const toSvg = (
  spec: VegaSpec,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>,
  size?: { readonly width: number; readonly height: number }
): Promise<Drawn> => {
  const known = drawings.get(spec) ?? new Map<string, Promise<Drawn>>()
  drawings.set(spec, known)
  const key = JSON.stringify([size?.width, size?.height, rows])
  const drawn = known.get(key)
  if (drawn !== undefined) return drawn
  const drawing = draw(spec, rows, size)
  known.set(key, drawing)
  if (known.size > maxDrawingsPerSpec) known.delete(known.keys().next().value!)
  // a failed drawing is tried again next time
  drawing.catch(() => known.delete(key))
  return drawing
}

const draw = async (
  spec: VegaSpec,
  rows: ReadonlyArray<Readonly<Record<string, unknown>>>,
  size?: { readonly width: number; readonly height: number }
): Promise<Drawn> => {
  const view = new vega.View(vega.parse(spec, undefined, { ast: true }), { renderer: "none", expr: expressionInterpreter, logLevel: vega.Warn })
  try {
    view.data("rows", normalise(rows))
    if (size !== undefined) view.width(size.width).height(size.height)
    await view.runAsync()
    const svg = await view.toSVG()
    const marks = countMarks((view.scenegraph() as unknown as { readonly root: SceneNode }).root)
    return { svg, marks }
  } finally {
    view.finalize()
  }
}
