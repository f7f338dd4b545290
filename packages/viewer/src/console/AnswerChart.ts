/**
 * The chart of an answer: the service suggests a visual (a type and which
 * result columns it draws), not a compiled spec as a report's view does,
 * so a small Vega spec is made here (bars, or a line over time), drawn by
 * the viewer's `<vega-chart>` and its lazy Vega chunk like any report
 * chart. The colours are the console theme's.
 *
 * @since 0.1.0
 */

/** A result column as the answer describes it. */
export interface AnswerColumn {
  readonly name: string
  readonly kind: "dimension" | "time_dimension" | "measure"
  readonly title?: string
}

/** The visual suggested for an answer. */
export interface SuggestedVisual {
  readonly type: string
  readonly encoding: { readonly x?: string; readonly y?: ReadonlyArray<string>; readonly series?: string }
}

const token = (name: string, fallback: string): string => {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim()
  return value === "" ? fallback : value
}

/** The Vega spec for the suggested visual over `columns` (`description` is its text alternative, the SVG's label), or `undefined` when it draws nothing a chart would (a table, a key figure). */
export const answerSpec = (visual: SuggestedVisual | null, columns: ReadonlyArray<AnswerColumn>, description: string): unknown => {
  if (visual === null || visual.type === "table" || visual.type === "kpi") return undefined
  const x = visual.encoding.x ?? columns.find((c) => c.kind !== "measure")?.name
  const y = visual.encoding.y?.[0] ?? columns.find((c) => c.kind === "measure")?.name
  if (x === undefined || y === undefined) return undefined
  const title = (name: string) => columns.find((c) => c.name === name)?.title ?? name
  const line = visual.type === "line" || visual.type === "area" || columns.find((c) => c.name === x)?.kind === "time_dimension"
  const fg = token("--analytics-fg", "#1b1f24")
  const muted = token("--analytics-muted", "#57606a")
  const border = token("--analytics-border", "#d0d7de")
  const primary = token("--analytics-primary", "#2563eb")
  const field = JSON.stringify(x)
  const value = JSON.stringify(y)
  const axis = { labelColor: muted, titleColor: fg, domainColor: border, tickColor: border, gridColor: border, labelFont: "system-ui, sans-serif", titleFont: "system-ui, sans-serif" }
  return {
    $schema: "https://vega.github.io/schema/vega/v5.json",
    description,
    autosize: { type: "fit-x", contains: "padding" },
    height: 260,
    padding: 4,
    data: [{ name: "rows" }],
    scales: [
      line
        ? { name: "x", type: "point", domain: { data: "rows", field: x, sort: true }, range: "width", padding: 0.5 }
        : { name: "x", type: "band", domain: { data: "rows", field: x }, range: "width", padding: 0.2 },
      { name: "y", type: "linear", domain: { data: "rows", field: y }, range: "height", nice: true, zero: true }
    ],
    axes: [
      { orient: "bottom", scale: "x", title: title(x), labelOverlap: true, ...axis },
      { orient: "left", scale: "y", title: title(y), grid: true, format: "~s", ...axis }
    ],
    marks: [
      line
        ? {
          type: "line",
          // The marks are not named one by one: the figure's caption and the rows' table say what they show.
          aria: false,
          from: { data: "rows" },
          sort: { field: "datum." + x },
          encode: { enter: { x: { scale: "x", field: x }, y: { scale: "y", field: y }, stroke: { value: primary }, strokeWidth: { value: 2 } } }
        }
        : {
          type: "rect",
          aria: false,
          from: { data: "rows" },
          encode: {
            enter: {
              x: { scale: "x", field: x },
              width: { scale: "x", band: 1 },
              y: { scale: "y", field: y },
              y2: { scale: "y", value: 0 },
              fill: { value: primary },
              tooltip: { signal: `{${JSON.stringify(title(x))}: datum[${field}], ${JSON.stringify(title(y))}: datum[${value}]}` }
            }
          }
        }
    ]
  }
}
