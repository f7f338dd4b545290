/**
 * Port: datasets' records (their rows live in the analytics engine). Every
 * method is scoped by tenant: another tenant's dataset is a missing one.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { Dataset, DatasetId, SourceType } from "./Dataset.ts"
import type { StoreError } from "../platform/Errors.ts"
import type { DatasetRefresh } from "./DatasetRefresh.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import * as WorkspaceRecords from "../tenancy/WorkspaceRecords.ts"

/**
 * Datasets, scoped by tenant: workspace records whose `update` replaces a
 * dataset's record but what refreshes find: `load_id`,
 * `columns`, `row_count` and `refreshed_at`, which only `switchLoad`
 * writes (an edit racing a load cannot point the record back at rows
 * already dropped, nor describe them with the old ones' count).
 */
export class DatasetStore extends Context.Service<DatasetStore, WorkspaceRecords.WorkspaceRecords<Dataset, DatasetId> & {
  /**
   * Records what a refresh found and makes a load's rows current, in one
   * commit: writes the record's `load_id`, `model`, `columns`, `row_count`,
   * `refreshed_at` and `updated_at`, only if its current load is still
   * `from`; `false` when it is not (another load switched first) or the
   * dataset is gone. A PostgreSQL dataset has no load: both are null.
   */
  readonly switchLoad: (dataset: Dataset, from: string | null) => Effect.Effect<boolean, StoreError>
  /** Every dataset with a refresh schedule, of every tenant (the scheduler decides which are due). */
  readonly listScheduled: Effect.Effect<ReadonlyArray<Dataset>, StoreError>
  /**
   * Every dataset whose source is of one of `types`, of every tenant (the
   * orphan sweep's live tables: those the loaded types' datasets name).
   */
  readonly listBySourceType: (types: ReadonlyArray<SourceType>) => Effect.Effect<ReadonlyArray<Dataset>, StoreError>
  /** Logs a refresh that ended (succeeded or failed). */
  readonly insertRefresh: (refresh: DatasetRefresh) => Effect.Effect<void, StoreError>
  /**
   * One page of a dataset's refresh log, newest first by `started_at` then
   * `refresh_id` ascending (`Pagination.applyInMemory` order, `started_at`
   * standing for `created_at`); its tenant's only. Gone with its dataset.
   */
  readonly listRefreshes: (
    tenantId: TenantId,
    datasetId: string,
    query: PageQuery<"created_at">
  ) => Effect.Effect<ReadonlyArray<DatasetRefresh>, StoreError>
}>()("@analytics/core/DatasetStore") {}

/** Datasets as workspace records. */
export const datasets = WorkspaceRecords.kind({ resource: "dataset", id: "dataset_id", store: DatasetStore })

/** A dataset's position in the newest-first list. */
export const datasetKey: (dataset: Dataset) => Keyset = WorkspaceRecords.keyOf(datasets)
