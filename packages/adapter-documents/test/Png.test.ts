/**
 * The PNG renderer, decoded by another library (pngjs): a visual at twice
 * its size, its bars in the pixels, and the watermark in the pixels too.
 */
import { BlobStore, Branding, type Report, type ReportViews, type SemanticQuery } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { PNG } from "pngjs"
import * as Png from "../src/Png.ts"

const region: SemanticQuery.Column = { name: "region", member: "region", kind: "dimension", type: "string", title: "Region" }
const amount: SemanticQuery.Column = { name: "amount", member: "amount", kind: "measure", type: "number", title: "Amount" }

const bars: ReportViews.VisualView = {
  _tag: "Rows",
  visual: {
    id: "bars",
    type: "bar",
    title: "Sales by region",
    dataset_id: "0190c0de-0000-7000-8000-000000000001" as Report.Visual["dataset_id"],
    query: {},
    encoding: { x: "region", y: ["amount"] }
  },
  columns: [region, amount],
  rows: [{ region: "APAC", amount: 1395 }, { region: "EU", amount: 1335 }, { region: "US", amount: 1365 }]
}

const view = { report: { name: "Quarterly sales" }, pages: [{ name: "Overview", visuals: [bars] }] } as unknown as ReportViews.ReportView

/** The image decoded, and how many of its pixels match `test`. */
const decode = (bytes: Uint8Array) => {
  const png = PNG.sync.read(Buffer.from(bytes))
  const count = (test: (r: number, g: number, b: number) => boolean) => {
    let n = 0
    for (let i = 0; i < png.data.length; i += 4) if (test(png.data[i]!, png.data[i + 1]!, png.data[i + 2]!)) n++
    return n
  }
  return { width: png.width, height: png.height, count }
}

describe("PNG images", () => {
  it.effect("a visual at twice its size, with its bars, and the watermark drawn into the pixels", () =>
    Effect.gen(function*() {
      const plain = decode(yield* BlobStore.collect(Png.render(view, { watermark: null, filters: [], generatedAt: new Date(0), branding: Branding.defaults })))
      assert.deepStrictEqual([plain.width, plain.height], [Png.size.width * 2, Png.size.height * 2])
      // The theme's accent (the default primary colour, #2563eb): three bars cover a good part of the image.
      const barPixels = plain.count((r, g, b) => r === 0x25 && g === 0x63 && b === 0xeb)
      assert.isAbove(barPixels, 100_000)
      const marked = decode(yield* BlobStore.collect(Png.render(view, { watermark: "board@example.com", filters: [], generatedAt: new Date(0), branding: Branding.defaults })))
      // The watermark greys white pixels across the whole image.
      const white = (r: number, g: number, b: number) => r === 255 && g === 255 && b === 255
      assert.isAbove(plain.count(white) - marked.count(white), 20_000)
    }))
})
