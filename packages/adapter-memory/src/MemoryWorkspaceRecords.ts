/**
 * Records that belong to a tenant, in memory, implemented once: found by id
 * in their tenant, replaced and deleted within the current transaction; and,
 * for those of a workspace (the DatasetStore, the ReportStore, the
 * AlertStore, the DashboardStore and the ExportScheduleStore), listed newest
 * first per workspace. The CommentStore is built on the tenant part.
 *
 * @since 0.1.0
 */
import { Alert, AlertStore, DashboardStore, type Dataset, DatasetRefresh, DatasetStore, ExportScheduleStore, Pagination, ReportStore, type Tenant, WorkspaceRecords, WorkspaceRecordStores } from "@analytics/core"
import { Effect } from "effect"
import { restore, set, write } from "./Transactions.ts"

/** One table of records of a tenant, keyed by `idOf`: every record, and the tenant-scoped methods. */
export const tenantRecords = <A extends { readonly tenant_id: Tenant.TenantId }, Id extends string>(idOf: (record: A) => Id) =>
  Effect.sync(() => {
    const records = new Map<string, A>()
    const of = (tenantId: string, id: string) => {
      const record = records.get(id)
      return record !== undefined && record.tenant_id === tenantId ? record : undefined
    }
    const methods: WorkspaceRecords.TenantRecords<A, Id> = {
      insert: (record) => write(() => [undefined, set(records, idOf(record), record)]),
      find: (tenantId, id) => Effect.sync(() => of(tenantId, id)),
      update: (record) =>
        write(() => of(record.tenant_id, idOf(record)) === undefined ? [false, () => {}] : [true, set(records, idOf(record), record)]),
      remove: (tenantId, id) =>
        write(() => {
          if (of(tenantId, id) === undefined) return [false, () => {}]
          const undo = restore(records, id)
          records.delete(id)
          return [true, undo]
        })
    }
    /** Every record (for the stores' own queries across tenants). */
    const all = () => records.values()
    return { all, methods }
  })

/** The workspace-record methods of one kind, over a fresh table, and every record for the store's own queries. */
export const make = <A extends WorkspaceRecords.Owned, Id extends string, S>(kind: WorkspaceRecords.Kind<A, Id, S>) =>
  Effect.map(tenantRecords((record: A) => WorkspaceRecords.idOf(kind, record)), ({ all, methods }) => {
    const keyOf = WorkspaceRecords.keyOf(kind)
    const records: WorkspaceRecords.WorkspaceRecords<A, Id> = {
      ...methods,
      list: (tenantId, workspaceId, query) =>
        Effect.sync(() =>
          Pagination.applyInMemory(
            [...all()].filter((r) => r.tenant_id === tenantId && r.workspace_id === workspaceId),
            query,
            keyOf,
            (r) => r.created_at
          )
        )
    }
    return { all, records }
  })

/** A fresh in-memory DatasetStore. */
export const datasets = Effect.map(make(DatasetStore.datasets), ({ all, records }) => {
  const refreshes: Array<DatasetRefresh.DatasetRefresh> = []
  return DatasetStore.DatasetStore.of({
    ...records,
    // Only switchLoad writes what refreshes find (an edit racing a load would undo it).
    update: (dataset) =>
      Effect.flatMap(records.find(dataset.tenant_id, dataset.dataset_id), (current) =>
        current === undefined ? Effect.succeed(false) : records.update({
          ...dataset,
          load_id: current.load_id,
          columns: current.columns,
          row_count: current.row_count,
          refreshed_at: current.refreshed_at
        })),
    switchLoad: (dataset, from) =>
      Effect.flatMap(records.find(dataset.tenant_id, dataset.dataset_id), (current) =>
        current === undefined || current.load_id !== from
          ? Effect.succeed(false)
          : records.update({
            ...current,
            load_id: dataset.load_id,
            model: dataset.model,
            columns: dataset.columns,
            row_count: dataset.row_count,
            refreshed_at: dataset.refreshed_at,
            updated_at: dataset.updated_at
          })),
    listScheduled: Effect.sync(() => [...all()].filter((d) => d.refresh_cron !== null)),
    listBySourceType: (types) => Effect.sync(() => [...all()].filter((d) => types.includes(d.source.type))),
    insertRefresh: (refresh) => Effect.sync(() => void refreshes.push(refresh)),
    listRefreshes: (tenantId, datasetId, query) =>
      Effect.gen(function*() {
        // Gone with its dataset, as the SQL store's cascade.
        if ((yield* records.find(tenantId, datasetId as Dataset.DatasetId)) === undefined) return []
        const own = refreshes.filter((r) => r.tenant_id === tenantId && r.dataset_id === datasetId)
        return Pagination.applyInMemory(own, query, DatasetRefresh.refreshKey, (r) => r.started_at)
      })
  })
})

/** A fresh in-memory ReportStore. */
export const reports = Effect.map(make(ReportStore.reports), ({ records }) => ReportStore.ReportStore.of(records))

/** A fresh in-memory AlertStore. */
export const alerts = Effect.map(make(AlertStore.alerts), ({ all, records }) => {
  const checks: Array<Alert.AlertCheck> = []
  return AlertStore.AlertStore.of({
    ...records,
    listAfterRefresh: (tenantId, datasetId) =>
      Effect.sync(() => [...all()].filter((a) => a.tenant_id === tenantId && a.dataset_id === datasetId && a.schedule.after_refresh)),
    listScheduled: Effect.sync(() => [...all()].filter((a) => a.schedule.cron !== undefined)),
    insertCheck: (check) => Effect.sync(() => void checks.push(check)),
    listChecks: (tenantId, alertId, query) =>
      Effect.gen(function*() {
        // Gone with its alert, as the SQL store's cascade.
        if ((yield* records.find(tenantId, alertId as Alert.AlertId)) === undefined) return []
        const own = checks.filter((c) => c.tenant_id === tenantId && c.alert_id === alertId)
        return Pagination.applyInMemory(own, query, Alert.checkKey, (c) => c.checked_at)
      })
  })
})

/** A fresh in-memory DashboardStore. */
export const dashboards = Effect.map(make(DashboardStore.dashboards), ({ records }) => DashboardStore.DashboardStore.of(records))

/** A fresh in-memory ExportScheduleStore (one process: a claim needs no lock). */
export const schedules = Effect.map(
  make(ExportScheduleStore.schedules),
  ({ all, records }) =>
    ExportScheduleStore.ExportScheduleStore.of({
      ...records,
      claimDue: (now, limit) =>
        Effect.sync(() =>
          [...all()]
            .filter((s) => s.enabled && s.next_run_at !== null && s.next_run_at <= now)
            .sort((a, b) => a.next_run_at!.getTime() - b.next_run_at!.getTime())
            .slice(0, limit)
        )
    })
)

/** The five workspace-record stores, in memory, fresh for each build. */
export const layer = WorkspaceRecordStores.layer({ datasets, reports, dashboards, alerts, schedules })
