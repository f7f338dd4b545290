/**
 * Reports as PDF (decision 0015): a cover page with the report, the export's
 * filters and the time; then each report page on its own landscape A4
 * page, its visuals in a grid of two columns (one visual alone takes the
 * width): charts drawn as vectors from the same Vega-Lite spec the share
 * page draws (SVG to PDF, no browser and no canvas), tables and key
 * figures in their measures' formats. A visual that cannot be shown, or
 * whose rows show nothing, gets its sentence in its place. Text is
 * DejaVu Sans, embedded. The watermark is drawn into every page's content,
 * tiled, as the outlines of its glyphs (vector paths, no text object): it
 * cannot be removed by hiding a layer or deleting a text object, and text
 * extraction (`pdftotext`, copy and paste) gives the report without it
 * (decision 0014, "What a watermark promises").
 *
 * @since 0.1.0
 */
import type { Branding, ReportViews } from "@analytics/core"
import { DocumentRenderers } from "@analytics/core"
import { Effect, Stream } from "effect"
import { Resvg } from "@resvg/resvg-js"
import PDFDocument from "pdfkit"
import SVGtoPDF from "svg-to-pdfkit"
import * as Fonts from "./Fonts.ts"
import * as Visuals from "./Visuals.ts"

const page = { width: 842, height: 595, margin: 36 } as const
const gap = 18
const colours = { text: "#111827", muted: "#4b5563", border: "#d1d5db", rule: "#e5e7eb" } as const

/** The document's faces: DejaVu Sans when installed, else PDF's built-in Helvetica (no glyph beyond Latin-1). */
const faces = Fonts.files === undefined
  ? { regular: "Helvetica", bold: "Helvetica-Bold", oblique: "Helvetica-Oblique" }
  : { regular: "Sans", bold: "Sans-Bold", oblique: "Sans-Oblique" }

const registerFonts = (doc: PDFKit.PDFDocument) => {
  if (Fonts.files === undefined) return
  doc.registerFont(faces.regular, Fonts.files.regular)
  doc.registerFont(faces.bold, Fonts.files.bold)
  doc.registerFont(faces.oblique, Fonts.files.oblique)
}

/** A sentence in the middle of a visual's box. */
const drawNotice = (doc: PDFKit.PDFDocument, text: string, x: number, y: number, width: number, height: number) => {
  doc.font(faces.oblique).fontSize(10).fillColor(colours.muted).text(text, x, y + height / 2 - 6, { width, align: "center" })
}

/** A table: bold titles over a rule, cells in rows, numbers right-aligned, columns as wide as their text (within the box). */
const drawTable = (doc: PDFKit.PDFDocument, table: Visuals.Table, x: number, y: number, width: number, height: number) => {
  const fontSize = 9.5
  const lineHeight = 14
  const fits = Math.max(1, Math.floor((height - 2 * lineHeight) / lineHeight))
  const shown = table.cells.length > fits ? fits - 1 : table.cells.length
  const cells = table.cells.slice(0, shown)
  doc.fontSize(fontSize)
  const natural = table.columns.map(({ title }, i) => {
    doc.font(faces.bold)
    let w = doc.widthOfString(title)
    doc.font(faces.regular)
    for (const row of cells) w = Math.max(w, doc.widthOfString(row[i] ?? ""))
    return w + 12
  })
  const total = natural.reduce((a, b) => a + b, 0)
  // every column gets its text's width, then a share of what is left (or loses a share when too wide)
  const widths = total <= width ? natural.map((w) => w + (width - total) / natural.length) : natural.map((w) => (w * width) / total)
  const lefts = widths.map((_, i) => x + widths.slice(0, i).reduce((a, b) => a + b, 0))
  const cell = (text: string, i: number, top: number, numeric: boolean) =>
    doc.text(text, lefts[i]! + 3, top, { width: widths[i]! - 6, lineBreak: false, ellipsis: true, align: numeric ? "right" : "left" })
  doc.font(faces.bold).fillColor(colours.text)
  table.columns.forEach(({ numeric, title }, i) => cell(title, i, y, numeric))
  doc.save().moveTo(x, y + lineHeight - 2).lineTo(x + width, y + lineHeight - 2).lineWidth(0.5).strokeColor(colours.border).stroke().restore()
  doc.font(faces.regular).fillColor(colours.text)
  cells.forEach((row, r) => row.forEach((text, i) => cell(text, i, y + (r + 1) * lineHeight + 2, table.columns[i]!.numeric)))
  if (table.cells.length > shown) {
    doc.font(faces.oblique).fillColor(colours.muted).text(`The first ${shown} of ${table.cells.length} rows.`, x + 3, y + (shown + 1) * lineHeight + 4, { lineBreak: false })
  }
}

