/**
 * The package's renderers, keyed by core's table of formats: one for each
 * format the table says a document renderer makes, and none for another
 * (the compiler checks the first through `DocumentRenderers.Complete`).
 */
import { ExportFormats } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import * as Documents from "../src/Documents.ts"

describe("Documents", () => {
  it("renders each document format of the table, and only those", () => {
    assert.deepStrictEqual(Object.keys(Documents.renderers).sort(), ExportFormats.which((f) => f.madeBy === "renderer").toSorted())
    for (const renderer of Object.values(Documents.renderers)) assert.isFunction(renderer)
  })
})
