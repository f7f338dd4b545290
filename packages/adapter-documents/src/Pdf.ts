/**
 * Reports as PDF (decision 0015): a cover page with the report, the export's
 * filters and the time; then each report page on its own landscape A4
 * page, its visuals in a grid of two columns: charts drawn as vectors
 * (vega-lite to SVG to PDF, no browser and no canvas), tables, and key
 * figures. A visual that cannot be shown gets its notice in its place. The
 * watermark is drawn into every page's content, tiled, so it cannot be
 * removed by hiding a layer.
 *
 * @since 0.1.0
 */
import { DocumentRenderers, ReportViews } from "@analytics/core"
import { Effect, Stream } from "effect"
import PDFDocument from "pdfkit"
import SVGtoPDF from "svg-to-pdfkit"
import * as Charts from "./Charts.ts"

const page = { width: 842, height: 595, margin: 36 } as const
const gap = 18
const rowsShown = 20


/** Draws one visual in its box. */
const drawVisual = async (doc: PDFKit.PDFDocument, v: ReportViews.VisualView, x: number, y: number, width: number, height: number) => {
  doc.save().roundedRect(x, y, width, height, 6).lineWidth(0.5).strokeColor("#d1d5db").stroke().restore()
  doc.font("Helvetica-Bold").fontSize(11).fillColor("#111827").text(v.visual.title ?? v.visual.id, x + 10, y + 8, { width: width - 20, lineBreak: false })
  const top = y + 28
  const inner = { x: x + 10, width: width - 20, height: height - 38 }
  if (v._tag === "Unavailable") {
    doc.font("Helvetica-Oblique").fontSize(10).fillColor("#6b7280").text(v.detail, inner.x, top + inner.height / 2 - 6, { width: inner.width, align: "center" })
    return
  }
  const figure = ReportViews.keyFigure(v)
  if (figure !== undefined) {
    doc.font("Helvetica-Bold").fontSize(32).fillColor("#2563eb").text(figure, inner.x, top + 20, { width: inner.width })
    return
  }
  const spec = v.rows.length > 0 && v.rows.length <= 500 ? Charts.spec(v, inner.width - 60, inner.height - 50) : undefined
  if (spec !== undefined) {
    SVGtoPDF(doc, await Charts.svg(spec), inner.x, top, { width: inner.width, height: inner.height, preserveAspectRatio: "xMinYMin meet", assumePt: true })
    return
  }
  // A table: the first rows, each column an equal share of the width.
  const columnWidth = inner.width / Math.max(1, Charts.names(v).length)
  doc.font("Helvetica-Bold").fontSize(8).fillColor("#374151")
  Charts.names(v).forEach((c, i) => doc.text(c, inner.x + i * columnWidth, top, { width: columnWidth - 4, lineBreak: false, ellipsis: true }))
  doc.font("Helvetica").fillColor("#111827")
  const lineHeight = 11
  const fits = Math.min(rowsShown, Math.floor((inner.height - lineHeight) / lineHeight) - 1)
  v.rows.slice(0, fits).forEach((row, r) =>
    Charts.names(v).forEach((c, i) => {
      const value = row[c]
      doc.text(ReportViews.displayText(value), inner.x + i * columnWidth, top + (r + 1) * lineHeight, {
        width: columnWidth - 4,
        lineBreak: false,
        ellipsis: true,
        align: typeof value === "number" ? "right" : "left"
      })
    })
  )
  if (v.rows.length > fits) doc.fillColor("#6b7280").text(`The first ${fits} of ${v.rows.length} rows.`, inner.x, top + (fits + 1) * lineHeight)
}

/**
 * Tiles `text` across the current page in staggered rows, light and under
 * nothing: part of the page's own content. Tiles stay inside the margins
 * (a tile past the bottom would make pdfkit start a new page).
 */
const drawWatermark = (doc: PDFKit.PDFDocument, text: string) => {
  doc.save().font("Helvetica").fontSize(14).fillColor("#111827").fillOpacity(0.12)
  const tile = doc.widthOfString(text) + 80
  const bottom = page.height - page.margin - 20
  for (let row = 0, y = page.margin; y < bottom; row++, y += 70) {
    for (let x = page.margin + (row % 2) * (tile / 2); x + tile - 80 <= page.width - page.margin; x += tile) {
      doc.text(text, x, y, { lineBreak: false })
    }
  }
  doc.restore()
}

const write = async (view: ReportViews.ReportView, options: DocumentRenderers.DocumentOptions, doc: PDFKit.PDFDocument) => {
  const finishPage = () => {
    if (options.watermark !== null) drawWatermark(doc, options.watermark)
  }
  doc.font("Helvetica-Bold").fontSize(24).fillColor("#111827").text(view.report.name, page.margin, 120)
  if (view.report.description !== null) doc.moveDown(0.5).font("Helvetica").fontSize(12).fillColor("#374151").text(view.report.description)
  doc.moveDown(1).font("Helvetica").fontSize(10).fillColor("#374151")
  doc.text(`Generated ${options.generatedAt.toISOString()}`)
  doc.text(options.filters.length === 0 ? "Filters: none" : `Filters: ${options.filters.join("; ")}`)
  doc.text(`Pages: ${view.pages.map((p) => p.name).join(", ")}`)
  finishPage()
  const width = (page.width - 2 * page.margin - gap) / 2
  for (const reportPage of view.pages) {
    doc.addPage()
    doc.font("Helvetica-Bold").fontSize(16).fillColor("#111827").text(reportPage.name, page.margin, page.margin, { lineBreak: false })
    const rows = Math.max(1, Math.ceil(reportPage.visuals.length / 2))
    const height = (page.height - 2 * page.margin - 30 - gap * (rows - 1)) / rows
    for (const [i, v] of reportPage.visuals.entries()) {
      const x = page.margin + (i % 2) * (width + gap)
      const y = page.margin + 30 + Math.floor(i / 2) * (height + gap)
      await drawVisual(doc, v, x, y, width, height)
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
