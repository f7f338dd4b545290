/**
 * The engine tables of upload datasets (decision 0013), on a real DuckDB file
 * and the in-memory store: each load imports into a table of its own and
 * the record's switch makes it current (the previous table dropped after);
 * a load refused leaves no table; the sweep at start drops tables no record
 * names (a load a crash cut short, a deleted dataset's rows, the staging
 * tables of earlier versions) and keeps the live ones, including a table
 * named by the dataset alone from before loads had tables of their own.
 */
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { MemoryStores } from "@analytics/adapter-memory"
import { AnalyticsEngine, AuditLog, type Dataset, Datasets, DatasetStore, EventPublisher } from "@analytics/core"
import { insertTenant, insertWorkspace } from "@analytics/testing"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const dir = mkdtempSync(join(tmpdir(), "analytics-dataset-tables-"))
const csv = (name: string, rows: number, header = "id,region,amount") => {
  const path = join(dir, `${name}.csv`)
  writeFileSync(path, [header, ...Array.from({ length: rows }, (_, i) => `${i},EU,${i % 10}`)].join("\n"))
  return { path, format: "csv" as const }
}
const compact = (id: string) => id.replaceAll("-", "")
const security = { roles: [], attributes: {} }

/** A DuckDB file of its own, the stores in memory, events to the memory outbox. */
const setup = Effect.gen(function*() {
  const engine = yield* DuckDbEngine.make(join(dir, `${crypto.randomUUID()}.duckdb`))
  const stores = yield* Layer.build(MemoryStores.layer)
  const context = Context.merge(stores, Context.make(Datasets.Engines, { bySource: { upload: engine } }))
  const publisher = yield* Layer.build(EventPublisher.EventPublisher.layer.pipe(Layer.provide(Layer.succeedContext(stores))))
  const run = <A, E>(effect: Effect.Effect<A, E, any>) =>
    effect.pipe(Effect.provideContext(Context.merge(context, publisher))) as Effect.Effect<A, E>
  const tenant = yield* run(insertTenant())
  const workspace = yield* run(insertWorkspace(tenant.tenant_id, "Uploads", new Date()))
  const newDataset = (name: string) =>
    run(Datasets.create(tenant.tenant_id, { workspace_id: workspace.workspace_id, name, source: { type: "upload" } }, AuditLog.system))
  const tables = engine.listTables!("")
  const count = (dataset: Dataset.Dataset) =>
    Effect.map(run(Datasets.query(tenant.tenant_id, dataset.dataset_id, { measures: ["count"] }, security)), ({ rows }) => rows[0]?.["count"])
  return { engine, run, tenant, newDataset, tables, count }
})

