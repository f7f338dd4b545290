/**
 * Reports as PowerPoint decks (pptxgenjs): a title slide, then one slide
 * per visual, never a picture: a native chart drawn from the visual's plan
 * (editable in PowerPoint, its data in the embedded workbook) with the
 * model's titles on its axes, its labels written as the page writes them
 * ("Jan 2025") and its value axis in the measure's format; a heatmap as a
 * native table whose cells are shaded by value; a table of the values as
 * text; a key figure as text; or the sentence that stands in its place.
 *
 * @since 0.1.0
 */
import { type Chart, Format } from "@analytics/charts"
import type { ReportViews } from "@analytics/core"
import { DocumentRenderers } from "@analytics/core"
import { Effect, Stream } from "effect"
import * as PptxModule from "pptxgenjs"
import * as Visuals from "./Visuals.ts"

/** A table cell as pptxgenjs takes it. */
type Cell = { readonly text: string; readonly options?: Record<string, unknown> }

/** What this renderer uses of a slide. */
interface Slide {
  addText(text: string, options: Record<string, unknown>): Slide
  addChart(type: string | ReadonlyArray<{ readonly type: string; readonly data: ReadonlyArray<Series>; readonly options: Record<string, unknown> }>, data: ReadonlyArray<Series> | Record<string, unknown>, options?: Record<string, unknown>): Slide
  addTable(rows: ReadonlyArray<ReadonlyArray<Cell>>, options: Record<string, unknown>): Slide
}

/** What this renderer uses of a deck. */
interface Deck {
  layout: string
  title: string
  readonly ChartType: Readonly<Record<"bar" | "line" | "area" | "pie" | "scatter", string>>
  addSlide(): Slide
  write(options: { readonly outputType: "uint8array" }): Promise<unknown>
}

/** A chart's series as pptxgenjs takes it (a scatter's first series holds the x values). */
interface Series {
  readonly name: string
  readonly labels?: ReadonlyArray<string>
  readonly values: ReadonlyArray<number | null>
}

// The package's types describe a CommonJS default that NodeNext cannot construct; its ES build's default is the class.
const PptxGenJS = (PptxModule as unknown as { readonly default: new () => Deck }).default

const box = { x: 0.5, y: 1.2, w: 12.3, h: 5.8 } as const
const maxTableRows = 15
const text = { color: "111827", muted: "4B5563" } as const

