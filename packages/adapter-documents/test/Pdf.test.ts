/**
 * The PDF renderer, read back by poppler: a cover page with the filters,
 * a page per report page, charts drawn as vectors with their labels as
 * text, a table, a key figure, a visual that could not be shown, and the
 * watermark drawn into every page; the demo report in the model's titles
 * and formats, its bars and slices counted in the pixels; and the
 * sentences that stand in for a visual with nothing to show.
 */
import { BlobStore, Branding, type Report, type ReportViews, type SemanticQuery } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Pdf from "../src/Pdf.ts"
import { Poppler, Raster } from "@analytics/testing/documents"
import { Theme } from "@analytics/charts"
import * as Sample from "./sample.ts"

const region: SemanticQuery.Column = { name: "region", member: "region", kind: "dimension", type: "string", title: "Region" }
const amount: SemanticQuery.Column = { name: "amount", member: "amount", kind: "measure", type: "number", title: "Amount" }

const visual = (id: string, type: Report.Visual["type"], encoding: Report.Visual["encoding"] = {}): Report.Visual => ({
  id,
  type,
  title: `The ${id}`,
  dataset_id: "0190c0de-0000-7000-8000-000000000001" as Report.Visual["dataset_id"],
  query: {},
  encoding
})

const byRegion = [{ region: "APAC", amount: 1395 }, { region: "EU", amount: 1335 }, { region: "US", amount: 1365 }]

const view: ReportViews.ReportView = {
  report: {
    report_id: "0190c0de-0000-7000-8000-000000000002" as Report.ReportId,
    tenant_id: "0190c0de-0000-7000-8000-000000000003" as Report.Report["tenant_id"],
    workspace_id: "0190c0de-0000-7000-8000-000000000004" as Report.Report["workspace_id"],
    name: "Quarterly sales",
    description: "Orders by region",
    pages: [],
    filters: [],
    settings: { query_timeout_seconds: 30 },
    created_at: new Date(0),
    updated_at: new Date(0)
  },
  pages: [
    {
      name: "Overview",
      visuals: [
        { _tag: "Rows", visual: visual("total", "kpi", { value: "amount" }), columns: [amount], rows: [{ amount: 4095 }] },
        { _tag: "Rows", visual: visual("bars", "bar", { x: "region", y: ["amount"] }), columns: [region, amount], rows: byRegion },
        { _tag: "Rows", visual: visual("slices", "pie", { category: "region", value: "amount" }), columns: [region, amount], rows: byRegion },
        { _tag: "Unavailable", visual: visual("slow", "line"), detail: "This visual took too long to load." }
      ]
    },
    {
      name: "Detail",
      visuals: [{ _tag: "Rows", visual: visual("grid", "table"), columns: [region, amount], rows: byRegion }]
    }
  ]
}

const suite = Poppler.available ? describe : describe.skip

