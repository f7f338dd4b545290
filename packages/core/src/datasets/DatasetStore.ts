/**
 * Port: datasets' records (their rows live in the analytics engine). Every
 * method is scoped by tenant: another tenant's dataset is a missing one.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { Dataset, DatasetId } from "./Dataset.ts"
import type { StoreError } from "../platform/Errors.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"

/** A dataset's position in the newest-first list. */
export const datasetKey = (dataset: Dataset): Keyset => ({ value: dataset.created_at.getTime(), id: dataset.dataset_id })

/** Datasets, scoped by tenant. */
export class DatasetStore extends Context.Service<DatasetStore, {
  readonly insert: (dataset: Dataset) => Effect.Effect<void, StoreError>
  readonly find: (tenantId: TenantId, datasetId: DatasetId) => Effect.Effect<Dataset | undefined, StoreError>
  /** One page of a workspace's datasets, newest first. */
  readonly list: (tenantId: TenantId, workspaceId: WorkspaceId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<Dataset>, StoreError>
  /**
   * Replaces a dataset's record but what refreshes find: `load_id`,
   * `columns`, `row_count` and `refreshed_at`, which only `switchLoad`
   * writes (an edit racing a load cannot point the record back at rows
   * already dropped, nor describe them with the old ones' count); `false`
   * when there is none.
   */
  readonly update: (dataset: Dataset) => Effect.Effect<boolean, StoreError>
  /**
   * Records what a refresh found and makes a load's rows current, in one
   * commit: writes the record's `load_id`, `model`, `columns`, `row_count`,
   * `refreshed_at` and `updated_at`, only if its current load is still
   * `from`; `false` when it is not (another load switched first) or the
   * dataset is gone. A PostgreSQL dataset has no load: both are null.
   */
  readonly switchLoad: (dataset: Dataset, from: string | null) => Effect.Effect<boolean, StoreError>
  /** Deletes a dataset's record; `false` when there was none in this tenant. */
  readonly remove: (tenantId: TenantId, datasetId: DatasetId) => Effect.Effect<boolean, StoreError>
  /** Every dataset with a refresh schedule, of every tenant (the scheduler decides which are due). */
  readonly listScheduled: Effect.Effect<ReadonlyArray<Dataset>, StoreError>
  /** Every upload dataset, of every tenant (the engine tables they name are the live ones). */
  readonly listUploads: Effect.Effect<ReadonlyArray<Dataset>, StoreError>
}>()("@analytics/core/DatasetStore") {}