/** A theme colour as PowerPoint writes it (no `#`). */
const hex = (colour: string) => colour.replace(/^#/, "").toUpperCase()

/** A value axis's number format: a currency or a count without decimals (round ticks), a percent as declared. */
const axisFormat = (c: Chart.PlanColumn, locale: string): string => {
  const f = c.numberFormat
  return Format.excelNumFmt(f === undefined || f.type === "percent" ? f : { ...f, decimals: 0 }, locale)
}

const numberOf = (value: unknown): number | null => {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN
  return Number.isFinite(n) ? n : null
}

/** The distinct values of a column, in the rows' order (times in time order), with their labels. */
const distinct = (rows: ReadonlyArray<Visuals.Row>, c: Chart.PlanColumn, locale: string) => {
  const seen = new Map<string, { readonly key: string; readonly label: string; readonly at: number }>()
  for (const row of rows) {
    const value = row[c.field]
    const key = String(value)
    if (!seen.has(key)) seen.set(key, { key, label: Visuals.cellText(value, c, locale), at: c.role === "time" ? Format.toDate(value)?.getTime() ?? 0 : seen.size })
  }
  const all = [...seen.values()]
  return c.role === "time" ? all.sort((a, b) => a.at - b.at) : all
}

/**
 * A two-axis plan's categories and series: one series per measure, or per
 * value of the series column when there is one measure. Bars by value put
 * the highest first, as the page does.
 */
const xySeries = (p: Chart.XyPlan, rows: ReadonlyArray<Visuals.Row>): { readonly labels: ReadonlyArray<string>; readonly series: ReadonlyArray<Series> } => {
  let categories = distinct(rows, p.x, p.locale)
  const sum = (key: string, field: string, match: (row: Visuals.Row) => boolean = () => true) => {
    let total: number | null = null
    for (const row of rows) {
      if (String(row[p.x.field]) !== key || !match(row)) continue
      const n = numberOf(row[field])
      if (n !== null) total = (total ?? 0) + n
    }
    return total
  }
  if ((p.kind === "bar" || p.kind === "stacked_bar" || p.kind === "combo") && p.x.role === "category" && p.order === "value") {
    // as the page sorts them: by the bars' measure (a combo's first), highest first
    const measures = p.kind === "combo" ? p.y.slice(0, 1) : p.y
    const total = (key: string) => measures.reduce((s, c) => s + (sum(key, c.field) ?? 0), 0)
    categories = [...categories].sort((a, b) => total(b.key) - total(a.key))
  }
  const labels = categories.map((c) => c.label)
  const by = p.series
  if (by !== undefined && p.y.length === 1) {
    const y = p.y[0]!
    return {
      labels,
      series: distinct(rows, by, p.locale).map((s) => ({
        name: s.label,
        labels,
        values: categories.map((c) => sum(c.key, y.field, (row) => String(row[by.field]) === s.key))
      }))
    }
  }
  return { labels, series: p.y.map((y) => ({ name: y.title, labels, values: categories.map((c) => sum(c.key, y.field)) })) }
}

/** What every chart's options share: its box, the theme's colours, axis titles and label sizes. */
const common = (p: Chart.DrawnPlan) => ({
  ...box,
  showTitle: false,
  chartColors: p.theme.palette.map(hex),
  legendPos: "b",
  legendFontSize: 11,
  catAxisLabelFontSize: 11,
  valAxisLabelFontSize: 11,
  catAxisLabelColor: hex(p.theme.mutedText),
  valAxisLabelColor: hex(p.theme.mutedText),
  catAxisTitleFontSize: 12,
  valAxisTitleFontSize: 12,
  catAxisTitleColor: hex(p.theme.text),
  valAxisTitleColor: hex(p.theme.text)
})

const titled = (cat: string, val: string) => ({ showCatAxisTitle: true, catAxisTitle: cat, showValAxisTitle: true, valAxisTitle: val })

/** A heatmap as a native table: a row per series value, a column per x, each cell shaded from light to the accent by its value. */
const heatmapTable = (p: Chart.XyPlan, rows: ReadonlyArray<Visuals.Row>): ReadonlyArray<ReadonlyArray<Cell>> => {
  const by = p.series!
  const value = p.y[0]!
  const xs = distinct(rows, p.x, p.locale)
  const ys = distinct(rows, by, p.locale)
  const cellOf = new Map<string, number>()
  for (const row of rows) {
    const n = numberOf(row[value.field])
    if (n !== null) cellOf.set(`${String(row[p.x.field])}\u0000${String(row[by.field])}`, n)
  }
  const values = [...cellOf.values()]
  const [lo, hi] = [Math.min(...values), Math.max(...values)]
  const mix = (t: number) => {
    const [a, b] = [p.theme.light, p.theme.accent].map((c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)))
    return a!.map((v, i) => Math.round(v + (b![i]! - v) * t).toString(16).padStart(2, "0")).join("").toUpperCase()
  }
  // the rows' title heads their column; the columns' title is the slide's caption
  const header: Array<Cell> = [{ text: by.title, options: { bold: true } }, ...xs.map((x) => ({ text: x.label, options: { bold: true, align: "center" } }))]
  return [
    header,
    ...ys.map((y) => [
      { text: y.label, options: { bold: true } },
      ...xs.map((x): Cell => {
        const n = cellOf.get(`${x.key}\u0000${y.key}`)
        if (n === undefined) return { text: "" }
        const t = hi === lo ? 1 : (n - lo) / (hi - lo)
        return { text: Visuals.cellText(n, value, p.locale), options: { fill: { color: mix(t) }, color: t > 0.55 ? "FFFFFF" : text.color, align: "center" } }
      })
    ])
  ]
}

