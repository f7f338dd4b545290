/**
 * The datasets and reports part of the store contract: records round-trip
 * with their nested parts (model, source, columns; pages, settings), are
 * listed newest first per workspace, and are scoped by tenant. Run by
 * `storeContract` on every adapter.
 *
 * @since 0.1.0
 */
import { Alert, AlertStore, Dashboard, DashboardStore, Dataset, DatasetStore, Ids, Pagination, Report, ReportStore, Tenant, Workspace } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { insertTenant, insertWorkspace } from "../Fixtures.ts"

const at = (offset: number) => new Date(1_810_000_000_000 + offset)

const newDataset = (tenantId: Tenant.TenantId, workspaceId: Workspace.WorkspaceId, offset: number, overrides: Partial<Dataset.Dataset> = {}) =>
  Effect.map(Ids.uuidv7, (id): Dataset.Dataset => ({
    dataset_id: id as Dataset.DatasetId,
    tenant_id: tenantId,
    workspace_id: workspaceId,
    name: `Sales ${offset}`,
    description: null,
    source: { type: "upload" },
    model: {
      dimensions: [{ name: "region", type: "string" }, { name: "day", type: "time", column: "Order Date" }],
      measures: [{ name: "revenue", aggregation: "sum", column: "amount" }, { name: "per_order", expression: "revenue / 2" }],
      row_level_security: [{ roles: ["CFO"], all_rows: true }, { filter: { member: "region", operator: "equals", values: [{ attribute: "region" }] } }]
    },
    columns: [],
    row_count: null,
    refreshed_at: null,
    refresh_cron: null,
    load_id: null,
    created_at: at(offset),
    updated_at: at(offset),
    ...overrides
  }))

const newestFirst = (take: number, after?: Dataset.Dataset): Pagination.PageQuery<"created_at"> => ({
  take,
  sort: { field: "created_at", direction: "desc" },
  after: after === undefined ? undefined : { value: after.created_at.getTime(), id: after.dataset_id },
  createdAtOrBefore: at(1_000_000)
})

