/**
 * The DatasetStore in memory.
 *
 * @since 0.1.0
 */
import { type Dataset, DatasetStore, Pagination } from "@analytics/core"
import { Effect } from "effect"
import { restore, set, write } from "./Transactions.ts"

/** A fresh in-memory dataset store. */
export const make = Effect.sync(() => {
  const datasets = new Map<string, Dataset.Dataset>()
  const of = (tenantId: string, datasetId: string) => {
    const dataset = datasets.get(datasetId)
    return dataset !== undefined && dataset.tenant_id === tenantId ? dataset : undefined
  }
  return DatasetStore.DatasetStore.of({
    insert: (dataset) => write(() => [undefined, set(datasets, dataset.dataset_id, dataset)]),
    find: (tenantId, datasetId) => Effect.sync(() => of(tenantId, datasetId)),
    list: (tenantId, workspaceId, query) =>
      Effect.sync(() =>
        Pagination.applyInMemory(
          [...datasets.values()].filter((d) => d.tenant_id === tenantId && d.workspace_id === workspaceId),
          query,
          DatasetStore.datasetKey,
          (d) => d.created_at
        )
      ),
    update: (dataset) =>
      write(() => of(dataset.tenant_id, dataset.dataset_id) === undefined ? [false, () => {}] : [true, set(datasets, dataset.dataset_id, dataset)]),
    remove: (tenantId, datasetId) =>
      write(() => {
        if (of(tenantId, datasetId) === undefined) return [false, () => {}]
        const undo = restore(datasets, datasetId)
        datasets.delete(datasetId)
        return [true, undo]
      })
  })
})
