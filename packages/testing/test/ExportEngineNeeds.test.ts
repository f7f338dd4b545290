/**
 * A format whose row of the export formats table names an engine writer
 * (`engine`: Parquet, written by DuckDB's own writer) is refused when asked
 * on a visual whose dataset's engine lacks it, and accepted where the
 * engine has it: `Exports.check` on the memory stores, engines given by hand.
 */
import { AnalyticsEngine, Dataset, DatasetStore, Datasets, DocumentRenderers, Exports, Report, ReportStore, SqlDialect, Tenant, Workspace } from "@analytics/core"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Stream } from "effect"

/** An engine that answers nothing; `parquet` when it has the writer. */
const engine = (withParquet: boolean): AnalyticsEngine.AnalyticsEngine["Service"] => ({
  dialect: SqlDialect.dialects.duckdb,
  run: () => Effect.succeed([]),
  importFile: () => Effect.succeed({ columns: [], rowCount: 0 }),
  describe: () => Effect.succeed([]),
  drop: () => Effect.void,
  ...(withParquet ? { parquet: () => Stream.empty } : {})
})

const tenantId = "0190c0de-0000-7000-8000-0000000000a1" as Tenant.TenantId
const workspaceId = "0190c0de-0000-7000-8000-0000000000a2" as Workspace.WorkspaceId
const datasetId = "0190c0de-0000-7000-8000-0000000000a3" as Dataset.DatasetId
const at = new Date("2026-01-01T00:00:00Z")

const dataset: Dataset.Dataset = {
  dataset_id: datasetId,
  tenant_id: tenantId,
  workspace_id: workspaceId,
  name: "Orders",
  description: null,
  source: { type: "upload" },
  model: { dimensions: [{ name: "region", type: "string" }], measures: [{ name: "orders", aggregation: "count" }] },
  columns: [{ name: "region", engineType: "VARCHAR", type: "string" }],
  row_count: 1,
  refreshed_at: at,
  refresh_cron: null,
  load_id: null,
  created_at: at,
  updated_at: at
}

const report: Report.Report = {
  report_id: "0190c0de-0000-7000-8000-0000000000a4" as Report.ReportId,
  tenant_id: tenantId,
  workspace_id: workspaceId,
  name: "Orders",
  description: null,
  pages: [{
    name: "Overview",
    visuals: [{ id: "by_region", type: "bar", dataset_id: datasetId, query: { measures: ["orders"], dimensions: ["region"] }, encoding: { x: "region", y: ["orders"] } }]
  }],
  filters: [],
  settings: { query_timeout_seconds: 30 },
  created_at: at,
  updated_at: at
}

/** `Exports.check` of a Parquet export of the visual, on an engine with or without the writer. */
const checked = (withParquet: boolean) =>
  Effect.gen(function*() {
    yield* (yield* DatasetStore.DatasetStore).insert(dataset)
    yield* (yield* ReportStore.ReportStore).insert(report)
    return yield* Effect.result(Exports.check(report, { format: "parquet", visual_id: "by_region" }))
  }).pipe(
    Effect.provide(Layer.mergeAll(
      MemoryStores.layer,
      DocumentRenderers.DocumentRenderers.none,
      Layer.succeed(Datasets.Engines, { bySource: { upload: engine(withParquet) } })
    ))
  )

describe("export formats that need an engine writer", () => {
  it.effect("Parquet on an engine without its writer is refused when asked, naming who writes it", () =>
    Effect.gen(function*() {
      const result = yield* checked(false)
      assert.isTrue(result._tag === "Failure")
      if (result._tag === "Failure") {
        assert.strictEqual(result.failure._tag, "ExportInvalid")
        assert.strictEqual((result.failure as Exports.ExportInvalid).detail, "format: parquet is written by the DuckDB engine; this visual's dataset is on another")
      }
    }))

  it.effect("Parquet on an engine with its writer passes the check", () =>
    Effect.gen(function*() {
      const result = yield* checked(true)
      assert.strictEqual(result._tag, "Success")
    }))
})
