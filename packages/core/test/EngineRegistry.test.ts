/**
 * Engines keyed by dataset source type: the table of source types says how
 * each holds its rows and where they are read from, and the deployment's
 * engines are built, and handed on, under the same keys; a type given no
 * engine has none.
 */
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { AnalyticsEngine } from "../src/datasets/AnalyticsEngine.ts"
import * as Dataset from "../src/datasets/Dataset.ts"
import * as Datasets from "../src/datasets/Datasets.ts"
import * as SqlDialect from "../src/datasets/SqlDialect.ts"
import { EngineScheduler } from "../src/limits/EngineScheduler.ts"

/** An engine that answers nothing, told apart by its dialect. */
const engine = (dialect: SqlDialect.DialectName): AnalyticsEngine["Service"] => ({
  dialect: SqlDialect.dialects[dialect],
  run: () => Effect.succeed([]),
  importFile: () => Effect.succeed({ columns: [], rowCount: 0 }),
  describe: () => Effect.succeed([]),
  drop: () => Effect.void
})

const built = (layers: Datasets.EngineLayers<never>) =>
  Effect.runSync(Effect.scoped(Effect.map(
    Layer.build(Datasets.Engines.layer(layers).pipe(Layer.provide(EngineScheduler.layer()))),
    (context) => Context.get(context, Datasets.Engines).bySource
  )))

describe("engines by source type", () => {
  it("each source type says how it holds its rows and the table they are read from", () => {
    assert.deepStrictEqual(Object.keys(Dataset.sourceTypes).sort(), ["postgres", "upload"])
    assert.isTrue(Dataset.readsInPlace({ type: "postgres", table: "orders" }))
    assert.isFalse(Dataset.readsInPlace({ type: "upload" }))
    const id = "0190c0de-0000-7000-8000-000000000001" as Dataset.DatasetId
    assert.deepStrictEqual(Dataset.tableOf({ dataset_id: id, load_id: null, source: { type: "postgres", schema: "sales", table: "orders" } }), ["sales", "orders"])
    assert.deepStrictEqual(Dataset.tableOf({ dataset_id: id, load_id: null, source: { type: "postgres", table: "orders" } }), ["public", "orders"])
    assert.deepStrictEqual(Dataset.tableOf({ dataset_id: id, load_id: null, source: { type: "upload" } }), ["dataset_0190c0de000070008000000000000001"])
  })

  it("the loaded source types name the engine tables their loads make, which the orphan sweep tells apart", () => {
    const loaded = Dataset.loadedSourceTypes()
    assert.deepStrictEqual(loaded.map(([type]) => type), ["upload"])
    const [, tables] = loaded[0]!
    const id = "0190c0de-0000-7000-8000-000000000001" as Dataset.DatasetId
    const load = "0190c0de-1234-7000-8000-000000000002"
    const [name] = Dataset.tableOf({ dataset_id: id, load_id: load, source: { type: "upload" } })
    assert.isTrue(name!.startsWith(tables.prefix))
    assert.isTrue(tables.isOwn(name!))
    assert.isTrue(tables.isOwn("dataset_0190c0de000070008000000000000001_staging"))
    assert.isFalse(tables.isOwn("dataset_orders"))
    // The load id is a UUIDv7: its first 48 bits are when the load began.
    assert.strictEqual(tables.startedAt(name!), 0x0190c0de1234)
    assert.isUndefined(tables.startedAt("dataset_0190c0de000070008000000000000001"))
  })

  it("the engines are built under the source type each serves, and none for a type not given", () => {
    const bySource = built({ postgres: Layer.succeed(AnalyticsEngine, engine("postgres")) })
    assert.deepStrictEqual(Object.keys(bySource), ["postgres"])
    assert.strictEqual(bySource.postgres?.dialect.name, "postgres")
    assert.isUndefined(bySource.upload)
    assert.deepStrictEqual(Object.keys(built({})), [])
  })

  it("engines already built are handed on as layers under the same keys", () => {
    const upload = engine("duckdb")
    const again = built(Datasets.Engines.layersOf({ upload, postgres: undefined }))
    assert.deepStrictEqual(Object.keys(again), ["upload"])
    assert.strictEqual(again.upload, upload)
  })
})
