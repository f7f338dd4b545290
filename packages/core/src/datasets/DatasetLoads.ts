/**
 * An upload dataset's rows (decision 0013): a file loaded into a table of
 * its own and the record switched to it at once, and the sweep of the
 * tables no record names.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import { type NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import { Transactor } from "../platform/Transactor.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { AnalyticsEngine, EngineError, FileImport } from "./AnalyticsEngine.ts"
import { type Dataset, loadedSourceTypes, type OwnTables, readsInPlace, tableOf } from "./Dataset.ts"
import { engineFor, Engines, type EngineUnavailable, inTurn } from "./DatasetEngines.ts"
import { checked, get, SourceInvalid } from "./DatasetRecords.ts"
import type * as DatasetRefresh from "./DatasetRefresh.ts"
import { refreshing } from "./DatasetRefreshes.ts"
import { DatasetStore } from "./DatasetStore.ts"
import * as SemanticModel from "./SemanticModel.ts"

/** Files are uploaded to upload datasets only (a PostgreSQL dataset reads its table in place). */
export class NotUploadable extends TaggedFailure("NotUploadable")<{
  readonly datasetId: string
}> {
  readonly code = "dataset/not-uploadable" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `Dataset ${this.datasetId} reads a PostgreSQL table in place; it takes no file`
  }
}

/**
 * What a load does with the model: `keep` it (refused, the old rows
 * staying, when it does not fit the file's columns), or replace it with
 * the one `suggested` from the file's columns, keeping its row-level
 * security policies (decision 0013, "Recovering from a file that does not fit").
 */
export type ModelChoice = "keep" | "suggested"

/**
 * Loads an upload dataset's rows from a file, replacing the previous ones
 * atomically. The columns are recorded; a model that no longer fits them
 * is refused (the old rows stay) naming every mismatch, unless `model` is
 * `suggested`; an empty model gets a suggested one.
 *
 * Each load imports into a table of its own, once; the store's switch of
 * the record to it is the one commit that makes the rows current (a crash
 * before it leaves an orphan table, which `sweepOrphanTables` drops), and
 * the previous load's table is dropped after it.
 */
export const load = (
  tenantId: TenantId,
  datasetId: string,
  file: FileImport,
  origin: DatasetRefresh.Origin = { trigger: "upload", requested_by: null },
  model: ModelChoice = "keep"
): Effect.Effect<
  Dataset,
  NotFound | NotUploadable | EngineUnavailable | SourceInvalid | SemanticModel.ModelInvalid | StoreError,
  DatasetStore | Engines | AuditLog.Recording
> =>
  Effect.gen(function*() {
    const dataset = yield* get(tenantId, datasetId)
    if (readsInPlace(dataset.source)) return yield* new NotUploadable({ datasetId })
    const engine = yield* engineFor(dataset.source)
    return yield* refreshing(dataset, origin, (loadId) => loadFile(dataset, engine, file, loadId, origin.requested_by ?? AuditLog.system, model))
  })

/** Drops a table, logging a failure (the sweep at the next start takes what is left). */
const dropQuietly = (engine: AnalyticsEngine["Service"], table: ReadonlyArray<string>, why: string) =>
  engine.drop(table).pipe(Effect.catchTag("EngineError", (error) => Effect.logWarning(`Could not drop ${why}`, table.join("."), error.detail)))

/** Imports a file into a new table of the load, then switches the dataset's record to it. */
const loadFile = (dataset: Dataset, engine: AnalyticsEngine["Service"], file: FileImport, loadId: string, by: AuditLog.Actor, model: ModelChoice) =>
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const table = tableOf({ ...dataset, load_id: loadId })
      // Until the switch no record names the table: a load that goes no further drops it.
      // Imports take turns with queries (no deadline: an upload waits for its turn).
      const imported = yield* restore(inTurn(dataset.tenant_id)(engine.importFile(table, file))).pipe(
        Effect.onInterrupt(() => dropQuietly(engine, table, "an interrupted load's table")),
        Effect.catchTag("EngineError", (error) =>
          Effect.andThen(
            dropQuietly(engine, table, "a failed load's table"),
            Effect.fail(new SourceInvalid({ detail: `The file could not be read: ${error.detail}` }))
          ))
      )
      // The switch is not interrupted half way; a StoreError may hide a committed switch, so its table is left to the sweep.
      return yield* switchLoad(dataset, engine, loadId, imported, { by, file, model }).pipe(
        Effect.tapError((error) => error._tag === "StoreError" ? Effect.void : dropQuietly(engine, table, "a refused load's table"))
      )
    })
  )

/**
 * Points the dataset's record at a load's table (its model checked against
 * the new columns, or suggested from them when empty), then drops the
 * previous load's table. Another load that switched first is read and
 * replaced: the last load to finish wins, and no table is left behind.
 * The switch of an upload (`uploaded`) writes its `dataset.data_uploaded`
 * entry with it: how many rows and bytes, never a row.
 */
