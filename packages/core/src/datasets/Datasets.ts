/**
 * Use cases on datasets (decision 0013): records in a workspace, rows loaded
 * into the analytics engine, semantic queries run for a principal with
 * their row-level security.
 *
 * @since 0.1.0
 */
import { Clock, Context, Duration, Effect, Layer, Stream } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import { AnalyticsEngine, AnalyticsEngine as AnalyticsEngineTag, EngineError, type FileImport, type Row, type Writer } from "./AnalyticsEngine.ts"
import {
  type Dataset,
  type DatasetCreate,
  type DatasetSource,
  type DatasetUpdate,
  isDue,
  loadedSourceTypes,
  type OwnTables,
  readsInPlace,
  type SourceType,
  tableOf
} from "./Dataset.ts"
import * as DatasetRefresh from "./DatasetRefresh.ts"
import { datasets, DatasetStore } from "./DatasetStore.ts"
import { DirectoryStore } from "../directory/DirectoryStore.ts"
import { EngineScheduler, type TurnExpired } from "../limits/EngineScheduler.ts"
import { NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import { type InvalidSort, type NewestFirstRequest, type Page, paginateNewestFirst } from "../platform/Pagination.ts"
import { Transactor } from "../platform/Transactor.ts"
import { publish } from "../webhooks/EventPublisher.ts"
import type * as Events from "../webhooks/Events.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { RateLimited, type RateLimitedWith } from "../limits/Limiter.ts"
import * as Metrics from "../platform/Metrics.ts"
import type { Member } from "../auth/Principal.ts"
import * as ResultCache from "./ResultCache.ts"
import * as SemanticModel from "./SemanticModel.ts"
import * as SemanticQuery from "./SemanticQuery.ts"
import * as ServerPaths from "../platform/ServerPaths.ts"
import * as SqlCompiler from "./SqlCompiler.ts"
import * as SqlDialect from "./SqlDialect.ts"
import type { DialectName } from "./SqlDialect.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { UserId } from "../directory/User.ts"
import * as WorkspaceResource from "../tenancy/WorkspaceResource.ts"
import type { WorkspaceStore } from "../tenancy/WorkspaceStore.ts"

/** The layers of the engines datasets run on, keyed by the source type each serves (`Dataset.sourceTypes`); any may be absent. */
export type EngineLayers<E> = { readonly [T in SourceType]?: Layer.Layer<AnalyticsEngine, E> | undefined }

/**
 * The deployment's engines, keyed by the source type each serves: `upload`
 * for uploaded files (embedded DuckDB, or PostgreSQL's uploads), `postgres`
 * for the operator's tables read in place. A type without one is refused
 * (`EngineUnavailable`).
 */
export type EngineRegistry = { readonly [T in SourceType]?: AnalyticsEngine["Service"] | undefined }

/**
 * The engines datasets run on (`bySource`), and the scheduler that
 * shares them between tenants (`EngineScheduler`). Without a scheduler,
 * work runs as it comes (tests that build the engines by hand).
 */
export class Engines extends Context.Service<Engines, {
  readonly bySource: EngineRegistry
  readonly scheduler?: EngineScheduler["Service"] | undefined
  /** Results of uploaded datasets' queries, kept while their load stays; none kept without it. */
  readonly results?: ResultCache.ResultCache | undefined
}>()("@analytics/core/Datasets/Engines") {
  /** The engines built from their layers, and closed with this one, shared by the `EngineScheduler`. */
  static readonly layer = <E>(layers: EngineLayers<E>): Layer.Layer<Engines, E, EngineScheduler> =>
    Layer.effect(
      Engines,
      Effect.gen(function*() {
        const bySource: { [T in SourceType]?: AnalyticsEngine["Service"] } = {}
        for (const [type, layer] of Object.entries(layers) as Array<[SourceType, Layer.Layer<AnalyticsEngine, E> | undefined]>) {
          if (layer !== undefined) bySource[type] = Context.get(yield* Layer.build(layer), AnalyticsEngineTag)
        }
        return { bySource, scheduler: yield* EngineScheduler, results: ResultCache.make() }
      })
    )

  /** Engines already built, as layers again (the host hands the ones it built to the app it serves). */
  static readonly layersOf = (bySource: EngineRegistry): EngineLayers<never> =>
    Object.fromEntries(Object.entries(bySource).flatMap(([type, engine]) =>
      engine === undefined ? [] : [[type, Layer.succeed(AnalyticsEngineTag, engine)]]
    ))
}

/**
 * No turn on the analytics engine came within the query's timeout: the
 * engine is busy with this tenant's other queries (its fair share is in
 * use) or with everyone's. 429 `rate-limit/query-concurrency` with
 * `Retry-After`, as the per-workspace cap answers: the client should send
 * fewer queries at once, and retry.
 */
export type EngineBusy = RateLimitedWith<"rate-limit/query-concurrency">

const engineBusy = (expired: TurnExpired): EngineBusy =>
  new RateLimited({
    code: "rate-limit/query-concurrency",
    detail: `The analytics engine had no turn for this query within ${Math.round(expired.waitedMillis / 1000)} s: this tenant's other queries hold its share of the engine; send fewer at once`,
    retryAfterSeconds: 1
  }) as EngineBusy

/** The same, for work whose only failure is the engine's (streamed and written files). */
const engineBusyError = (expired: TurnExpired) =>
  new EngineError({ operation: "schedule", detail: `The analytics engine had no turn for this work within ${Math.round(expired.waitedMillis / 1000)} s` })

/** Runs engine work of `tenantId` in its turn, waiting at most `deadline` (`EngineScheduler.withTurn`), or at once without a scheduler. */
const inTurnWithin = (tenantId: TenantId, deadline: Duration.Input) => <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E | TurnExpired, R | Engines> =>
  Effect.flatMap(Engines, ({ scheduler }) => scheduler === undefined ? work : scheduler.withTurn(tenantId, deadline)(work))

/** Runs engine work of `tenantId` in its turn, however long it waits for it. */
const inTurn = (tenantId: TenantId) => <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Engines> =>
  Effect.flatMap(Engines, ({ scheduler }) =>
    scheduler === undefined
      ? work
      // Without a deadline no turn expires.
      : Effect.catchTag(scheduler.withTurn(tenantId)(work), "TurnExpired", (expired) => Effect.die(expired)) as Effect.Effect<A, E, R>)

/** A stream of engine work of `tenantId`, holding a turn while it runs; no turn within `deadline` is an EngineError. */
const streamedInTurn = <A>(
  scheduler: EngineScheduler["Service"] | undefined,
  tenantId: TenantId,
  stream: Stream.Stream<A, EngineError>
): Stream.Stream<A, EngineError> =>
  scheduler === undefined
    ? stream
    : Stream.unwrap(Effect.as(Effect.mapError(scheduler.turn(tenantId, defaultQueryTimeout), engineBusyError), stream))

/** No engine serves this kind of source here. */
export class EngineUnavailable extends TaggedFailure("EngineUnavailable")<{
  readonly source: DatasetSource["type"]
}> {
  readonly code = "dataset/engine-unavailable" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return this.source === "upload"
      ? "This service has no engine for uploaded files"
      : "This service has no PostgreSQL engine configured for direct query"
  }
}

