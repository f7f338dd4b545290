/**
 * The console's list of export formats against core's table
 * (`ExportFormats`): the same formats in the same order, the same ones
 * naming a visual, and words in `en.ts` for each. The compiler holds the
 * browser's copy to the table's types; this test holds it to the values.
 */
import { ExportFormats, ExportJob } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { formats, formatWords, visualFormats } from "../src/client/Jobs.ts"
import { en } from "../src/i18n/en.ts"

describe("the console's export formats", () => {
  it("are the table's, in its order, and the same ones name a visual", () => {
    assert.deepStrictEqual(formats, ExportFormats.names)
    assert.deepStrictEqual([...visualFormats], [...ExportJob.singleVisualFormats])
  })

  it("each has its words, which start with the table's title", () => {
    for (const format of formats) {
      const words: string = en[formatWords(format)]
      assert.isString(words, format)
      assert.isTrue(words.startsWith(`${ExportFormats.formats[format].title}:`), `${format}: ${words}`)
    }
  })
})
