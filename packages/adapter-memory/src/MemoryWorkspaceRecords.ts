/**
 * Records that belong to a workspace of a tenant, in memory (the
 * DatasetStore, the ReportStore, the AlertStore, the DashboardStore and the ExportScheduleStore): found by id in their tenant, listed newest first per workspace,
 * replaced and deleted within the current transaction.
 *
 * @since 0.1.0
 */
import { type Alert, AlertStore, type Dashboard, DashboardStore, type Dataset, DatasetStore, type ExportSchedule, ExportScheduleStore, Pagination, type Report, ReportStore } from "@analytics/core"
import { Effect } from "effect"
import { restore, set, write } from "./Transactions.ts"

interface Owned {
  readonly tenant_id: string
  readonly workspace_id: string
  readonly created_at: Date
}

/** The store methods over records identified by `idOf`. */
export const make = <A extends Owned, Id extends string>(idOf: (record: A) => Id, keyOf: (record: A) => Pagination.Keyset) =>
  Effect.sync(() => {
    const records = new Map<string, A>()
    const of = (tenantId: string, id: string) => {
      const record = records.get(id)
      return record !== undefined && record.tenant_id === tenantId ? record : undefined
    }
    return {
      /** Every record (for the stores' own queries across workspaces). */
      all: () => records.values(),
      insert: (record: A) => write(() => [undefined, set(records, idOf(record), record)]),
      find: (tenantId: string, id: Id) => Effect.sync(() => of(tenantId, id)),
      list: (tenantId: string, workspaceId: string, query: Pagination.PageQuery<"created_at">) =>
        Effect.sync(() =>
          Pagination.applyInMemory(
            [...records.values()].filter((r) => r.tenant_id === tenantId && r.workspace_id === workspaceId),
            query,
            keyOf,
            (r) => r.created_at
          )
        ),
      update: (record: A) =>
        write(() => of(record.tenant_id, idOf(record)) === undefined ? [false, () => {}] : [true, set(records, idOf(record), record)]),
      remove: (tenantId: string, id: Id) =>
        write(() => {
          if (of(tenantId, id) === undefined) return [false, () => {}]
          const undo = restore(records, id)
          records.delete(id)
          return [true, undo]
        })
    }
  })

/** A fresh in-memory DatasetStore. */
export const datasetStore = Effect.map(make((d: Dataset.Dataset) => d.dataset_id, DatasetStore.datasetKey), ({ all, ...methods }) =>
  DatasetStore.DatasetStore.of({
    ...methods,
    // Only switchLoad writes what refreshes find (an edit racing a load would undo it).
    update: (dataset) =>
      Effect.flatMap(methods.find(dataset.tenant_id, dataset.dataset_id), (current) =>
        current === undefined ? Effect.succeed(false) : methods.update({
          ...dataset,
          load_id: current.load_id,
          columns: current.columns,
          row_count: current.row_count,
          refreshed_at: current.refreshed_at
        })),
    switchLoad: (dataset, from) =>
      Effect.flatMap(methods.find(dataset.tenant_id, dataset.dataset_id), (current) =>
        current === undefined || current.load_id !== from
          ? Effect.succeed(false)
          : methods.update({
            ...current,
            load_id: dataset.load_id,
            model: dataset.model,
            columns: dataset.columns,
            row_count: dataset.row_count,
            refreshed_at: dataset.refreshed_at,
            updated_at: dataset.updated_at
          })),
    listScheduled: Effect.sync(() => [...all()].filter((d) => d.refresh_cron !== null)),
    listUploads: Effect.sync(() => [...all()].filter((d) => d.source.type === "upload"))
  }))

/** A fresh in-memory ReportStore. */
export const reportStore = Effect.map(make((r: Report.Report) => r.report_id, ReportStore.reportKey), ({ all: _, ...methods }) =>
  ReportStore.ReportStore.of(methods))

/** A fresh in-memory AlertStore. */
export const alertStore = Effect.map(make((a: Alert.Alert) => a.alert_id, AlertStore.alertKey), ({ all, ...methods }) =>
  AlertStore.AlertStore.of({
    ...methods,
    listAfterRefresh: (tenantId, datasetId) =>
      Effect.sync(() => [...all()].filter((a) => a.tenant_id === tenantId && a.dataset_id === datasetId && a.schedule.after_refresh)),
    listScheduled: Effect.sync(() => [...all()].filter((a) => a.schedule.cron !== undefined))
  }))

/** A fresh in-memory DashboardStore. */
export const dashboardStore = Effect.map(make((d: Dashboard.Dashboard) => d.dashboard_id, DashboardStore.dashboardKey), ({ all: _, ...methods }) =>
  DashboardStore.DashboardStore.of(methods))

/** A fresh in-memory ExportScheduleStore (one process: a claim needs no lock). */
export const exportScheduleStore = Effect.map(
  make((s: ExportSchedule.ExportSchedule) => s.schedule_id, ExportScheduleStore.scheduleKey),
  ({ all, ...methods }) =>
    ExportScheduleStore.ExportScheduleStore.of({
      ...methods,
      claimDue: (now, limit) =>
        Effect.sync(() =>
          [...all()]
            .filter((s) => s.enabled && s.next_run_at !== null && s.next_run_at <= now)
            .sort((a, b) => a.next_run_at!.getTime() - b.next_run_at!.getTime())
            .slice(0, limit)
        )
    })
)
