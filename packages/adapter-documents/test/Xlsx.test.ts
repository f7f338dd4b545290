/**
 * The Excel renderer, read back as raw OOXML (JSZip): sheet names within
 * Excel's 31 characters and unique, columns' titles as headers, measures
 * as numbers in their formats (also in the total row: SUM of summable
 * measures, an average over the whole), months as real
 * dates with a month format, quarters as their labels.
 */
import { Branding, BlobStore } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import JSZip from "jszip"
import * as SheetNames from "../src/SheetNames.ts"
import * as Xlsx from "../src/Xlsx.ts"
import * as Sample from "./sample.ts"

/** Excel's built-in number formats a writer may refer to by id instead of declaring them. */
const builtIn: Record<string, string> = { "0": "General", "1": "0", "2": "0.00", "3": "#,##0", "4": "#,##0.00", "9": "0%", "10": "0.00%" }

/** A workbook's sheets (names, rows of cells) and the number format each cell shows in. */
const read = async (bytes: Uint8Array) => {
  const zip = await JSZip.loadAsync(bytes)
  const text = (path: string) => zip.file(path)!.async("string")
  const names = [...(await text("xl/workbook.xml")).matchAll(/<sheet [^>]*name="([^"]+)"/g)].map((m) => m[1]!)
  const styles = await text("xl/styles.xml")
  const codes = new Map([...styles.matchAll(/<numFmt numFmtId="(\d+)" formatCode="([^"]*)"/g)].map((m) => [m[1]!, m[2]!.replace(/&quot;/g, "\"")]))
  const xfs = [...(/<cellXfs[^>]*>(.*?)<\/cellXfs>/s.exec(styles)?.[1] ?? "").matchAll(/<xf [^>]*?numFmtId="(\d+)"/g)].map((m) => m[1]!)
  const sheet = async (n: number) =>
    [...(await text(`xl/worksheets/sheet${n}.xml`)).matchAll(/<row [^>]*>(.*?)<\/row>/gs)].map((row) =>
      [...row[1]!.matchAll(/<c r="([A-Z]+)\d+"([^>]*?)(?:\/>|>(.*?)<\/c>)/gs)].map(([, column, attributes, body]) => {
        const style = /\ss="(\d+)"/.exec(attributes!)?.[1]
        const numFmtId = style === undefined ? "0" : xfs[Number(style)]
        return {
          column: column!,
          type: /\st="(\w+)"/.exec(attributes!)?.[1],
          value: /<v>([^<]*)<\/v>/.exec(body ?? "")?.[1] ?? /<t[^>]*>([^<]*)<\/t>/.exec(body ?? "")?.[1],
          formula: /<f>([^<]*)<\/f>/.exec(body ?? "")?.[1],
          format: codes.get(numFmtId ?? "0") ?? builtIn[numFmtId ?? "0"] ?? `built-in ${numFmtId}`
        }
      })
    )
  return { names, sheet }
}

describe("Excel workbooks", () => {
  it("sheet names: whole within 31 characters, else cut at a word with an ellipsis, and unique", () => {
    const name = SheetNames.namer()
    assert.strictEqual(name("Revenue by quarter and channel"), "Revenue by quarter and channel")
    const long = name("Revenue and average order by quarter, channel and region")
    assert.strictEqual(long, "Revenue and average order by…")
    assert.isAtMost([...long].length, 31)
    const again = name("Revenue and average order by quarter, channel and region")
    assert.strictEqual(again, "Revenue and average order… 2")
    assert.isAtMost([...again].length, 31)
    assert.strictEqual(name("a/b: c?"), "a b c")
    // unique regardless of case: the suffix makes it 32 characters, so it is cut
    assert.strictEqual(name("REVENUE BY QUARTER AND CHANNEL"), "REVENUE BY QUARTER AND… 2")
  })

  it.effect("titles as headers, measures in their formats, months as dates, quarters as labels, totals formatted", () =>
    Effect.gen(function*() {
      const view = Sample.view()
      const bytes = yield* BlobStore.collect(Xlsx.render(view, { watermark: null, filters: [], generatedAt: new Date(0), branding: Branding.defaults }))
      const { names, sheet } = yield* Effect.promise(() => read(bytes))
      // a cover, then a sheet per visual named by its title, in the report's order (every title fits in 31 characters)
      assert.deepStrictEqual(names, ["Report", ...Sample.visualTitles])
      for (const name of names) assert.isAtMost([...name].length, 31)
      // Products: the titles, numbers with their formats, a SUM total in the same formats.
      const products = yield* Effect.promise(() => sheet(6))
      assert.deepStrictEqual(products[0]!.map((c) => c.value), ["Product", "Orders", "Units", "Revenue", "Average order"])
      const addOn = products[1]!
      assert.strictEqual(addOn[0]!.value, "Add-on")
      assert.deepStrictEqual(addOn.slice(1).map((c) => c.format), ["#,##0", "#,##0", "\"€\"#,##0.00", "\"€\"#,##0.00"])
      assert.isUndefined(addOn[3]!.type, "revenue is a number")
      const total = products.at(-1)!
      assert.strictEqual(total[0]!.value, "Total")
      assert.strictEqual(total[3]!.formula, `SUM(D2:D${products.length - 1})`)
      assert.strictEqual(total[3]!.format, "\"€\"#,##0.00")
      // Average order (revenue / orders) is the measure over the whole, not the sum of the products' averages.
      const body = products.slice(1, -1)
      const revenue = body.reduce((sum, row) => sum + Number(row[3]!.value), 0)
      const orders = body.reduce((sum, row) => sum + Number(row[1]!.value), 0)
      assert.isUndefined(total[4]!.formula)
      assert.closeTo(Number(total[4]!.value), revenue / orders, 0.01)
      assert.isAbove(body.reduce((sum, row) => sum + Number(row[4]!.value), 0), 2 * Number(total[4]!.value), "the sum of averages is far off")
      assert.strictEqual(total[4]!.format, "\"€\"#,##0.00")
      // Revenue by month: the first month is the date 2025-01-01 (Excel's serial 45658) shown as a month.
      const months = yield* Effect.promise(() => sheet(4))
      assert.deepStrictEqual(months[0]!.map((c) => c.value), ["Order date: Month", "Revenue"])
      assert.deepStrictEqual([months[1]![0]!.value, months[1]![0]!.format, months[1]![0]!.type], ["45658", "mmm yyyy", undefined])
      // Revenue by quarter and channel: quarters as their labels.
      const quarters = yield* Effect.promise(() => sheet(7))
      const quarter = quarters[0]!.findIndex((c) => c.value === "Order date: Quarter")
      assert.isAtLeast(quarter, 0)
      assert.strictEqual(quarters[1]![quarter]!.value, "Q1 2025")
    }))
})
