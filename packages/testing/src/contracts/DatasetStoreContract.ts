/**
 * What the DatasetStore and the AlertStore add to the workspace-record
 * contract (`workspaceRecordsContract` runs the rest on every kind): a
 * dataset's edit leaves what refreshes found to the load switch, which is
 * one conditional write; the scheduler's and the sweep's lists; the refresh
 * log, newest first, in its tenant only and gone with its dataset; the alerts a
 * refresh or a schedule checks. Run by `storeContract` on every adapter.
 *
 * @since 0.1.0
 */
import { Alert, AlertStore, Dataset, type DatasetRefresh, DatasetStore, Ids } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { insertTenant, insertWorkspace } from "../Fixtures.ts"
import { newAlert, newDataset } from "./WorkspaceRecordSamples.ts"

const at = (offset: number) => new Date(1_810_000_000_000 + offset)

/** A tenant, a workspace and an upload dataset of it, stored. */
const arrangeDataset = Effect.gen(function*() {
  const store = yield* DatasetStore.DatasetStore
  const tenant = yield* insertTenant({ createdAt: at(0) })
  const workspace = yield* insertWorkspace(tenant.tenant_id, "Analytics", at(0))
  const dataset = yield* newDataset(tenant.tenant_id, workspace.workspace_id, at(1))
  yield* store.insert(dataset)
  return { dataset, store, tenant, workspace }
})