describe("upload datasets' engine tables", () => {
  it.live("each load has a table of its own, switched by the record; the previous is dropped, a refused load leaves none", () =>
    Effect.gen(function*() {
      const { count, newDataset, run, tables, tenant } = yield* setup
      const orders = yield* newDataset("Orders")
      const first = yield* run(Datasets.load(tenant.tenant_id, orders.dataset_id, csv("three", 3)))
      assert.isNotNull(first.load_id)
      assert.deepStrictEqual(yield* tables, [`dataset_${compact(orders.dataset_id)}_${compact(first.load_id!)}`])
      const second = yield* run(Datasets.load(tenant.tenant_id, orders.dataset_id, csv("five", 5)))
      assert.notStrictEqual(second.load_id, first.load_id)
      assert.deepStrictEqual(yield* tables, [`dataset_${compact(orders.dataset_id)}_${compact(second.load_id!)}`])
      assert.strictEqual(yield* count(second), 5)
      // A file whose columns no longer fit the model: refused, the record and its rows as they were, no table left.
      const refused = yield* Effect.flip(run(Datasets.load(tenant.tenant_id, orders.dataset_id, csv("other", 2, "id,country"))))
      assert.strictEqual(refused._tag, "ModelInvalid")
      assert.deepStrictEqual(yield* tables, [`dataset_${compact(orders.dataset_id)}_${compact(second.load_id!)}`])
      assert.deepStrictEqual(yield* run(Datasets.get(tenant.tenant_id, orders.dataset_id)), second)
      // A file the engine cannot read: refused, no table left.
      const unreadable = yield* Effect.flip(run(Datasets.load(tenant.tenant_id, orders.dataset_id, { path: join(dir, "missing.csv"), format: "csv" })))
      assert.strictEqual(unreadable._tag, "SourceInvalid")
      assert.strictEqual((yield* tables).length, 1)
      // Deleting the dataset drops its current table.
      yield* run(Datasets.remove(tenant.tenant_id, orders.dataset_id, AuditLog.system))
      assert.deepStrictEqual(yield* tables, [])
    }).pipe(Effect.scoped))

  it.live("the sweep drops the tables no record names and keeps the live ones, an old dataset's table named by it alone too", () =>
    Effect.gen(function*() {
      const { count, engine, newDataset, run, tables, tenant } = yield* setup
      const live = yield* run(Datasets.load(tenant.tenant_id, (yield* newDataset("Live")).dataset_id, csv("four", 4)))
      // Loaded before loads had tables of their own: its rows are in `dataset_<id>`, its record names no load.
      const old = yield* newDataset("Old")
      yield* engine.importFile([`dataset_${compact(old.dataset_id)}`], csv("six", 6))
      const oldLoaded = { ...old, columns: live.columns, model: live.model, row_count: 6, refreshed_at: new Date() }
      assert.isTrue(yield* run(Effect.flatMap(DatasetStore.DatasetStore, (store) => store.switchLoad(oldLoaded, null))))
      assert.strictEqual(yield* count(oldLoaded), 6)
      // Orphans: a load of a live dataset that never switched, an earlier version's staging table, a deleted dataset's rows.
      const orphans = [
        `dataset_${compact(live.dataset_id)}_${compact(crypto.randomUUID())}`,
        `dataset_${compact(old.dataset_id)}_staging`,
        `dataset_${compact(crypto.randomUUID())}`
      ]
      for (const name of orphans) yield* engine.importFile([name], csv("one", 1))
      // Tables uploads do not make are not the sweep's.
      yield* engine.importFile(["dataset_notes"], csv("one", 1))
      yield* engine.importFile(["customers"], csv("one", 1))

      const dropped = yield* run(Datasets.sweepOrphanTables)
      assert.deepStrictEqual([...dropped].sort(), [...orphans].sort())
      assert.deepStrictEqual(
        [...(yield* tables)].sort(),
        ["customers", "dataset_notes", `dataset_${compact(live.dataset_id)}_${compact(live.load_id!)}`, `dataset_${compact(old.dataset_id)}`].sort()
      )
      assert.strictEqual(yield* count(live), 4)
      assert.strictEqual(yield* count(oldLoaded), 6)
      assert.deepStrictEqual(yield* run(Datasets.sweepOrphanTables), [])

      // The old dataset's next load moves it to a table of its own and drops the old one.
      const reloaded = yield* run(Datasets.load(tenant.tenant_id, old.dataset_id, csv("two", 2)))
      assert.isFalse((yield* tables).includes(`dataset_${compact(old.dataset_id)}`))
      assert.strictEqual(yield* count(reloaded), 2)
    }).pipe(Effect.scoped))

  it.live("an engine without tables of its own has nothing to sweep", () =>
    Effect.gen(function*() {
      const { engine, run } = yield* setup
      const withoutList = AnalyticsEngine.AnalyticsEngine.of({ ...engine, listTables: undefined })
      const swept = yield* run(Datasets.sweepOrphanTables.pipe(Effect.provideService(Datasets.Engines, { bySource: { upload: withoutList } })))
      assert.deepStrictEqual(swept, [])
    }).pipe(Effect.scoped))
})

process.on("exit", () => rmSync(dir, { recursive: true, force: true }))