/** One chart visual's slide body. */
const addChart = (pptx: Deck, slide: Slide, p: Chart.DrawnPlan, rows: ReadonlyArray<Visuals.Row>) => {
  const locale = p.locale
  switch (p.kind) {
    case "pie": {
      const slices = distinct(rows, p.category, locale)
      const sum = (key: string) => rows.reduce((s, r) => (String(r[p.category.field]) === key ? s + (numberOf(r[p.value.field]) ?? 0) : s), 0)
      const sorted = [...slices].sort((a, b) => sum(b.key) - sum(a.key))
      const labels = sorted.map((s) => s.label)
      slide.addChart(pptx.ChartType.pie, [{ name: p.value.title, labels, values: sorted.map((s) => sum(s.key)) }], {
        ...common(p),
        showLegend: true,
        legendPos: "r",
        showPercent: true,
        dataLabelColor: "FFFFFF",
        dataLabelFontSize: 12
      })
      return
    }
    case "scatter": {
      const [x, y] = [p.x, p.y[0]!]
      const points = rows.map((r) => ({ x: numberOf(r[x.field]), y: numberOf(r[y.field]), key: p.series === undefined ? "" : String(r[p.series.field]) }))
      const groups = p.series === undefined ? [{ key: "", label: y.title }] : distinct(rows, p.series, locale)
      const data: Array<Series> = [
        { name: x.title, values: points.map((pt) => pt.x) },
        // one series per group: its points' y, empty elsewhere, so each group has its colour and legend entry
        ...groups.map((g) => ({ name: g.label, values: points.map((pt) => (pt.key === g.key ? pt.y : null)) }))
      ]
      slide.addChart(pptx.ChartType.scatter, data, {
        ...common(p),
        ...titled(x.title, y.title),
        showLegend: p.series !== undefined,
        lineSize: 0,
        lineDataSymbol: "circle",
        lineDataSymbolSize: 10,
        catAxes: [{ valAxisLabelFormatCode: axisFormat(x, locale) }],
        valAxes: [{ valAxisLabelFormatCode: axisFormat(y, locale) }]
      })
      return
    }
    case "heatmap": {
      const table = heatmapTable(p, rows)
      // the header row: the rows' title, then a column per x
      const columns = table[0]!.length - 1
      // the rows share the slide's height, as a heatmap's cells are its marks; the first column holds the rows' names
      const rowH = Math.min(0.9, box.h / table.length)
      const first = 1.1
      slide.addTable(table, {
        ...box,
        colW: [first, ...Array.from({ length: columns }, () => (box.w - first) / columns)],
        rowH,
        valign: "middle",
        // many periods across the slide: a smaller font keeps "Jan 2025" on one line
        fontSize: columns > 12 ? 7 : 10,
        color: text.color,
        border: { type: "solid", pt: 0.5, color: "FFFFFF" }
      })
      slide.addText(p.x.title, { x: box.x, y: box.y + rowH * table.length + 0.1, w: box.w, h: 0.4, fontSize: 11, color: text.muted, align: "center" })
      return
    }
    case "combo": {
      const { series } = xySeries({ ...p, series: undefined }, rows)
      const [bars, ...lines] = p.y
      const differ = lines.some((l) => JSON.stringify(l.numberFormat) !== JSON.stringify(bars!.numberFormat))
      const palette = p.theme.palette.map(hex)
      slide.addChart(
        [
          { type: pptx.ChartType.bar, data: series.slice(0, 1), options: { chartColors: [palette[0]], barDir: "col", barGrouping: "clustered" } },
          {
            type: pptx.ChartType.line,
            data: series.slice(1),
            options: { chartColors: palette.slice(1), lineDataSymbol: "circle", lineSize: 2, ...(differ ? { secondaryValAxis: true, secondaryCatAxis: true } : {}) }
          }
        ],
        {
          ...common(p),
          showLegend: true,
          // a second value axis, at the right, when the lines' measures are in another format than the bars'
          ...(differ
            ? {
              valAxes: [
                { showValAxisTitle: true, valAxisTitle: bars!.title, valAxisLabelFormatCode: axisFormat(bars!, locale), valAxisMinVal: 0 },
                {
                  showValAxisTitle: true,
                  valAxisTitle: lines.map((l) => l.title).join(", "),
                  valAxisLabelFormatCode: axisFormat(lines[0]!, locale),
                  valAxisMinVal: 0,
                  valGridLine: { style: "none" }
                }
              ],
              catAxes: [{ showCatAxisTitle: true, catAxisTitle: p.x.title }, { catAxisHidden: true }]
            }
            : { ...titled(p.x.title, p.y.map((c) => c.title).join(", ")), valAxisLabelFormatCode: axisFormat(bars!, locale), valAxisMinVal: 0 })
        }
      )
      return
    }
    default: {
      const { series } = xySeries(p, rows)
      const several = series.length > 1
      const kind = p.kind === "bar" || p.kind === "stacked_bar" ? pptx.ChartType.bar : p.kind === "line" ? pptx.ChartType.line : pptx.ChartType.area
      slide.addChart(kind, series, {
        ...common(p),
        ...titled(p.x.title, p.series !== undefined && p.y.length === 1 ? p.y[0]!.title : p.y.map((c) => c.title).join(", ")),
        // one series: every bar in the accent (several colours would read as categories)
        chartColors: several ? p.theme.palette.map(hex) : [hex(p.theme.accent)],
        showLegend: several,
        valAxisLabelFormatCode: axisFormat(p.y[0]!, locale),
        // from zero, as the page draws them: a bar's length is its value
        ...(p.kind === "line" ? {} : { valAxisMinVal: 0 }),
        ...(p.kind === "bar" || p.kind === "stacked_bar"
          ? { barDir: "col", barGrouping: p.kind === "stacked_bar" ? "stacked" : "clustered", ...(p.kind === "stacked_bar" ? { barOverlapPct: 100 } : {}) }
          : p.kind === "line"
          ? { lineDataSymbol: "circle", lineDataSymbolSize: 6, lineSize: 2 }
          : { barGrouping: several ? "stacked" : "standard" })
      })
      return
    }
  }
}