/** The source cannot be read (a PostgreSQL table that does not exist, a file the engine cannot parse). */
export class SourceInvalid extends TaggedFailure("SourceInvalid")<{
  readonly detail: string
}> {
  readonly code = "dataset/source-invalid" as const
}

/** The dataset has no rows yet: upload them first. */
export class NotLoaded extends TaggedFailure("NotLoaded")<{
  readonly datasetId: string
}> {
  readonly code = "dataset/not-loaded" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `Dataset ${this.datasetId} has no rows yet: load a CSV or Parquet file first`
  }
}

/** Files are uploaded to upload datasets only (a PostgreSQL dataset reads its table in place). */
export class NotUploadable extends TaggedFailure("NotUploadable")<{
  readonly datasetId: string
}> {
  readonly code = "dataset/not-uploadable" as const
}

/** The query ran longer than allowed and was cancelled. */
export class QueryTimedOut extends TaggedFailure("QueryTimedOut")<{
  readonly seconds: number
}> {
  readonly code = "query/timed-out" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `The query ran longer than ${this.seconds} s and was cancelled; narrow it (filters, a date range, fewer dimensions)`
  }
}

/** How long a query may run before it is cancelled in the engine (reports set their own). */
export const defaultQueryTimeout = Duration.seconds(60)