suite(`PDF documents${Poppler.available ? "" : " (skipped: no pdftotext; apt-get install poppler-utils)"}`, () => {
  it.effect("a cover, a page per report page, vector charts with their labels, a table, the notice of a missing visual, the watermark on every page", () =>
    Effect.gen(function*() {
      const bytes = yield* BlobStore.collect(Pdf.render(view, { watermark: null, filters: ["region not equals \"US\""], generatedAt: new Date("2026-11-22T10:00:00Z"), branding: Branding.defaults }))
      const pdf = Poppler.read(bytes)
      assert.strictEqual(pdf.pages, 3)
      assert.strictEqual(pdf.title, "Quarterly sales")
      const pages = pdf.text.split("\f")
      assert.include(pages[0], "Quarterly sales")
      assert.include(pages[0], "region not equals \"US\"")
      assert.include(pages[0], "Generated Nov 22, 2026, 10:00 UTC")
      assert.include(pages[1], "Overview")
      assert.include(pages[1], "4,095")
      // The bar chart's axis labels are text in the page, not pixels.
      for (const label of ["APAC", "EU", "US", "The bars", "The slices"]) assert.include(pages[1], label)
      assert.include(pages[1], "This visual took too long to load.")
      assert.include(pages[2], "Detail")
      assert.match(pages[2]!, /EU\s+1,335/)
      assert.notInclude(pdf.text, "board@example.com")
      // With a watermark: tiled into every page as outlines, not text: it shows on each page, and text extraction
      // gives the report without it (decision 0014), the rest of the text still text.
      const at = new Date("2026-11-22T10:00:00Z")
      const plainBytes = yield* BlobStore.collect(Pdf.render(view, { watermark: null, filters: [], generatedAt: at, branding: Branding.defaults }))
      const markedBytes = yield* BlobStore.collect(Pdf.render(view, { watermark: "board@example.com", filters: [], generatedAt: at, branding: Branding.defaults }))
      const marked = Poppler.read(markedBytes)
      assert.strictEqual(marked.pages, 3)
      assert.notInclude(marked.text, "board@example.com")
      assert.notInclude(marked.text.replace(/\s+/g, ""), "board@example")
      assert.include(marked.text, "Filters: none")
      assert.include(marked.text, "4,095")
      assert.deepStrictEqual(marked.text.split("\f").slice(0, 3), Poppler.read(plainBytes).text.split("\f").slice(0, 3), "the same text as without it")
      if (Raster.available) {
        for (const n of [1, 2, 3]) {
          const changed = Raster.differing(Raster.page(markedBytes, n), Raster.page(plainBytes, n))
          assert.isAbove(changed, 5_000, `the watermark drawn over page ${n}`)
        }
        if (process.env.VIEWER_SHOTS !== undefined) Raster.pngFile(markedBytes, 2, `${process.env.VIEWER_SHOTS}/pdf-watermarked-page-2.png`)
      }
    }))

  it.effect("the demo report in the model's words: titles, formats, time labels; a bar per row and a colour per slice", () =>
    Effect.gen(function*() {
      const view = Sample.view()
      const bytes = yield* BlobStore.collect(Pdf.render(view, { watermark: null, filters: [], generatedAt: new Date("2026-11-26T09:30:12Z"), branding: Branding.defaults }))
      const pdf = Poppler.read(bytes)
      assert.strictEqual(pdf.pages, 5)
      const [, overview, trends, products, mix] = pdf.text.split("\f")
      // Axis titles are the model's, and values are in its formats.
      for (const text of ["Revenue", "Region", "€700,000"]) assert.include(overview, text)
      assert.match(overview!, /€\d{1,3}(,\d{3})*\.\d{2}/, "the key figure in euros with cents")
      for (const text of ["Order date: Month", "Jan 2025", "Channel", "Online"]) assert.include(trends, text)
      assert.match(products!, /Product\s+Orders\s+Units\s+Revenue\s+Average order/)
      assert.match(products!, /Add-on\s+[\d,]+\s+[\d,]+\s+€[\d,]+\.\d{2}\s+€[\d,]+\.\d{2}/)
      for (const text of ["Order date: Quarter", "Q1 2025", "Q4 2026", "Units", "Orders", "Product", "Support"]) assert.include(mix, text)
      // No column's name, no engine's time text.
      for (const raw of ["__", "00:00:00", "ordered_at", "average_order"]) assert.notInclude(pdf.text, raw)
      if (!Raster.available) return
      const { accent, palette } = Theme.theme()
      // The bar chart's bars: one area of the accent per region (the key figure's glyphs are far smaller).
      const regions = (view.pages[0]!.visuals[1] as Extract<ReportViews.VisualView, { _tag: "Rows" }>).rows.length
      assert.strictEqual(Raster.areas(Raster.page(bytes, 2, 72), accent, 1500).length, regions)
      // The pie's slices: a large area in each of the first three palette colours, one per channel.
      const page3 = Raster.page(bytes, 3, 72)
      assert.deepStrictEqual(palette.map((colour) => Raster.areas(page3, colour, 1500).length), [1, 1, 1, 0, 0, 0, 0, 0])
    }))

  it.effect("a key figure over no row and a chart over none say 'No rows match.'; an unavailable visual prints why", () =>
    Effect.gen(function*() {
      const empty: ReportViews.ReportView = {
        report: view.report,
        pages: [{
          name: "Empty",
          visuals: [
            { _tag: "Rows", visual: visual("nothing", "kpi", { value: "amount" }), columns: [amount], rows: [{ amount: null }] },
            { _tag: "Rows", visual: visual("none", "bar", { x: "region", y: ["amount"] }), columns: [region, amount], rows: [] },
            { _tag: "Unavailable", visual: visual("hidden", "table"), detail: "Nothing here is visible to you." }
          ]
        }]
      }
      const pdf = Poppler.read(yield* BlobStore.collect(Pdf.render(empty, { watermark: null, filters: [], generatedAt: new Date(0), branding: Branding.defaults })))
      const page = pdf.text.split("\f")[1]!
      assert.strictEqual(page.split("No rows match.").length - 1, 2)
      assert.include(page, "Nothing here is visible to you.")
      for (const title of ["The nothing", "The none", "The hidden"]) assert.include(page, title)
    }))
})
