/**
 * Reports as PowerPoint decks (pptxgenjs): a title slide, then one slide
 * per visual with a native chart (editable in PowerPoint, its data in the
 * embedded workbook), or a native table, or its key figure as text; never
 * a picture.
 *
 * @since 0.1.0
 */
import { DocumentRenderers, ReportViews } from "@analytics/core"
import { Effect, Stream } from "effect"
import * as Charts from "./Charts.ts"
import * as PptxModule from "pptxgenjs"

/** What this renderer uses of a slide. */
interface Slide {
  addText(text: string, options: Record<string, unknown>): Slide
  addChart(type: string, data: ReadonlyArray<unknown>, options: Record<string, unknown>): Slide
  addTable(rows: ReadonlyArray<ReadonlyArray<{ readonly text: string; readonly options?: Record<string, unknown> }>>, options: Record<string, unknown>): Slide
}

/** What this renderer uses of a deck. */
interface Deck {
  layout: string
  title: string
  readonly ChartType: Readonly<Record<"bar" | "line" | "area" | "pie", string>>
  addSlide(): Slide
  write(options: { readonly outputType: "uint8array" }): Promise<unknown>
}

// The package's types describe a CommonJS default that NodeNext cannot construct; its ES build's default is the class.
const PptxGenJS = (PptxModule as unknown as { readonly default: new () => Deck }).default

const charts = { bar: "bar", line: "line", area: "area", pie: "pie" } as const

/** One visual's slide body. */
const addVisual = (pptx: Deck, slide: Slide, v: ReportViews.VisualView) => {
  const box = { x: 0.5, y: 1.2, w: 12.3, h: 5.8 }
  if (v._tag === "Unavailable") {
    slide.addText(v.detail, { ...box, align: "center", italic: true, color: "6B7280", fontSize: 18 })
    return
  }
  const figure = ReportViews.keyFigure(v)
  if (figure !== undefined) {
    slide.addText(figure, { ...box, fontSize: 60, bold: true, color: "2563EB" })
    return
  }
  const encoding = v.visual.encoding ?? {}
  const measure = encoding.value ?? encoding.y?.[0] ?? Charts.measures(v)[0]
  const kind = v.visual.type in charts ? charts[v.visual.type as keyof typeof charts] : undefined
  const label = (v.visual.type === "pie" ? encoding.category : encoding.x) ?? Charts.names(v).find((c) => !Charts.measures(v).includes(c))
  const series = v.visual.type === "pie" ? [measure].filter((m) => m !== undefined) : encoding.y ?? Charts.measures(v)
  if (kind !== undefined && label !== undefined && series.length > 0 && v.rows.length > 0 && v.rows.length <= 500) {
    const data = series.map((name) => ({
      name,
      labels: v.rows.map((r) => String(r[label] ?? "")),
      values: v.rows.map((r) => Number(r[name] ?? 0))
    }))
    slide.addChart(pptx.ChartType[kind], data, { ...box, showLegend: series.length > 1 || kind === "pie", showTitle: false })
    return
  }
  const rows = [
    Charts.names(v).map((c) => ({ text: c, options: { bold: true } })),
    ...v.rows.slice(0, 15).map((row) => Charts.names(v).map((c) => ({ text: ReportViews.displayText(row[c]) })))
  ]
  slide.addTable(rows, { ...box, fontSize: 12 })
}

/** The pptx renderer. */
export const render: DocumentRenderers.Renderer = (view, options) =>
  Stream.fromEffect(Effect.tryPromise({
    try: async () => {
      const pptx = new PptxGenJS()
      pptx.layout = "LAYOUT_WIDE"
      pptx.title = view.report.name
      const cover = pptx.addSlide()
      cover.addText(view.report.name, { x: 0.5, y: 2.4, w: 12.3, h: 1, fontSize: 36, bold: true })
      cover.addText(
        [`Generated ${options.generatedAt.toISOString()}`, options.filters.length === 0 ? "Filters: none" : `Filters: ${options.filters.join("; ")}`].join("\n"),
        { x: 0.5, y: 3.6, w: 12.3, h: 1, fontSize: 16, color: "374151" }
      )
      for (const page of view.pages) {
        for (const v of page.visuals) {
          const slide = pptx.addSlide()
          slide.addText(`${page.name} · ${v.visual.title ?? v.visual.id}`, { x: 0.5, y: 0.4, w: 12.3, h: 0.6, fontSize: 24, bold: true })
          addVisual(pptx, slide, v)
        }
      }
      const out = await pptx.write({ outputType: "uint8array" })
      return out as Uint8Array
    },
    catch: (cause) => new DocumentRenderers.RenderError({ detail: "The deck could not be written", cause })
  }))
