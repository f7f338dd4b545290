/**
 * Refreshes of datasets (decision 0013): a PostgreSQL dataset's table read
 * again, on request or on its schedule; each refresh (a load's too)
 * announced by its events and written to the dataset's refresh log.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import { NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { type InvalidSort, type NewestFirstRequest, type Page, paginateNewestFirst } from "../platform/Pagination.ts"
import * as ServerPaths from "../platform/ServerPaths.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { publish } from "../webhooks/EventPublisher.ts"
import type * as Events from "../webhooks/Events.ts"
import type { EngineError } from "./AnalyticsEngine.ts"
import { type Dataset, isDue, readsInPlace, tableOf } from "./Dataset.ts"
import { engineFor, Engines, type EngineUnavailable, inTurn } from "./DatasetEngines.ts"
import { checked, get, SourceInvalid } from "./DatasetRecords.ts"
import * as DatasetRefresh from "./DatasetRefresh.ts"
import { DatasetStore } from "./DatasetStore.ts"
import * as SemanticModel from "./SemanticModel.ts"
import * as SemanticQuery from "./SemanticQuery.ts"
import * as SqlCompiler from "./SqlCompiler.ts"

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
 * Runs a refresh of a dataset's rows (`work`, given the refresh's id,
 * records what it found and returns the record), with the
 * `dataset.refresh.started`, `.succeeded` or `.failed` events, and logs it
 * as it ended (`origin`: what started it, and who).
 */
export const refreshing = <E extends { readonly _tag: string }, R>(
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
        if (!(yield* (yield* DatasetStore).switchLoad(refreshed, null))) return yield* new NotFound({ resource: "dataset", id: dataset.dataset_id })
        return refreshed
      }))
  })

/** A model that counts rows. */
const countModel = SemanticModel.check({ dimensions: [], measures: [{ name: "rows", aggregation: "count" }] }) as SemanticModel.CheckedModel

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
