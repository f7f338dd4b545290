/**
 * The table of export formats and what derives from it: the request's
 * schema takes exactly the table's formats, the single-visual and
 * watermarked sets and the formats a deployment produces follow its rows,
 * and words list names as a sentence does.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema, Stream } from "effect"
import * as DocumentRenderers from "../src/exports/DocumentRenderers.ts"
import * as ExportFormats from "../src/exports/ExportFormats.ts"
import * as ExportJob from "../src/exports/ExportJob.ts"
import * as Exports from "../src/exports/Exports.ts"

const renderer: DocumentRenderers.Renderer = () => Stream.empty

const available = (renderers: Partial<DocumentRenderers.Complete>) =>
  Effect.runSync(Exports.availableFormats.pipe(Effect.provide(Layer.succeed(DocumentRenderers.DocumentRenderers, renderers))))

describe("ExportFormats", () => {
  it("the request's format is exactly one of the table's, in its order", () => {
    assert.deepStrictEqual(ExportFormats.names, ["pdf", "xlsx", "pptx", "csv", "json", "parquet", "png", "sql"])
    for (const name of ExportFormats.names) assert.isTrue(Schema.is(ExportJob.Format)(name), name)
    for (const other of ["docx", "PDF", "toString", ""]) {
      assert.isFalse(Schema.is(ExportJob.Format)(other), other)
      assert.isFalse(ExportFormats.isFormat(other), other)
    }
  })

  it("each row's kind decides which formats name a visual, carry a watermark and need a renderer", () => {
    assert.deepStrictEqual([...ExportJob.singleVisualFormats], ["csv", "json", "parquet", "png", "sql"])
    assert.deepStrictEqual([...ExportJob.watermarkedFormats], ["pdf", "png"])
    assert.deepStrictEqual(ExportFormats.which((f) => f.madeBy === "renderer"), ["pdf", "xlsx", "pptx", "png"])
    assert.isTrue(ExportFormats.isDocumentFormat("png"))
    assert.isFalse(ExportFormats.isDocumentFormat("csv"))
    assert.isFalse(ExportFormats.isDocumentFormat("constructor"))
    assert.isTrue(DocumentRenderers.printsTotals("xlsx"))
    assert.isFalse(DocumentRenderers.printsTotals("pdf"))
  })

  it("a row names the engine writer its format needs (Exports.check refuses it on an engine without one)", () => {
    assert.deepStrictEqual(ExportFormats.which((f) => f.engine !== undefined), ["parquet"])
    assert.deepStrictEqual(ExportFormats.formats.parquet.engine, { writer: "parquet", by: "the DuckDB engine" })
  })

  it("every row names a media type and an extension of its own", () => {
    const rows = ExportFormats.names.map((name) => ExportFormats.formats[name])
    assert.strictEqual(new Set(rows.map((r) => r.extension)).size, rows.length)
    assert.strictEqual(new Set(rows.map((r) => r.mediaType)).size, rows.length)
    assert.strictEqual(ExportFormats.formats.xlsx.mediaType, "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
    for (const row of rows) assert.match(row.mediaType, /^[a-z]+\/[a-z0-9.+-]+(; charset=utf-8)?$/)
  })

  it("a deployment produces core's formats, and the document formats it has a renderer of", () => {
    assert.deepStrictEqual([...available({})], ["csv", "json", "parquet", "sql"])
    assert.deepStrictEqual([...available({ png: renderer })], ["csv", "json", "parquet", "png", "sql"])
    assert.deepStrictEqual([...available({ pdf: renderer, xlsx: renderer, pptx: renderer, png: renderer })], [...ExportFormats.names])
  })

  it("lists names as a sentence does", () => {
    assert.strictEqual(ExportFormats.listed([]), "")
    assert.strictEqual(ExportFormats.listed(["pdf"], "or"), "pdf")
    assert.strictEqual(ExportFormats.listed(["pdf", "png"], "or"), "pdf or png")
    assert.strictEqual(ExportFormats.listed(["csv", "json", "sql"]), "csv, json and sql")
  })
})
