/**
 * The PowerPoint renderer, read back as raw OOXML (JSZip): the demo
 * report's charts are native charts of the kinds the plan draws (a
 * stacked bar, a scatter, bars and a line in one plot area), with the
 * model's titles on their axes, labels written as the page writes them and
 * value axes in the measures' formats; a heatmap is a shaded table.
 */
import { Branding, BlobStore } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import JSZip from "jszip"
import * as Pptx from "../src/Pptx.ts"
import * as Sample from "./sample.ts"

const read = async (bytes: Uint8Array) => {
  const zip = await JSZip.loadAsync(bytes)
  const files = (pattern: RegExp) =>
    Promise.all(Object.keys(zip.files).filter((f) => pattern.test(f)).sort((a, b) => Number(/(\d+)\.xml$/.exec(a)![1]) - Number(/(\d+)\.xml$/.exec(b)![1])).map((f) => zip.file(f)!.async("string")))
  return { slides: await files(/^ppt\/slides\/slide\d+\.xml$/), charts: await files(/^ppt\/charts\/chart\d+\.xml$/) }
}

describe("PowerPoint decks", () => {
  it.effect("native charts from the plan: kinds, axis titles, labels and formats in the model's words", () =>
    Effect.gen(function*() {
      const bytes = yield* BlobStore.collect(Pptx.render(Sample.view(), { watermark: null, filters: [], generatedAt: new Date("2026-11-26T09:30:12Z"), branding: Branding.defaults }))
      const { slides, charts } = yield* Effect.promise(() => read(bytes))
      assert.strictEqual(slides.length, 10)
      const chart = (test: (xml: string) => boolean, what: string) => {
        const found = charts.find(test)
        assert.isDefined(found, what)
        return found!
      }
      // The key figure in euros with cents, and its measure's title.
      assert.match(slides[1]!, /€\d{1,3}(,\d{3})*\.\d{2}/)
      // Bars by region: axis titles, the regions, the value axis in euros.
      const bars = chart((c) => c.includes("<c:barChart>") && !c.includes("<c:lineChart>") && c.includes("<c:v>LATAM</c:v>"), "the bar chart")
      assert.include(bars, `<c:grouping val="clustered"/>`)
      for (const title of ["<a:t>Region</a:t>", "<a:t>Revenue</a:t>"]) assert.include(bars, title)
      assert.match(bars, /formatCode="&quot;€&quot;#,##0"/)
      // The line by month: months as the page writes them, never the engine's text.
      const line = chart((c) => c.includes("<c:lineChart>") && !c.includes("<c:barChart>"), "the line chart")
      assert.include(line, "<c:v>Jan 2025</c:v>")
      assert.include(line, "<a:t>Order date: Month</a:t>")
      // The stacked bar: a series per channel, stacked, quarters as labels.
      const stacked = chart((c) => c.includes(`<c:grouping val="stacked"/>`) && c.includes("<c:barChart>"), "the stacked bar chart")
      for (const text of ["<c:v>Q1 2025</c:v>", "<c:v>Online</c:v>", "<a:t>Order date: Quarter</a:t>"]) assert.include(stacked, text)
      // The combo: bars and a line in one plot area, orders on a second value axis.
      const combo = chart((c) => c.includes("<c:barChart>") && c.includes("<c:lineChart>"), "the combo chart")
      assert.strictEqual(combo.split("<c:plotArea>").length - 1, 1)
      assert.strictEqual(combo.split("<c:valAx>").length - 1, 2)
      assert.include(combo, "<a:t>Orders</a:t>")
      // The scatter: units against revenue, a series per product.
      const scatter = chart((c) => c.includes("<c:scatterChart>"), "the scatter plot")
      for (const text of ["<a:t>Units</a:t>", "<a:t>Revenue</a:t>", "<c:v>Support</c:v>"]) assert.include(scatter, text)
      // The pie: a slice per channel.
      const pie = chart((c) => c.includes("<c:pieChart>"), "the pie chart")
      for (const channel of ["Online", "Partner", "Direct"]) assert.include(pie, `<c:v>${channel}</c:v>`)
      // The heatmap: a table, its cells shaded and holding the orders as text.
      const heatmap = slides.find((s) => s.includes("Orders by month and region"))!
      assert.include(heatmap, "<a:tbl>")
      assert.include(heatmap, "Jan 2025")
      assert.isAbove(heatmap.split("<a:solidFill>").length, 24 * 4)
      // The products table: titles, values in their formats.
      const table = slides.find((s) => s.includes("Products · Products"))!
      for (const text of ["Average order", "Add-on"]) assert.include(table, text)
      assert.match(table, /€\d{1,3}(,\d{3})*\.\d{2}/)
      for (const xml of [...slides, ...charts]) {
        for (const raw of ["ordered_at", "00:00:00", "average_order"]) assert.notInclude(xml, raw)
      }
    }))
})