/** One visual's slide body. */
const addVisual = (pptx: Deck, slide: Slide, v: ReportViews.VisualView, options: DocumentRenderers.DocumentOptions) => {
  const shown = Visuals.shown(v, options.branding)
  switch (shown._tag) {
    case "Notice":
      slide.addText(shown.text, { ...box, align: "center", italic: true, color: text.muted, fontSize: 18 })
      return
    case "Figure":
      slide.addText(shown.text, { ...box, h: 3.6, align: "center", valign: "bottom", fontSize: 60, bold: true, color: hex(shown.plan.theme.accent) })
      slide.addText(shown.plan.value.title, { ...box, y: box.y + 3.7, h: 0.6, align: "center", fontSize: 20, color: text.muted })
      return
    case "Table": {
      const { table } = shown
      const rows = table.cells.slice(0, maxTableRows)
      const align = (i: number) => (table.columns[i]!.numeric ? "right" : "left")
      slide.addTable(
        [
          table.columns.map(({ title: t }, i) => ({ text: t, options: { bold: true, align: align(i), fill: { color: "F3F4F6" } } })),
          ...rows.map((row) => row.map((t, i) => ({ text: t, options: { align: align(i) } })))
        ],
        { ...box, h: undefined, fontSize: 12, color: text.color, border: { type: "solid", pt: 0.5, color: "D1D5DB" } }
      )
      if (table.cells.length > rows.length) {
        slide.addText(`The first ${rows.length} of ${table.cells.length} rows.`, { x: box.x, y: box.y + box.h, w: box.w, h: 0.3, italic: true, fontSize: 11, color: text.muted })
      }
      return
    }
    case "Chart":
      addChart(pptx, slide, shown.plan, shown.rows)
      return
  }
}

/** The pptx renderer. */
export const render: DocumentRenderers.Renderer = (view, options) =>
  Stream.fromEffect(Effect.tryPromise({
    try: async () => {
      const pptx = new PptxGenJS()
      pptx.layout = "LAYOUT_WIDE"
      pptx.title = view.report.name
      const cover = pptx.addSlide()
      cover.addText(view.report.name, { x: 0.5, y: 2.4, w: 12.3, h: 1, fontSize: 36, bold: true, color: text.color })
      cover.addText(
        [`Generated ${Visuals.generatedText(options.generatedAt, options.branding.locale)}`, options.filters.length === 0 ? "Filters: none" : `Filters: ${options.filters.join("; ")}`].join("\n"),
        { x: 0.5, y: 3.6, w: 12.3, h: 1, fontSize: 16, color: "374151" }
      )
      for (const page of view.pages) {
        for (const v of page.visuals) {
          const slide = pptx.addSlide()
          slide.addText(`${page.name} · ${Visuals.titleOf(v)}`, { x: 0.5, y: 0.4, w: 12.3, h: 0.6, fontSize: 24, bold: true, color: text.color })
          addVisual(pptx, slide, v, options)
        }
      }
      const out = await pptx.write({ outputType: "uint8array" })
      return out as Uint8Array
    },
    catch: (cause) => new DocumentRenderers.RenderError({ detail: "The deck could not be written", cause })
  }))