const switchLoad = (
  dataset: Dataset,
  engine: AnalyticsEngine["Service"],
  loadId: string,
  imported: { readonly columns: Dataset["columns"]; readonly rowCount: number },
  uploaded?: { readonly by: AuditLog.Actor; readonly file: FileImport; readonly model: ModelChoice }
): Effect.Effect<Dataset, NotFound | SemanticModel.ModelInvalid | StoreError, DatasetStore | AuditLog.Recording> =>
  Effect.gen(function*() {
    const store = yield* DatasetStore
    while (true) {
      const current = yield* get(dataset.tenant_id, dataset.dataset_id)
      const empty = current.model.dimensions.length === 0 && current.model.measures.length === 0
      const replaced = uploaded?.model === "suggested" && !empty
      const model = empty
        ? SemanticModel.suggest(imported.columns)
        : replaced
        ? SemanticModel.suggestKeepingPolicies(current.model, imported.columns)
        : current.model
      if (model instanceof SemanticModel.ModelInvalid) return yield* model
      yield* checked(model, imported.columns).pipe(Effect.mapError(fileMismatch))
      const now = new Date(yield* Clock.currentTimeMillis)
      const loaded: Dataset = {
        ...current,
        model,
        columns: imported.columns,
        row_count: imported.rowCount,
        refreshed_at: now,
        updated_at: now,
        load_id: loadId
      }
      const switched = yield* (yield* Transactor).transaction(Effect.gen(function*() {
        const done = yield* store.switchLoad(loaded, current.load_id)
        if (done && uploaded !== undefined) {
          yield* AuditLog.record(dataset.tenant_id, {
            workspace_id: loaded.workspace_id,
            action: "dataset.data_uploaded",
            actor: uploaded.by,
            target: { type: "dataset", id: loaded.dataset_id },
            detail: {
              dataset_id: loaded.dataset_id,
              name: loaded.name,
              format: uploaded.file.format,
              bytes: uploaded.file.bytes ?? null,
              row_count: imported.rowCount,
              columns: imported.columns.map((c) => c.name),
              load_id: loadId,
              // The model replaced by the suggested one is said, with what it was: the entry is how it can be undone.
              ...(replaced ? { model_replaced: true, previous_model: current.model } : {})
            }
          })
        }
        return done
      }))
      if (switched) {
        if (current.refreshed_at !== null) yield* dropQuietly(engine, tableOf(current), "a replaced load's table")
        return loaded
      }
    }
  })

/** A model that does not fit a file's columns, said for the file: what does not fit, the columns it has, and what to do. */
const fileMismatch = (invalid: SemanticModel.ModelInvalid): SemanticModel.ModelInvalid => {
  if (invalid.mismatches === undefined || invalid.mismatches.length === 0) return invalid
  const mismatches = invalid.mismatches.map((m) => ({ ...m, message: m.message.replace("which the rows do not have", "which the file does not have") }))
  const columns = (invalid.fileColumns ?? []).map((n) => `"${n}"`).join(", ")
  return new SemanticModel.ModelInvalid({
    detail: `The file's columns do not fit the model, so no row was changed: ${mismatches.map((m) => m.message).join("; ")}. ` +
      `The file has the columns ${columns}. Upload it again replacing the model with one suggested from its columns (?model=suggested), or change the model first`,
    mismatches,
    ...(invalid.fileColumns === undefined ? {} : { fileColumns: invalid.fileColumns })
  })
}

/**
 * How old a load's table must be before the sweep drops it as an orphan on
 * an engine shared by several hosts (`AnalyticsEngine.shared`): a load
 * commits its table and then switches its record to it, and another host
 * starting in between must not take it for an orphan.
 */
export const sharedOrphanAge = Duration.hours(1)

/**
 * Drops the engine tables of loaded sources (`Dataset.sourceTypes` whose
 * rows are `loaded`: uploads) that no record names: the table of a load
 * the host died in before switching to it, of a dataset whose rows could
 * not be dropped when it was deleted, the staging tables of earlier
 * versions. Run at start, before any load of this process can begin (a
 * load in flight has a table no record names yet); on an engine other hosts
 * load into too, tables of loads begun within `sharedOrphanAge` are left
 * for a later sweep. A failed drop is logged. Returns the names of the
 * tables dropped.
 */
export const sweepOrphanTables: Effect.Effect<ReadonlyArray<string>, StoreError | EngineError, DatasetStore | Engines> = Effect.gen(function*() {
  const { bySource } = yield* Engines
  // Each loaded source type whose engine can list its tables, with the tables it has.
  const found: Array<{ readonly engine: AnalyticsEngine["Service"]; readonly own: OwnTables; readonly tables: ReadonlyArray<string> }> = []
  for (const [type, own] of loadedSourceTypes()) {
    const engine = bySource[type]
    if (engine?.listTables !== undefined) found.push({ engine, own, tables: yield* engine.listTables(own.prefix) })
  }
  if (found.length === 0) return []
  // The records are read after the tables: a load switching in between names a table already listed.
  // A table any record of a loaded type names is live, whichever engine it is on.
  const records = yield* (yield* DatasetStore).listBySourceType(loadedSourceTypes().map(([type]) => type))
  const live = new Set(records.map((dataset) => tableOf(dataset)[0]))
  const now = yield* Clock.currentTimeMillis
  const dropped: Array<string> = []
  for (const { engine, own, tables } of found) {
    // On an engine other hosts load into, a young load's table may be one switched to in a moment: left for a later sweep.
    const settled = (name: string) => {
      if (engine.shared !== true) return true
      const started = own.startedAt(name)
      return started === undefined || now - started > Duration.toMillis(sharedOrphanAge)
    }
    for (const name of tables.filter((name) => own.isOwn(name) && !live.has(name) && settled(name))) {
      yield* engine.drop([name]).pipe(
        Effect.tap(() => Effect.sync(() => dropped.push(name))),
        Effect.catchTag("EngineError", (error) => Effect.logWarning("Could not drop an orphan table", name, error.detail))
      )
    }
  }
  if (dropped.length > 0) yield* Effect.logInfo(`Dropped ${dropped.length} orphan dataset table(s)`, dropped.join(", "))
  return dropped
})