const datasetNotFound = (id: string) => new NotFound({ resource: "dataset", id })

const engineFor = (source: DatasetSource) =>
  Effect.flatMap(Engines, (engines) => {
    const engine = engines.bySource[source.type]
    return engine === undefined ? Effect.fail(new EngineUnavailable({ source: source.type })) : Effect.succeed(engine)
  })

const checked = (model: SemanticModel.Model, columns: Dataset["columns"]): Effect.Effect<SemanticModel.CheckedModel, SemanticModel.ModelInvalid> => {
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
export const get: WorkspaceResource.Get<Dataset, DatasetStore> = (tenantId, datasetId) =>
  WorkspaceResource.get(datasets, tenantId, datasetId)

/**
 * One page of a dataset's refresh log, newest first: each refresh that
 * ended, what started it and who, its rows, status and duration. NotFound
 * for a dataset the tenant has not.
 */
export const refreshes = (
  tenantId: TenantId,
  datasetId: string,
  request: NewestFirstRequest
): Effect.Effect<Page<DatasetRefresh.DatasetRefresh>, NotFound | StoreError | CursorError | InvalidSort, DatasetStore | CursorCodec> =>
  Effect.gen(function*() {
    const dataset = yield* get(tenantId, datasetId)
    const store = yield* DatasetStore
    return yield* paginateNewestFirst(request, (query) => store.listRefreshes(tenantId, dataset.dataset_id, query), DatasetRefresh.refreshKey)
  })

/**
 * Creates a dataset in a workspace of the tenant. A PostgreSQL source is
 * read at once (its columns; it must exist); an upload waits for its file.
 * Without a model, one is suggested from the columns when they are known.
 */
export const create: WorkspaceResource.Create<
  DatasetCreate,
  Dataset,
  NotFound | SemanticModel.ModelInvalid | EngineUnavailable | SourceInvalid,
  DatasetStore | WorkspaceStore | Engines | AuditLog.Recording,
  [by: AuditLog.Actor]
> = (tenantId, input, by) =>
  AuditLog.created(tenantId, shown, by, WorkspaceResource.createIn(datasets, tenantId, input.workspace_id, (datasetId, now) =>
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
export const list: WorkspaceResource.List<Dataset, DatasetStore> = (tenantId, workspaceId, request) =>
  WorkspaceResource.list(datasets, tenantId, workspaceId, request)

/** Renames, re-describes or re-models a dataset (the model is checked against its columns). */
export const update: WorkspaceResource.Update<DatasetUpdate, Dataset, SemanticModel.ModelInvalid, DatasetStore | AuditLog.Recording, [by: AuditLog.Actor]> = (
  tenantId,
  datasetId,
  change,
  by
) =>
  AuditLog.updated(tenantId, shown, by, get(tenantId, datasetId), (found) => WorkspaceResource.update(datasets, datasetId, Effect.succeed(found), (current) => {
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
export const remove: WorkspaceResource.Remove<DatasetStore | Engines | AuditLog.Recording, [by: AuditLog.Actor]> = (tenantId, datasetId, by) =>
  Effect.gen(function*() {
    const dataset = yield* AuditLog.deleted(tenantId, shown, by, get(tenantId, datasetId), () => WorkspaceResource.remove(datasets, tenantId, datasetId))
    const engine = (yield* Engines).bySource[dataset.source.type]
    if (!readsInPlace(dataset.source) && engine !== undefined) {
      // The record is gone; rows left behind by a failed drop are unreachable, and logged.
      yield* engine.drop(tableOf(dataset)).pipe(
        Effect.catchTag("EngineError", (error) => Effect.logWarning("Could not drop a deleted dataset's rows", error.detail))
      )
    }
  })

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

/** An upload dataset is refreshed by uploading its file again. */
export class RefreshNeedsFile extends TaggedFailure("RefreshNeedsFile")<{
  readonly datasetId: string
}> {
  readonly code = "dataset/refresh-needs-file" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `Dataset ${this.datasetId} is an upload: load its file again`
  }
}

/**
 * Runs a refresh of a dataset's rows (`work`, given the refresh's id,
 * records what it found and returns the record), with the
 * `dataset.refresh.started`, `.succeeded` or `.failed` events, and logs it
 * as it ended (`origin`: what started it, and who).
 */
const refreshing = <E extends { readonly _tag: string }, R>(
  dataset: Dataset,
  origin: DatasetRefresh.Origin,
  work: (refreshId: string) => Effect.Effect<Dataset, E, R>
): Effect.Effect<Dataset, E | StoreError, R | AuditLog.Recording | DatasetStore> =>
  Effect.gen(function*() {
    const refreshId = yield* uuidv7
    // Someone asked for it (`POST /v1/datasets/{id}/refresh`): the log says who, before it runs; its outcome is in the refresh log.
    if (origin.trigger === "manual" && origin.requested_by !== null) {
      yield* AuditLog.recorded(dataset.tenant_id, Effect.void, () => ({
        workspace_id: dataset.workspace_id,
        action: "dataset.refresh_requested",
        actor: origin.requested_by!,
        target: { type: "dataset", id: dataset.dataset_id },
        detail: { dataset_id: dataset.dataset_id, name: dataset.name, refresh_id: refreshId }
      }))
    }
    const started = yield* Clock.currentTimeMillis
    /** Logs the refresh as it ended; a log that cannot be written is logged, and the refresh's own outcome stands. */
    const logged = (ended: Pick<DatasetRefresh.DatasetRefresh, "status" | "row_count" | "error">, finished: number) =>
      Effect.gen(function*() {
        yield* (yield* DatasetStore).insertRefresh({
          ...origin,
          ...ended,
          refresh_id: refreshId,
          tenant_id: dataset.tenant_id,
          dataset_id: dataset.dataset_id,
          started_at: new Date(started),
          finished_at: new Date(finished),
          duration_ms: finished - started
        })
      }).pipe(Effect.catch((error) => Effect.logWarning("dataset refresh not logged", { dataset_id: dataset.dataset_id, refresh_id: refreshId, error })))
    const event = <T extends "dataset.refresh.started" | "dataset.refresh.succeeded" | "dataset.refresh.failed">(type: T, data: Events.Data<T>) =>
      // The data is built here from stored values: a schema failure would be a bug.
      publish(dataset.tenant_id, type, dataset.workspace_id, data).pipe(Effect.catchTag("SchemaError", Effect.die), Effect.asVoid)
    const ids = { dataset_id: dataset.dataset_id, refresh_id: refreshId }
    yield* event("dataset.refresh.started", ids)
    const refreshed = yield* work(refreshId).pipe(
      Effect.tapError((error) => {
        const code = codeOf(error)
        const detail = "detail" in error && typeof error.detail === "string" ? error.detail : error._tag
        // An engine's or a store's own message may name the server's files or hosts: the log keeps it, the event says what failed.
        const withheld = code === "service/unavailable" || ServerPaths.names(detail)
        const message = code === "service/unavailable"
          ? "The engine or the store could not finish the refresh; it may be tried again"
          : withheld
          ? "The dataset's source cannot be read; the service's log has the details"
          : detail
        return Effect.andThen(
          withheld ? Effect.logWarning("dataset refresh failed", { dataset_id: dataset.dataset_id, refresh_id: refreshId, detail }) : Effect.void,
          Effect.andThen(event("dataset.refresh.failed", { ...ids, error: { code, message } }), Effect.flatMap(Clock.currentTimeMillis, (finished) => logged({ status: "failed", row_count: null, error: { code, message } }, finished)))
        )
      })
    )
    const now = yield* Clock.currentTimeMillis
    // The log and the event say the same duration.
    yield* logged({ status: "succeeded", row_count: refreshed.row_count ?? 0, error: null }, now)
    yield* event("dataset.refresh.succeeded", { ...ids, row_count: refreshed.row_count ?? 0, duration_ms: now - started })
    return refreshed
  })

/** The problem code a refresh failure is reported with in its event. */
const codeOf = (error: { readonly _tag: string }) =>
  error._tag === "ModelInvalid"
    ? "dataset/model-invalid"
    : error._tag === "SourceInvalid"
    ? "dataset/source-invalid"
    : error._tag === "NotFound"
    ? "resource/not-found"
    : "service/unavailable"

/**
 * Refreshes a PostgreSQL dataset: reads its table's columns and row count
 * again (rows are read in place, so queries always see the table as it is).
 */
export const refresh = (
  tenantId: TenantId,
  datasetId: string,
  origin: DatasetRefresh.Origin
): Effect.Effect<
  Dataset,
  NotFound | RefreshNeedsFile | EngineUnavailable | SourceInvalid | SemanticModel.ModelInvalid | StoreError,
  DatasetStore | Engines | AuditLog.Recording
> =>
  Effect.gen(function*() {
    const dataset = yield* get(tenantId, datasetId)
    if (!readsInPlace(dataset.source)) return yield* new RefreshNeedsFile({ datasetId })
    const engine = yield* engineFor(dataset.source)
    return yield* refreshing(dataset, origin, () =>
      Effect.gen(function*() {
        const table = tableOf(dataset)
        const asSource = <A, R>(effect: Effect.Effect<A, EngineError, R>) => Effect.mapError(effect, (error) => new SourceInvalid({ detail: error.detail }))
        const columns = yield* asSource(engine.describe(table))
        yield* checked(dataset.model, columns)
        const counting = SemanticQuery.plan(countModel, { measures: ["rows"] }, { roles: [], attributes: {} }, new Date(0)) as SemanticQuery.Plan
        const [row] = yield* asSource(inTurn(tenantId)(engine.run(SqlCompiler.compile(counting, { table }, engine.dialect))))
        const now = new Date(yield* Clock.currentTimeMillis)
        const refreshed: Dataset = { ...dataset, columns, row_count: Number(row?.["rows"] ?? 0), refreshed_at: now, updated_at: now }
        // A PostgreSQL dataset has no load: the switch only records what the refresh found.
        if (!(yield* (yield* DatasetStore).switchLoad(refreshed, null))) return yield* datasetNotFound(dataset.dataset_id)
        return refreshed
      }))
  })

/** A model that counts rows. */
const countModel = SemanticModel.check({ dimensions: [], measures: [{ name: "rows", aggregation: "count" }] }) as SemanticModel.CheckedModel

/**
 * Who a member is to row-level security, now: their service roles and the
 * names of the executive roles they hold (read from the directory at each
 * query, never cached), and their attributes with `user_id` and `email`.
 */
export const securityContext = (member: Member): Effect.Effect<SemanticQuery.SecurityContext, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const directory = yield* DirectoryStore
    const { roles } = yield* directory.membershipsOf(member.tenantId, member.userId as UserId)
    const names: Array<string> = []
    for (const roleId of roles) {
      const role = yield* directory.findGroup(member.tenantId, "executive_role", roleId)
      if (role !== undefined) names.push(role.name)
    }
    return {
      roles: [...member.roles, ...names],
      attributes: { ...member.attributes, user_id: member.userId, ...(member.email === null ? {} : { email: member.email }) }
    }
  })

/** A planned query of a loaded dataset, ready to compile for its engine. */
const prepared = (
  tenantId: TenantId,
  datasetId: string,
  query: SemanticQuery.Query,
  security: SemanticQuery.SecurityContext,
  dialect?: DialectName,
  options?: SemanticQuery.PlanOptions
) =>
  Effect.gen(function*() {
    const dataset = yield* get(tenantId, datasetId)
    if (!readsInPlace(dataset.source) && dataset.refreshed_at === null) return yield* new NotLoaded({ datasetId })
    const engine = yield* engineFor(dataset.source)
    const { scheduler } = yield* Engines
    const model = yield* checked(dataset.model, [])
    const plan = SemanticQuery.plan(model, query, security, new Date(yield* Clock.currentTimeMillis), options)
    if (plan instanceof SemanticQuery.QueryInvalid) return yield* plan
    return { dataset, engine, scheduler, compiled: SqlCompiler.compile(plan, { table: engine.sqlName?.(tableOf(dataset)) ?? tableOf(dataset) }, dialect === undefined ? engine.dialect : SqlDialect.dialects[dialect]) }
  })

/** The errors of planning a query of a dataset. */
export type PlanError = NotFound | NotLoaded | EngineUnavailable | SemanticModel.ModelInvalid | SemanticQuery.QueryInvalid | StoreError

/** The errors of asking a dataset a query, before it runs: planning it, and waiting for a turn on the engine. */
export type QueryError = PlanError | EngineBusy

/** The SQL a query compiles to, for its dataset's engine or the `dialect` asked for (nothing is run). */
export const compile = (
  tenantId: TenantId,
  datasetId: string,
  query: SemanticQuery.Query,
  security: SemanticQuery.SecurityContext,
  dialect?: DialectName
): Effect.Effect<{ readonly dialect: DialectName; readonly compiled: SqlCompiler.Compiled }, PlanError, DatasetStore | Engines> =>
  Effect.map(prepared(tenantId, datasetId, query, security, dialect), ({ compiled, engine }) => ({ dialect: dialect ?? engine.dialect.name, compiled }))

/** Whether the engine of a dataset has a file writer of its own (`parquet`: DuckDB's). */
export const engineWrites = (
  tenantId: TenantId,
  datasetId: string,
  writer: Writer
): Effect.Effect<boolean, NotFound | StoreError, DatasetStore | Engines> =>
  Effect.flatMap(get(tenantId, datasetId), (dataset) =>
    Effect.map(Effect.orElseSucceed(engineFor(dataset.source), () => undefined), (engine) => engine?.[writer] !== undefined))

/** Files streamed from the engine carry every row; a limit the query names still applies. */
const streamed: SemanticQuery.PlanOptions = { everyRow: true }

/** A query's rows (every one, unless it names a limit) as a Parquet file written by its dataset's engine, streamed. */
export const parquet = (
  tenantId: TenantId,
  datasetId: string,
  query: SemanticQuery.Query,
  security: SemanticQuery.SecurityContext
): Effect.Effect<Stream.Stream<Uint8Array, EngineError>, PlanError, DatasetStore | Engines> =>
  Effect.flatMap(prepared(tenantId, datasetId, query, security, undefined, streamed), ({ compiled, dataset, engine, scheduler }) =>
    engine.parquet === undefined
      ? Effect.fail(new EngineUnavailable({ source: dataset.source.type }))
      : Effect.succeed(streamedInTurn(scheduler, tenantId, engine.parquet(compiled))))

/**
 * A query's rows (every one, unless it names a limit) as a CSV file
 * streamed from its dataset's engine, or `undefined` when the engine has no
 * streamed writer (the caller then reads a bounded result with `query`).
 */
export const csv = (
  tenantId: TenantId,
  datasetId: string,
  query: SemanticQuery.Query,
  security: SemanticQuery.SecurityContext
): Effect.Effect<Stream.Stream<Uint8Array, EngineError> | undefined, PlanError, DatasetStore | Engines> =>
  Effect.map(prepared(tenantId, datasetId, query, security, undefined, streamed), ({ compiled, engine, scheduler }) =>
    engine.csv === undefined ? undefined : streamedInTurn(scheduler, tenantId, engine.csv(compiled)))

/**
 * How a query's rows (every one, unless it names a limit) are written to a
 * file by its dataset's engine itself, or `undefined` when the engine has
 * no such writer (then `csv` and `parquet` stream them).
 */
export const fileWriter = (
  tenantId: TenantId,
  datasetId: string,
  query: SemanticQuery.Query,
  security: SemanticQuery.SecurityContext,
  format: "csv" | "parquet"
): Effect.Effect<((path: string) => Effect.Effect<void, EngineError>) | undefined, PlanError, DatasetStore | Engines> =>
  Effect.map(prepared(tenantId, datasetId, query, security, undefined, streamed), ({ compiled, engine, scheduler }) => {
    const writeFile = engine.writeFile
    if (writeFile === undefined) return undefined
    return (path: string) =>
      scheduler === undefined
        ? writeFile(compiled, format, path)
        : scheduler.withTurn(tenantId, defaultQueryTimeout)(writeFile(compiled, format, path)).pipe(Effect.catchTag("TurnExpired", (expired) => Effect.fail(engineBusyError(expired))))
  })

/**
 * Runs a query of a dataset for a principal in a turn of its tenant's on
 * the engine (`EngineScheduler`). `timeout` bounds the whole: a query with
 * no turn within it fails with EngineBusy (429), one still running at its
 * end is cancelled in the engine (QueryTimedOut).
 */
export const query = (
  tenantId: TenantId,
  datasetId: string,
  query: SemanticQuery.Query,
  security: SemanticQuery.SecurityContext,
  timeout: Duration.Input = defaultQueryTimeout
): Effect.Effect<
  { readonly dataset: Dataset; readonly compiled: SqlCompiler.Compiled; readonly rows: ReadonlyArray<Row> },
  QueryError | QueryTimedOut | EngineError,
  DatasetStore | Engines
> =>
  Effect.gen(function*() {
    const { compiled, dataset, engine } = yield* prepared(tenantId, datasetId, query, security)
    const { results } = yield* Engines
    // A loaded dataset's rows change only with its load, which the key names; a table read in place may change at any time.
    const cache = results !== undefined && !readsInPlace(dataset.source) && (yield* ResultCache.Enabled)
      ? { results, key: ResultCache.key(dataset, compiled) }
      : undefined
    const cached = cache?.results.get(cache.key)
    if (cached !== undefined) return { dataset, compiled, rows: cached }
    const budget = Duration.toMillis(timeout)
    const asked = yield* Clock.currentTimeMillis
    const rows = yield* Effect.gen(function*() {
      // What the wait for a turn left of the timeout.
      const waited = (yield* Clock.currentTimeMillis) - asked
      yield* Effect.annotateCurrentSpan("dataset.engine_wait_ms", waited)
      const left = Math.max(0, budget - waited)
      return yield* engine.run(compiled, { timeout }).pipe(
        Effect.timeoutOrElse({
          duration: left,
          orElse: () => Effect.fail(new QueryTimedOut({ seconds: Duration.toSeconds(timeout) }))
        }),
        Metrics.timedQuery(dataset.source.type)
      )
    }).pipe(
      inTurnWithin(tenantId, budget),
      Effect.catchTag("TurnExpired", (expired) => Effect.fail(engineBusy(expired))),
      Effect.withSpan("dataset.query", { attributes: { "dataset.engine": dataset.source.type, "dataset.id": dataset.dataset_id } })
    )
    cache?.results.set(cache.key, rows)
    return { dataset, compiled, rows }
  })

/**
 * Refreshes every PostgreSQL dataset whose schedule has come since its last
 * refresh (the host's scheduler runs this each minute); a failing refresh is
 * logged (and announced by its `dataset.refresh.failed` event). Returns the
 * refreshed datasets, for the alerts that watch them.
 */
export const refreshDue: Effect.Effect<ReadonlyArray<Dataset>, StoreError, DatasetStore | Engines | AuditLog.Recording> = Effect.gen(function*() {
  const now = new Date(yield* Clock.currentTimeMillis)
  const due = (yield* (yield* DatasetStore).listScheduled).filter((d) =>
    d.refresh_cron !== null && isDue(d.refresh_cron, d.refreshed_at ?? d.created_at, now)
  )
  const refreshed: Array<Dataset> = []
  for (const dataset of due) {
    yield* refresh(dataset.tenant_id, dataset.dataset_id, DatasetRefresh.scheduled).pipe(
      Effect.tap((d) => Effect.sync(() => refreshed.push(d))),
      Effect.catch((error) => Effect.logWarning(`Dataset ${dataset.dataset_id} could not be refreshed`, error._tag))
    )
  }
  return refreshed
})

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
