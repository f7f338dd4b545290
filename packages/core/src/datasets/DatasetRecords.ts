/**
 * Datasets as records of a workspace (decision 0013): read, created (a
 * PostgreSQL source's columns read at once), listed, renamed or re-modelled
 * (the model checked against the columns) and deleted, each audited.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import { type NotFound, TaggedFailure } from "../platform/Errors.ts"
import * as WorkspaceRecordUseCases from "../tenancy/WorkspaceRecordUseCases.ts"
import type { WorkspaceStore } from "../tenancy/WorkspaceStore.ts"
import { type Dataset, type DatasetCreate, type DatasetUpdate, readsInPlace, tableOf } from "./Dataset.ts"
import { datasets, DatasetStore } from "./DatasetStore.ts"
import { engineFor, Engines, type EngineUnavailable } from "./DatasetEngines.ts"
import * as SemanticModel from "./SemanticModel.ts"

/** The source cannot be read (a PostgreSQL table that does not exist, a file the engine cannot parse). */
export class SourceInvalid extends TaggedFailure("SourceInvalid")<{
  readonly detail: string
}> {
  readonly code = "dataset/source-invalid" as const
}

/** The model checked on its own, then against the columns (none known: only on its own). */
export const checked = (model: SemanticModel.Model, columns: Dataset["columns"]): Effect.Effect<SemanticModel.CheckedModel, SemanticModel.ModelInvalid> => {
  const result = SemanticModel.check(model)
  if (result instanceof SemanticModel.ModelInvalid) return Effect.fail(result)
  const mismatch = SemanticModel.checkColumns(model, columns)
  return mismatch === undefined ? Effect.succeed(result) : Effect.fail(mismatch)
}

/**
 * A dataset as its audit entries show it: its definition, the model split
 * into its members and its row-level security policies (so an entry's
 * `changes` names which changed); never its rows.
 */
export const shown: AuditLog.Shown<Dataset> = {
  type: "dataset",
  id: (d) => d.dataset_id,
  workspace: (d) => d.workspace_id,
  detail: (d) => ({
    dataset_id: d.dataset_id,
    name: d.name,
    description: d.description,
    source: d.source,
    refresh_cron: d.refresh_cron,
    dimensions: d.model.dimensions,
    measures: d.model.measures,
    row_level_security: d.model.row_level_security ?? []
  })
}

/** A dataset of the tenant, or NotFound. */
export const get: WorkspaceRecordUseCases.Get<Dataset, DatasetStore> = (tenantId, datasetId) =>
  WorkspaceRecordUseCases.get(datasets, tenantId, datasetId)

/**
 * Creates a dataset in a workspace of the tenant. A PostgreSQL source is
 * read at once (its columns; it must exist); an upload waits for its file.
 * Without a model, one is suggested from the columns when they are known.
 */
export const create: WorkspaceRecordUseCases.Create<
  DatasetCreate,
  Dataset,
  NotFound | SemanticModel.ModelInvalid | EngineUnavailable | SourceInvalid,
  DatasetStore | WorkspaceStore | Engines | AuditLog.Recording,
  [by: AuditLog.Actor]
> = (tenantId, input, by) =>
  AuditLog.created(tenantId, shown, by, WorkspaceRecordUseCases.createIn(datasets, tenantId, input.workspace_id, (datasetId, now) =>
    Effect.gen(function*() {
      const inPlace = readsInPlace(input.source)
      const columns = inPlace
        ? yield* Effect.flatMap(engineFor(input.source), (engine) =>
          engine.describe(tableOf({ dataset_id: datasetId, source: input.source, load_id: null }))).pipe(
            Effect.catchTag("EngineError", (error) => Effect.fail(new SourceInvalid({ detail: error.detail })))
          )
        : yield* engineFor(input.source).pipe(Effect.as([]))
      const model = input.model ?? (columns.length > 0 ? SemanticModel.suggest(columns) : { dimensions: [], measures: [] })
      yield* checked(model, columns)
      return {
        name: input.name,
        description: input.description ?? null,
        source: input.source,
        model,
        columns,
        row_count: null,
        refreshed_at: inPlace ? now : null,
        refresh_cron: inPlace ? input.refresh_cron ?? null : null,
        load_id: null
      }
    })))

/** One page of a workspace's datasets, newest first; NotFound for a workspace not of the tenant. */
export const list: WorkspaceRecordUseCases.List<Dataset, DatasetStore> = (tenantId, workspaceId, request) =>
  WorkspaceRecordUseCases.list(datasets, tenantId, workspaceId, request)

/** Renames, re-describes or re-models a dataset (the model is checked against its columns). */
export const update: WorkspaceRecordUseCases.Update<DatasetUpdate, Dataset, SemanticModel.ModelInvalid, DatasetStore | AuditLog.Recording, [by: AuditLog.Actor]> = (
  tenantId,
  datasetId,
  change,
  by
) =>
  AuditLog.updated(tenantId, shown, by, get(tenantId, datasetId), (found) => WorkspaceRecordUseCases.update(datasets, datasetId, Effect.succeed(found), (current) => {
    const model = change.model ?? current.model
    const check: Effect.Effect<unknown, SemanticModel.ModelInvalid> = change.model === undefined ? Effect.void : checked(model, current.columns)
    return Effect.as(check, {
      ...current,
      name: change.name ?? current.name,
      description: change.description === undefined ? current.description : change.description,
      model,
      refresh_cron: readsInPlace(current.source) && change.refresh_cron !== undefined ? change.refresh_cron : current.refresh_cron
    })
  }))

/** Deletes a dataset and, for an upload, its rows in the engine. */
export const remove: WorkspaceRecordUseCases.Remove<DatasetStore | Engines | AuditLog.Recording, [by: AuditLog.Actor]> = (tenantId, datasetId, by) =>
  Effect.gen(function*() {
    const dataset = yield* AuditLog.deleted(tenantId, shown, by, get(tenantId, datasetId), () => WorkspaceRecordUseCases.remove(datasets, tenantId, datasetId))
    const engine = (yield* Engines).bySource[dataset.source.type]
    if (!readsInPlace(dataset.source) && engine !== undefined) {
      // The record is gone; rows left behind by a failed drop are unreachable, and logged.
      yield* engine.drop(tableOf(dataset)).pipe(
        Effect.catchTag("EngineError", (error) => Effect.logWarning("Could not drop a deleted dataset's rows", error.detail))
      )
    }
  })