/** Draws one visual in its box: its title, then its chart, table, key figure or sentence. */
const drawVisual = async (doc: PDFKit.PDFDocument, v: ReportViews.VisualView, branding: Branding.Branding, x: number, y: number, width: number, height: number) => {
  doc.save().roundedRect(x, y, width, height, 6).lineWidth(0.5).strokeColor(colours.border).stroke().restore()
  doc.font(faces.bold).fontSize(11).fillColor(colours.text).text(Visuals.titleOf(v), x + 10, y + 9, { width: width - 20, lineBreak: false, ellipsis: true })
  const inner = { x: x + 10, y: y + 30, width: width - 20, height: height - 40 }
  const shown = Visuals.shown(v, branding)
  switch (shown._tag) {
    case "Notice":
      return drawNotice(doc, shown.text, inner.x, inner.y, inner.width, inner.height)
    case "Figure": {
      doc.font(faces.bold).fontSize(30)
      const size = Math.min(30, (30 * inner.width) / Math.max(1, doc.widthOfString(shown.text)))
      doc.fontSize(size).fillColor(shown.plan.theme.accent).text(shown.text, inner.x, inner.y + inner.height / 2 - size * 0.7, { width: inner.width, align: "center", lineBreak: false })
      doc.font(faces.regular).fontSize(10).fillColor(colours.muted).text(shown.plan.value.title, inner.x, inner.y + inner.height / 2 + size * 0.6, { width: inner.width, align: "center", lineBreak: false })
      return
    }
    case "Table":
      return drawTable(doc, shown.table, inner.x, inner.y, inner.width, inner.height)
    case "Chart": {
      // A CSS pixel drawn as a point: Vega lays text out at the sizes the page prints it.
      const svg = await Visuals.chartSvg(shown.plan, shown.rows, inner.width, inner.height)
      SVGtoPDF(doc, svg, inner.x, inner.y, {
        width: inner.width,
        height: inner.height,
        preserveAspectRatio: "xMinYMin meet",
        assumePt: true,
        fontCallback: (_family, bold, italic) => (bold ? faces.bold : italic ? faces.oblique : faces.regular)
      })
      return
    }
  }
}

/** The watermark's size, in points. */
const watermarkSize = 14

/**
 * The outlines of `text` set in the regular face at `watermarkSize`, as SVG
 * path data, its baseline at `watermarkSize` below the top: resvg (usvg)
 * shapes the text with the font and turns each glyph into its path. `""`
 * when no face is installed to take outlines from.
 */
