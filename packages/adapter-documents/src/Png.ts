/**
 * A visual as a PNG image (decision 0015): drawn as SVG (its title, its chart or
 * its rows, the watermark as one rotated pattern tiled over everything) and
 * rasterised by resvg at twice its size, so it stays sharp on dense screens
 * and in slides. The watermark is in the pixels: nothing removes it.
 *
 * @since 0.1.0
 */
import { DocumentRenderers, ReportViews } from "@analytics/core"
import { Resvg } from "@resvg/resvg-js"
import { Effect, Stream } from "effect"
import * as Charts from "./Charts.ts"
import { escape } from "./Xml.ts"

/** The image's size before the 2x density. */
export const size = { width: 1366, height: 768 } as const

const font = "DejaVu Sans, Helvetica, Arial, sans-serif"

/** The body of a visual: its chart, its key figure, or its first rows as text. */
const body = async (v: ReportViews.VisualView, top: number) => {
  const width = size.width - 80
  const height = size.height - top - 40
  if (v._tag === "Unavailable") {
    return `<text x="${size.width / 2}" y="${top + height / 2}" text-anchor="middle" font-family="${font}" font-size="20" font-style="italic" fill="#6b7280">${escape(v.detail)}</text>`
  }
  const figure = ReportViews.keyFigure(v)
  if (figure !== undefined) {
    return `<text x="40" y="${top + 90}" font-family="${font}" font-size="72" font-weight="bold" fill="#2563eb">${escape(figure)}</text>`
  }
  const spec = v.rows.length > 0 && v.rows.length <= 500 ? Charts.spec(v, width - 120, height - 80) : undefined
  if (spec !== undefined) return `<svg x="40" y="${top}" width="${width}" height="${height}"${(await Charts.svg(spec)).slice(4)}`
  const columnWidth = width / Math.max(1, Charts.names(v).length)
  const lines = [
    Charts.names(v).map((c, i) => `<text x="${40 + i * columnWidth}" y="${top + 20}" font-weight="bold">${escape(c)}</text>`).join(""),
    ...v.rows.slice(0, 20).map((row, r) =>
      Charts.names(v).map((c, i) => `<text x="${40 + i * columnWidth}" y="${top + 50 + r * 28}">${escape(ReportViews.displayText(row[c]))}</text>`).join("")
    )
  ]
  return `<g font-family="${font}" font-size="18" fill="#111827">${lines.join("")}</g>`
}

/** The watermark: `text` in one rotated pattern tile, repeated over the whole image. */
const watermark = (text: string) =>
  `<defs><pattern id="watermark" width="420" height="200" patternUnits="userSpaceOnUse" patternTransform="rotate(-30)">` +
  `<text x="10" y="100" font-family="${font}" font-size="22" fill="#111827" fill-opacity="0.14">${escape(text)}</text></pattern></defs>` +
  `<rect width="100%" height="100%" fill="url(#watermark)"/>`

/** The png renderer: the first visual of the view (an export names one). */
export const render: DocumentRenderers.Renderer = (view, options) =>
  Stream.fromEffect(Effect.tryPromise({
    try: async () => {
      const v = view.pages.flatMap((p) => p.visuals)[0]
      const title = v === undefined ? view.report.name : v.visual.title ?? v.visual.id
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}" viewBox="0 0 ${size.width} ${size.height}">` +
        `<rect width="100%" height="100%" fill="#ffffff"/>` +
        `<text x="40" y="56" font-family="${font}" font-size="28" font-weight="bold" fill="#111827">${escape(title)}</text>` +
        `<text x="40" y="86" font-family="${font}" font-size="16" fill="#6b7280">${escape(`${view.report.name} · ${options.generatedAt.toISOString()}`)}</text>` +
        (v === undefined ? "" : await body(v, 110)) +
        (options.watermark === null ? "" : watermark(options.watermark)) +
        `</svg>`
      const png = new Resvg(svg, { fitTo: { mode: "zoom", value: 2 }, font: { loadSystemFonts: true, defaultFontFamily: "DejaVu Sans" } }).render().asPng()
      return new Uint8Array(png.buffer, png.byteOffset, png.byteLength)
    },
    catch: (cause) => new DocumentRenderers.RenderError({ detail: "The image could not be drawn", cause })
  }))
