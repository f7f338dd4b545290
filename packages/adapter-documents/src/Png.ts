/**
 * A visual as a PNG image (decision 0015): drawn as SVG (its title, its
 * chart from the same Vega-Lite spec the share page draws, its table or key
 * figure in its measures' formats, or the sentence that stands in its
 * place; the watermark as one rotated pattern tiled over everything) and
 * rasterised by resvg at twice its size in DejaVu Sans, so it stays sharp
 * on dense screens and in slides. The watermark is in the pixels: nothing
 * removes it.
 *
 * @since 0.1.0
 */
import type { Branding, ReportViews } from "@analytics/core"
import { DocumentRenderers } from "@analytics/core"
import { Resvg } from "@resvg/resvg-js"
import { Effect, Stream } from "effect"
import * as Fonts from "./Fonts.ts"
import * as Visuals from "./Visuals.ts"
import { escape } from "./Xml.ts"

/** The image's size before the 2x density. */
export const size = { width: 1366, height: 768 } as const

const font = `${Fonts.family}, sans-serif`
const colours = { text: "#111827", muted: "#4b5563", border: "#d1d5db" } as const
const margin = 40
/** How much larger than Vega's own sizes a chart's text and marks are drawn, so an axis label reads like the title's subtitle. */
const chartScale = 1.6

/** A table's first rows as text: titles in bold over a rule, numbers right-aligned. */
const table = (t: Visuals.Table, top: number, width: number, height: number) => {
  const lineHeight = 30
  const fits = Math.max(1, Math.floor(height / lineHeight) - 1)
  const shown = t.cells.length > fits ? fits - 1 : t.cells.length
  // widths by characters: a fair guess of DejaVu Sans's widths at one size
  const natural = t.columns.map(({ title }, i) => Math.max(title.length, ...t.cells.slice(0, shown).map((row) => (row[i] ?? "").length)) + 3)
  const sum = natural.reduce((a, b) => a + b, 0)
  const widths = natural.map((n) => (n * width) / sum)
  const lefts = widths.map((_, i) => margin + widths.slice(0, i).reduce((a, b) => a + b, 0))
  const cell = (text: string, i: number, y: number, numeric: boolean) =>
    numeric
      ? `<text x="${lefts[i]! + widths[i]! - 8}" y="${y}" text-anchor="end">${escape(text)}</text>`
      : `<text x="${lefts[i]! + 8}" y="${y}">${escape(text)}</text>`
  const lines = [
    `<g font-weight="bold">${t.columns.map(({ numeric, title }, i) => cell(title, i, top + 22, numeric)).join("")}</g>`,
    `<line x1="${margin}" x2="${margin + width}" y1="${top + 32}" y2="${top + 32}" stroke="${colours.border}"/>`,
    ...t.cells.slice(0, shown).map((row, r) => row.map((text, i) => cell(text, i, top + 22 + (r + 1) * lineHeight + 4, t.columns[i]!.numeric)).join("")),
    t.cells.length > shown ? `<text x="${margin + 8}" y="${top + 22 + (shown + 1) * lineHeight + 4}" font-style="italic" fill="${colours.muted}">${escape(`The first ${shown} of ${t.cells.length} rows.`)}</text>` : ""
  ]
  return `<g font-family="${font}" font-size="18" fill="${colours.text}">${lines.join("")}</g>`
}

/** The body of a visual under its title: its chart, its key figure, its table, or its sentence. */
const body = async (v: ReportViews.VisualView, branding: Branding.Branding, top: number) => {
  const width = size.width - 2 * margin
  const height = size.height - top - margin
  const shown = Visuals.shown(v, branding)
  switch (shown._tag) {
    case "Notice":
      return `<text x="${size.width / 2}" y="${top + height / 2}" text-anchor="middle" font-family="${font}" font-size="22" font-style="italic" fill="${colours.muted}">${escape(shown.text)}</text>`
    case "Figure":
      return `<text x="${size.width / 2}" y="${top + height / 2}" text-anchor="middle" font-family="${font}" font-size="96" font-weight="bold" fill="${shown.plan.theme.accent}">${escape(shown.text)}</text>` +
        `<text x="${size.width / 2}" y="${top + height / 2 + 56}" text-anchor="middle" font-family="${font}" font-size="24" fill="${colours.muted}">${escape(shown.plan.value.title)}</text>`
    case "Table":
      return table(shown.table, top, width, height)
    case "Chart": {
      // drawn smaller and scaled up to its box (its viewBox keeps the drawing's units), so its labels read at the image's scale
      const svg = await Visuals.chartSvg(shown.plan, shown.rows, width / chartScale, height / chartScale)
      return svg.replace(/^<svg([^>]*?) width="[\d.]+" height="[\d.]+"/, `<svg$1 x="${margin}" y="${top}" width="${width}" height="${height}"`)
    }
  }
}

/** The watermark: `text` in one rotated pattern tile, repeated over the whole image. */
const watermark = (text: string) =>
  `<defs><pattern id="watermark" width="420" height="200" patternUnits="userSpaceOnUse" patternTransform="rotate(-30)">` +
  `<text x="10" y="100" font-family="${font}" font-size="22" fill="${colours.text}" fill-opacity="0.14">${escape(text)}</text></pattern></defs>` +
  `<rect width="100%" height="100%" fill="url(#watermark)"/>`

/** The png renderer: the first visual of the view (an export names one). */
export const render: DocumentRenderers.Renderer = (view, options) =>
  Stream.fromEffect(Effect.tryPromise({
    try: async () => {
      const v = view.pages.flatMap((p) => p.visuals)[0]
      const title = v === undefined ? view.report.name : Visuals.titleOf(v)
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${size.width}" height="${size.height}" viewBox="0 0 ${size.width} ${size.height}">` +
        `<rect width="100%" height="100%" fill="#ffffff"/>` +
        `<text x="${margin}" y="56" font-family="${font}" font-size="28" font-weight="bold" fill="${colours.text}">${escape(title)}</text>` +
        `<text x="${margin}" y="86" font-family="${font}" font-size="16" fill="${colours.muted}">${escape(`${view.report.name} · ${Visuals.generatedText(options.generatedAt, options.branding.locale)}`)}</text>` +
        (v === undefined ? "" : await body(v, options.branding, 110)) +
        (options.watermark === null ? "" : watermark(options.watermark)) +
        `</svg>`
      const png = new Resvg(svg, { fitTo: { mode: "zoom", value: 2 }, font: { loadSystemFonts: true, defaultFontFamily: Fonts.family } }).render().asPng()
      return new Uint8Array(png.buffer, png.byteOffset, png.byteLength)
    },
    catch: (cause) => new DocumentRenderers.RenderError({ detail: "The image could not be drawn", cause })
  }))