/** Registers the dataset and alert tests on `it` (inside `storeContract`'s layer). */
export const datasetStoreContract = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("a dataset's edit leaves what refreshes found to the switch; scheduled datasets are listed", () =>
    Effect.gen(function*() {
      const { dataset, store, tenant, workspace } = yield* arrangeDataset
      const loaded: Dataset.Dataset = {
        ...dataset,
        name: "Sales (loaded)",
        description: "Orders since 2020",
        columns: [{ name: "region", engineType: "VARCHAR", type: "string" }, { name: "amount", engineType: "DOUBLE", type: "number" }],
        row_count: 12_345_678_901,
        refreshed_at: at(5),
        updated_at: at(5)
      }
      // An edit writes the name and description; what a refresh found is written by the switch alone.
      assert.isTrue(yield* store.update(loaded))
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, dataset.dataset_id), { ...loaded, columns: [], row_count: null, refreshed_at: null })
      assert.isTrue(yield* store.switchLoad(loaded, null))
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, dataset.dataset_id), loaded)
      const postgres = yield* newDataset(tenant.tenant_id, workspace.workspace_id, at(2), {
        source: { type: "postgres", schema: "sales", table: "orders" },
        refresh_cron: "0 * * * *"
      })
      yield* store.insert(postgres)
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, postgres.dataset_id), postgres)
      assert.isTrue((yield* store.listScheduled).some((d) => d.dataset_id === postgres.dataset_id))
      assert.isFalse((yield* store.listScheduled).some((d) => d.dataset_id === dataset.dataset_id))
    }))

  it.effect("a load is switched in one conditional write, which edits never undo", () =>
    Effect.gen(function*() {
      const { dataset, store, tenant, workspace } = yield* arrangeDataset
      const [first, second] = [yield* Ids.uuidv7, yield* Ids.uuidv7]
      const columns = [{ name: "region", engineType: "VARCHAR", type: "string" as const }]
      const loaded: Dataset.Dataset = { ...dataset, load_id: first, columns, row_count: 10, refreshed_at: at(5), updated_at: at(5) }
      // Only from the load it replaces: a load that lost the race is told so.
      assert.isFalse(yield* store.switchLoad(loaded, second))
      assert.isTrue(yield* store.switchLoad(loaded, null))
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, dataset.dataset_id), loaded)
      assert.isFalse(yield* store.switchLoad({ ...loaded, load_id: second }, null))
      // An edit made from a record read before the switch keeps the new load and what it found.
      assert.isTrue(yield* store.update({ ...dataset, name: "Renamed", updated_at: at(6) }))
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, dataset.dataset_id), { ...loaded, name: "Renamed", updated_at: at(6) })
      // The switch writes the load's parts only: the edit's name stays.
      const again: Dataset.Dataset = { ...loaded, name: "Ignored", load_id: second, row_count: 20, refreshed_at: at(7), updated_at: at(7) }
      assert.isTrue(yield* store.switchLoad(again, first))
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, dataset.dataset_id), { ...again, name: "Renamed" })
      const other = yield* insertTenant({ createdAt: at(0) })
      assert.isFalse(yield* store.switchLoad({ ...again, tenant_id: other.tenant_id, load_id: first }, second))
      const postgres = yield* newDataset(tenant.tenant_id, workspace.workspace_id, at(2), { source: { type: "postgres", table: "orders" } })
      yield* store.insert(postgres)
      const uploads = (yield* store.listBySourceType(["upload"])).map((d) => d.dataset_id)
      assert.isTrue(uploads.includes(dataset.dataset_id))
      assert.isFalse(uploads.includes(postgres.dataset_id))
      const both = (yield* store.listBySourceType(["upload", "postgres"])).map((d) => d.dataset_id)
      assert.isTrue(both.includes(dataset.dataset_id) && both.includes(postgres.dataset_id))
      assert.isFalse((yield* store.listBySourceType(["postgres"])).some((d) => d.dataset_id === dataset.dataset_id))
      assert.deepStrictEqual(yield* store.listBySourceType([]), [])
      assert.isTrue(yield* store.remove(tenant.tenant_id, dataset.dataset_id))
      assert.isFalse(yield* store.switchLoad({ ...again, load_id: first }, second))
    }))

  it.effect("alerts are found by dataset for refreshes and by schedule for the scheduler", () =>
    Effect.gen(function*() {
      const store = yield* AlertStore.AlertStore
      const tenant = yield* insertTenant({ createdAt: at(0) })
      const workspace = yield* insertWorkspace(tenant.tenant_id, "Analytics", at(0))
      const onRefresh = yield* newAlert(tenant.tenant_id, workspace.workspace_id, at(1))
      const hourly = yield* newAlert(tenant.tenant_id, workspace.workspace_id, at(2), {
        dataset_id: onRefresh.dataset_id,
        schedule: { after_refresh: false, cron: "0 * * * *" }
      })
      yield* store.insert(onRefresh)
      yield* store.insert(hourly)
      assert.deepStrictEqual((yield* store.listAfterRefresh(tenant.tenant_id, onRefresh.dataset_id)).map((a) => a.alert_id), [onRefresh.alert_id])
      const other = yield* insertTenant({ createdAt: at(0) })
      assert.deepStrictEqual(yield* store.listAfterRefresh(other.tenant_id, onRefresh.dataset_id), [])
      assert.isTrue((yield* store.listScheduled).some((a) => a.alert_id === hourly.alert_id))
      assert.isFalse((yield* store.listScheduled).some((a) => a.alert_id === onRefresh.alert_id))
      const scheduled: Alert.Alert = { ...onRefresh, schedule: { after_refresh: true, cron: "0 * * * *" }, updated_at: at(5) }
      assert.isTrue(yield* store.update(scheduled))
      assert.isTrue((yield* store.listScheduled).some((a) => a.alert_id === onRefresh.alert_id))
      assert.isTrue(yield* store.remove(tenant.tenant_id, hourly.alert_id))
      assert.isFalse((yield* store.listScheduled).some((a) => a.alert_id === hourly.alert_id))
    }))

  it.effect("the refresh log: each refresh as it ended, newest first a page at a time, its tenant's only, gone with its dataset", () =>
    Effect.gen(function*() {
      const { dataset, store, tenant } = yield* arrangeDataset
      const other = yield* insertTenant({ createdAt: at(0) })
      const refresh = (offset: number, overrides: Partial<DatasetRefresh.DatasetRefresh> = {}) =>
        Effect.map(Ids.uuidv7, (id): DatasetRefresh.DatasetRefresh => ({
          refresh_id: id,
          tenant_id: tenant.tenant_id,
          dataset_id: dataset.dataset_id,
          trigger: "upload",
          requested_by: { type: "user", id: "u-1" },
          status: "succeeded",
          row_count: 12_345_678_901,
          error: null,
          started_at: at(offset),
          finished_at: at(offset + 250),
          duration_ms: 250,
          ...overrides
        }))
      const first = yield* refresh(10)
      const failed = yield* refresh(20, { trigger: "schedule", requested_by: null, status: "failed", row_count: null, error: { code: "dataset/source-invalid", message: "No such table" } })
      const [low, high] = [yield* Ids.uuidv7, yield* Ids.uuidv7].sort()
      const tiedHigh = yield* refresh(30, { refresh_id: high, trigger: "manual" })
      const tiedLow = yield* refresh(30, { refresh_id: low })
      for (const r of [first, failed, tiedHigh, tiedLow]) yield* store.insertRefresh(r)
      const query = (take: number, after?: DatasetRefresh.DatasetRefresh) => ({
        take,
        sort: { field: "created_at" as const, direction: "desc" as const },
        after: after === undefined ? undefined : { value: after.started_at.getTime(), id: after.refresh_id },
        createdAtOrBefore: at(1_000_000)
      })
      const page1 = yield* store.listRefreshes(tenant.tenant_id, dataset.dataset_id, query(3))
      assert.deepStrictEqual(page1, [tiedLow, tiedHigh, failed])
      assert.deepStrictEqual(yield* store.listRefreshes(tenant.tenant_id, dataset.dataset_id, query(3, failed)), [first])
      // Another tenant's id for it, or a malformed id, finds nothing.
      assert.deepStrictEqual(yield* store.listRefreshes(other.tenant_id, dataset.dataset_id, query(10)), [])
      assert.deepStrictEqual(yield* store.listRefreshes(tenant.tenant_id, "not-an-id", query(10)), [])
      // Gone with its dataset.
      assert.isTrue(yield* store.remove(tenant.tenant_id, dataset.dataset_id))
      assert.deepStrictEqual(yield* store.listRefreshes(tenant.tenant_id, dataset.dataset_id, query(10)), [])
    }))
}
