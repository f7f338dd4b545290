/**
 * Port: datasets' records (their rows live in the analytics engine). Every
 * method is scoped by tenant: another tenant's dataset is a missing one.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { Dataset, DatasetId } from "./Dataset.ts"
import type { StoreError } from "./Errors.ts"
import type { Keyset, PageQuery } from "./Pagination.ts"
import type { TenantId } from "./Tenant.ts"
import type { WorkspaceId } from "./Workspace.ts"

/** A dataset's position in the newest-first list. */
export const datasetKey = (dataset: Dataset): Keyset => ({ value: dataset.created_at.getTime(), id: dataset.dataset_id })

/** Datasets, scoped by tenant. */
export class DatasetStore extends Context.Service<DatasetStore, {
  readonly insert: (dataset: Dataset) => Effect.Effect<void, StoreError>
  readonly find: (tenantId: TenantId, datasetId: DatasetId) => Effect.Effect<Dataset | undefined, StoreError>
  /** One page of a workspace's datasets, newest first. */
  readonly list: (tenantId: TenantId, workspaceId: WorkspaceId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<Dataset>, StoreError>
  /** Replaces a dataset's record; `false` when there is none. */
  readonly update: (dataset: Dataset) => Effect.Effect<boolean, StoreError>
  /** Deletes a dataset's record; `false` when there was none in this tenant. */
  readonly remove: (tenantId: TenantId, datasetId: DatasetId) => Effect.Effect<boolean, StoreError>
  /** Every dataset with a refresh schedule, of every tenant (the scheduler decides which are due). */
  readonly listScheduled: Effect.Effect<ReadonlyArray<Dataset>, StoreError>
}>()("@analytics/core/DatasetStore") {}