const outlinesOf = (text: string): string => {
  if (Fonts.files === undefined) return ""
  const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="${watermarkSize * 2}">` +
    `<text x="0" y="${watermarkSize}" font-family="${Fonts.family}" font-size="${watermarkSize}">${escaped}</text></svg>`
  const simplified = new Resvg(svg, { font: { loadSystemFonts: false, fontFiles: [Fonts.files.regular], defaultFontFamily: Fonts.family } }).toString()
  return [...simplified.matchAll(/<path\b[^>]*\sd="([^"]*)"/g)].map((match) => match[1]).join(" ")
}

/**
 * Tiles `text` across the current page in staggered rows, light and under
 * nothing: part of the page's own content, drawn as its glyphs' outlines
 * (`outlines`, filled paths), never as text. Without a face to outline
 * (no DejaVu installed) it falls back to text, so the watermark is never
 * missing. Tiles stay inside the margins (a tile past the bottom would make
 * pdfkit start a new page).
 */
const drawWatermark = (doc: PDFKit.PDFDocument, text: string, outlines: string) => {
  doc.save().font(faces.regular).fontSize(watermarkSize).fillColor(colours.text).fillOpacity(0.12)
  const tile = doc.widthOfString(text) + 80
  const bottom = page.height - page.margin - 20
  for (let row = 0, y = page.margin; y < bottom; row++, y += 70) {
    for (let x = page.margin + (row % 2) * (tile / 2); x + tile - 80 <= page.width - page.margin; x += tile) {
      if (outlines === "") doc.text(text, x, y, { lineBreak: false })
      else doc.save().translate(x, y).path(outlines).fill().restore()
    }
  }
  doc.restore()
}

const write = async (view: ReportViews.ReportView, options: DocumentRenderers.DocumentOptions, doc: PDFKit.PDFDocument) => {
  registerFonts(doc)
  const watermark = options.watermark === null ? null : { text: options.watermark, outlines: outlinesOf(options.watermark) }
  const finishPage = () => {
    if (watermark !== null) drawWatermark(doc, watermark.text, watermark.outlines)
  }
  doc.font(faces.bold).fontSize(24).fillColor(colours.text).text(view.report.name, page.margin, 120)
  if (view.report.description !== null) doc.moveDown(0.5).font(faces.regular).fontSize(12).fillColor(colours.muted).text(view.report.description)
  doc.moveDown(1).font(faces.regular).fontSize(10).fillColor(colours.muted)
  doc.text(`Generated ${Visuals.generatedText(options.generatedAt, options.branding.locale)}`)
  doc.text(options.filters.length === 0 ? "Filters: none" : `Filters: ${options.filters.join("; ")}`)
  doc.text(`Pages: ${view.pages.map((p) => p.name).join(", ")}`)
  finishPage()
  for (const reportPage of view.pages) {
    doc.addPage()
    doc.font(faces.bold).fontSize(16).fillColor(colours.text).text(reportPage.name, page.margin, page.margin, { lineBreak: false })
    const columns = reportPage.visuals.length === 1 ? 1 : 2
    const width = (page.width - 2 * page.margin - gap * (columns - 1)) / columns
    const rows = Math.max(1, Math.ceil(reportPage.visuals.length / columns))
    const height = (page.height - 2 * page.margin - 30 - gap * (rows - 1)) / rows
    for (const [i, v] of reportPage.visuals.entries()) {
      const x = page.margin + (i % columns) * (width + gap)
      const y = page.margin + 30 + Math.floor(i / columns) * (height + gap)
      await drawVisual(doc, v, options.branding, x, y, width, height)
      await Visuals.yieldToEventLoop()
    }
    finishPage()
  }
  doc.end()
}

/** The pdf renderer. */
export const render: DocumentRenderers.Renderer = (view, options) =>
  Stream.unwrap(Effect.sync(() => {
    const doc = new PDFDocument({ size: "A4", layout: "landscape", margin: page.margin, info: { Title: view.report.name, Creator: "Analytics" } })
    write(view, options, doc).catch((cause) => doc.destroy(cause instanceof Error ? cause : new Error(String(cause))))
    // A Node stream yields Buffers, which are Uint8Arrays.
    return Stream.fromAsyncIterable<Uint8Array, DocumentRenderers.RenderError>(doc, (cause) => new DocumentRenderers.RenderError({ detail: "The PDF could not be written", cause }))
  }))