/** Registers the dataset tests on `it` (inside `storeContract`'s layer). */
export const datasetStoreContract = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("datasets round-trip, change and go, in their tenant only", () =>
    Effect.gen(function*() {
      const store = yield* DatasetStore.DatasetStore
      const tenant = yield* insertTenant({ createdAt: at(0) })
      const workspace = yield* insertWorkspace(tenant.tenant_id, "Analytics", at(0))
      const dataset = yield* newDataset(tenant.tenant_id, workspace.workspace_id, 1)
      yield* store.insert(dataset)
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, dataset.dataset_id), dataset)
      const other = yield* insertTenant({ createdAt: at(0) })
      assert.strictEqual(yield* store.find(other.tenant_id, dataset.dataset_id), undefined)
      assert.strictEqual(yield* store.find(tenant.tenant_id, "not-an-id" as Dataset.DatasetId), undefined)
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
      assert.isFalse(yield* store.update({ ...loaded, tenant_id: other.tenant_id }))
      assert.isFalse(yield* store.remove(other.tenant_id, dataset.dataset_id))
      assert.isTrue(yield* store.remove(tenant.tenant_id, dataset.dataset_id))
      assert.isFalse(yield* store.remove(tenant.tenant_id, dataset.dataset_id))
      assert.strictEqual(yield* store.find(tenant.tenant_id, dataset.dataset_id), undefined)
      const postgres = yield* newDataset(tenant.tenant_id, workspace.workspace_id, 2, {
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
      const store = yield* DatasetStore.DatasetStore
      const tenant = yield* insertTenant({ createdAt: at(0) })
      const workspace = yield* insertWorkspace(tenant.tenant_id, "Analytics", at(0))
      const dataset = yield* newDataset(tenant.tenant_id, workspace.workspace_id, 1)
      yield* store.insert(dataset)
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
      const postgres = yield* newDataset(tenant.tenant_id, workspace.workspace_id, 2, { source: { type: "postgres", table: "orders" } })
      yield* store.insert(postgres)
      const uploads = (yield* store.listUploads).map((d) => d.dataset_id)
      assert.isTrue(uploads.includes(dataset.dataset_id))
      assert.isFalse(uploads.includes(postgres.dataset_id))
      assert.isTrue(yield* store.remove(tenant.tenant_id, dataset.dataset_id))
      assert.isFalse(yield* store.switchLoad({ ...again, load_id: first }, second))
    }))

  it.effect("datasets are listed per workspace, newest first, page by page", () =>
    Effect.gen(function*() {
      const store = yield* DatasetStore.DatasetStore
      const tenant = yield* insertTenant({ createdAt: at(0) })
      const a = yield* insertWorkspace(tenant.tenant_id, "A", at(0))
      const b = yield* insertWorkspace(tenant.tenant_id, "B", at(0))
      const inA: Array<Dataset.Dataset> = []
      for (const offset of [10, 30, 20, 30]) {
        const dataset = yield* newDataset(tenant.tenant_id, a.workspace_id, offset)
        yield* store.insert(dataset)
        inA.push(dataset)
      }
      yield* store.insert(yield* newDataset(tenant.tenant_id, b.workspace_id, 40))
      const expected = [...inA].sort((x, y) => y.created_at.getTime() - x.created_at.getTime() || (x.dataset_id < y.dataset_id ? -1 : 1))
      const first = yield* store.list(tenant.tenant_id, a.workspace_id, newestFirst(3))
      assert.deepStrictEqual(first.map((d) => d.dataset_id), expected.slice(0, 3).map((d) => d.dataset_id))
      const rest = yield* store.list(tenant.tenant_id, a.workspace_id, newestFirst(3, first[2]))
      assert.deepStrictEqual(rest.map((d) => d.dataset_id), expected.slice(3).map((d) => d.dataset_id))
      assert.strictEqual((yield* store.list(tenant.tenant_id, b.workspace_id, newestFirst(10))).length, 1)
      const other = yield* insertTenant({ createdAt: at(0) })
      assert.deepStrictEqual(yield* store.list(other.tenant_id, a.workspace_id, newestFirst(10)), [])
    }))

  it.effect("reports round-trip with their pages and settings, listed per workspace, in their tenant only", () =>
    Effect.gen(function*() {
      const store = yield* ReportStore.ReportStore
      const tenant = yield* insertTenant({ createdAt: at(0) })
      const workspace = yield* insertWorkspace(tenant.tenant_id, "Analytics", at(0))
      const report: Report.Report = {
        report_id: (yield* Ids.uuidv7) as Report.ReportId,
        tenant_id: tenant.tenant_id,
        workspace_id: workspace.workspace_id,
        name: "Sales overview",
        description: null,
        pages: [{
          name: "Overview",
          visuals: [{
            id: "revenue_by_month",
            type: "line",
            dataset_id: (yield* Ids.uuidv7) as Dataset.DatasetId,
            query: { measures: ["revenue"], time_dimensions: [{ dimension: "day", granularity: "month", date_range: "last 3 months" }] },
            encoding: { x: "day__month", y: ["revenue"] }
          }]
        }],
        filters: [{ name: "region", dimension: "region", title: "Region" }, { name: "period", dimension: "day" }],
        settings: { query_timeout_seconds: 30 },
        created_at: at(1),
        updated_at: at(1)
      }
      yield* store.insert(report)
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, report.report_id), report)
      const other = yield* insertTenant({ createdAt: at(0) })
      assert.strictEqual(yield* store.find(other.tenant_id, report.report_id), undefined)
      const renamed: Report.Report = { ...report, name: "Sales", pages: [], filters: [], settings: { query_timeout_seconds: 5 }, updated_at: at(2) }
      assert.isTrue(yield* store.update(renamed))
      assert.deepStrictEqual(yield* store.list(tenant.tenant_id, workspace.workspace_id, { ...newestFirst(10) }), [renamed])
      assert.deepStrictEqual(yield* store.list(other.tenant_id, workspace.workspace_id, newestFirst(10)), [])
      assert.isFalse(yield* store.remove(other.tenant_id, report.report_id))
      assert.isTrue(yield* store.remove(tenant.tenant_id, report.report_id))
      assert.strictEqual(yield* store.find(tenant.tenant_id, report.report_id), undefined)
    }))

  it.effect("alerts round-trip; found by dataset for refreshes and by schedule for the scheduler", () =>
    Effect.gen(function*() {
      const store = yield* AlertStore.AlertStore
      const tenant = yield* insertTenant({ createdAt: at(0) })
      const workspace = yield* insertWorkspace(tenant.tenant_id, "Analytics", at(0))
      const dataset = yield* newDataset(tenant.tenant_id, workspace.workspace_id, 1)
      yield* (yield* DatasetStore.DatasetStore).insert(dataset)
      const alert = (offset: number, schedule: Alert.Alert["schedule"]): Effect.Effect<Alert.Alert> =>
        Effect.map(Ids.uuidv7, (id) => ({
          alert_id: id as Alert.AlertId,
          tenant_id: tenant.tenant_id,
          workspace_id: workspace.workspace_id,
          dataset_id: dataset.dataset_id,
          name: `Revenue ${offset}`,
          measure: "revenue",
          filters: [{ member: "region", operator: "equals", values: ["EU"] }],
          condition: "lt",
          threshold: 90_000.5,
          schedule,
          state: "ok",
          last_value: null,
          last_checked_at: null,
          created_at: at(offset),
          updated_at: at(offset)
        }))
      const onRefresh = yield* alert(1, { after_refresh: true })
      const hourly = yield* alert(2, { after_refresh: false, cron: "0 * * * *" })
      yield* store.insert(onRefresh)
      yield* store.insert(hourly)
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, onRefresh.alert_id), onRefresh)
      assert.deepStrictEqual((yield* store.listAfterRefresh(tenant.tenant_id, dataset.dataset_id)).map((a) => a.alert_id), [onRefresh.alert_id])
      const other = yield* insertTenant({ createdAt: at(0) })
      assert.deepStrictEqual(yield* store.listAfterRefresh(other.tenant_id, dataset.dataset_id), [])
      assert.isTrue((yield* store.listScheduled).some((a) => a.alert_id === hourly.alert_id))
      assert.isFalse((yield* store.listScheduled).some((a) => a.alert_id === onRefresh.alert_id))
      const fired: Alert.Alert = { ...onRefresh, state: "firing", last_value: 81_250.25, last_checked_at: at(5), updated_at: at(5) }
      assert.isTrue(yield* store.update(fired))
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, onRefresh.alert_id), fired)
      assert.isTrue(yield* store.remove(tenant.tenant_id, hourly.alert_id))
      assert.isFalse((yield* store.listScheduled).some((a) => a.alert_id === hourly.alert_id))
    }))

  it.effect("dashboards round-trip with their tiles, listed per workspace, in their tenant only", () =>
    Effect.gen(function*() {
      const store = yield* DashboardStore.DashboardStore
      const tenant = yield* insertTenant({ createdAt: at(0) })
      const workspace = yield* insertWorkspace(tenant.tenant_id, "Analytics", at(0))
      const dashboard: Dashboard.Dashboard = {
        dashboard_id: (yield* Ids.uuidv7) as Dashboard.DashboardId,
        tenant_id: tenant.tenant_id,
        workspace_id: workspace.workspace_id,
        name: "Executive",
        tiles: [{ id: "revenue", report_id: (yield* Ids.uuidv7) as Report.ReportId, visual_id: "revenue_total", x: 0, y: 0, width: 6, height: 4 }],
        created_at: at(1),
        updated_at: at(1)
      }
      yield* store.insert(dashboard)
      assert.deepStrictEqual(yield* store.find(tenant.tenant_id, dashboard.dashboard_id), dashboard)
      const moved: Dashboard.Dashboard = { ...dashboard, tiles: [{ ...dashboard.tiles[0]!, x: 6, width: 12 }], updated_at: at(2) }
      assert.isTrue(yield* store.update(moved))
      assert.deepStrictEqual(yield* store.list(tenant.tenant_id, workspace.workspace_id, newestFirst(10)), [moved])
      const other = yield* insertTenant({ createdAt: at(0) })
      assert.strictEqual(yield* store.find(other.tenant_id, dashboard.dashboard_id), undefined)
      assert.isFalse(yield* store.remove(other.tenant_id, dashboard.dashboard_id))
      assert.isTrue(yield* store.remove(tenant.tenant_id, dashboard.dashboard_id))
    }))
}
