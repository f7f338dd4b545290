/**
 * The console's dataset sources (packages/viewer/src/console/Sources.ts)
 * against core's table of source types (`Dataset.sourceTypes`): the same
 * types, a file sent exactly where the table's rows are `loaded`, the
 * datasets the console creates of a loaded type, and what each reads in
 * words. The compiler holds the browser's copy to the table's types; this
 * test holds it to the values.
 */
import { Dataset } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { createdSource, sourceWords, takesFiles } from "../src/console/Sources.ts"

/** A source of each type, as the API shows one. */
const samples: { readonly [T in Dataset.SourceType]: Extract<Dataset.DatasetSource, { readonly type: T }> } = {
  upload: { type: "upload" },
  postgres: { type: "postgres", schema: "sales", table: "orders" }
}

describe("the console's dataset sources", () => {
  it("take a file exactly where core's table loads rows, and the console creates datasets of a loaded type", () => {
    assert.deepStrictEqual(Object.keys(samples).sort(), Object.keys(Dataset.sourceTypes).sort())
    for (const source of Object.values(samples)) assert.strictEqual(takesFiles(source), !Dataset.readsInPlace(source), source.type)
    assert.isFalse(Dataset.readsInPlace(createdSource))
    assert.isTrue(takesFiles(createdSource))
  })

  it("say what a dataset reads", () => {
    assert.strictEqual(sourceWords(samples.upload), "An uploaded file (CSV or Parquet)")
    assert.strictEqual(sourceWords(samples.postgres), "The PostgreSQL table sales.orders")
    assert.strictEqual(sourceWords({ type: "postgres", table: "orders" }), "The PostgreSQL table orders")
  })
})
