/**
 * Deleting a dataset that nothing uses: the reports with a visual of it,
 * the dashboards with a tile of those reports and the alerts on it would
 * stop working, so a dataset they use is refused (`DatasetInUse`, naming
 * each), nothing changed; the caller deletes or changes them first.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import type * as AuditLog from "../audit/AuditLog.ts"
import type { Dataset } from "../datasets/Dataset.ts"
import type { DatasetStore } from "../datasets/DatasetStore.ts"
import * as Datasets from "../datasets/Datasets.ts"
import type { Engines } from "../datasets/Datasets.ts"
import { type NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import { everyRow } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { alertKey, AlertStore } from "./AlertStore.ts"
import { dashboardKey, DashboardStore } from "./DashboardStore.ts"
import { datasetIdsOf } from "./Report.ts"
import { reportKey, ReportStore } from "./ReportStore.ts"

/** A record that uses a dataset, by id and name. */
export interface Use {
  readonly id: string
  readonly name: string
}

/** What uses a dataset, each newest first. */
export interface Uses {
  readonly reports: ReadonlyArray<Use>
  readonly dashboards: ReadonlyArray<Use>
  readonly alerts: ReadonlyArray<Use>
}

/** A dataset that reports, dashboards or alerts use is not deleted. */
export class DatasetInUse extends TaggedFailure("DatasetInUse")<{
  readonly datasetId: string
  readonly name: string
  readonly uses: Uses
}> {
  readonly code = "dataset/in-use" as const
  /** The sentence its problem says: each use by name, and that nothing was deleted. */
  get problemDetail(): string {
    const named = (what: string, uses: ReadonlyArray<Use>) => uses.length === 0 ? [] : [`${what} ${uses.map((u) => `"${u.name}"`).join(", ")}`]
    const { alerts, dashboards, reports } = this.uses
    return `Dataset "${this.name}" is used by ${[...named("the reports", reports), ...named("the dashboards", dashboards), ...named("the alerts", alerts)].join("; ")}. ` +
      "Nothing was deleted: delete them or take the dataset out of them first"
  }
}

/** Whether anything uses the dataset. */
export const used = (uses: Uses): boolean => uses.reports.length + uses.dashboards.length + uses.alerts.length > 0

/** The reports with a visual of the dataset, the dashboards with a tile of those reports, the alerts on it (all of its workspace's). */
export const usesOf = (dataset: Dataset): Effect.Effect<Uses, StoreError, ReportStore | DashboardStore | AlertStore> =>
  Effect.gen(function*() {
    const now = new Date(yield* Clock.currentTimeMillis)
    const { tenant_id: tenantId, workspace_id: workspaceId, dataset_id: datasetId } = dataset
    const reportStore = yield* ReportStore
    const dashboardStore = yield* DashboardStore
    const alertStore = yield* AlertStore
    const reports = (yield* everyRow((query) => reportStore.list(tenantId, workspaceId, query), reportKey, now))
      .filter((r) => datasetIdsOf(r.pages).includes(datasetId))
    const reportIds = new Set<string>(reports.map((r) => r.report_id))
    const dashboards = reportIds.size === 0
      ? []
      : (yield* everyRow((query) => dashboardStore.list(tenantId, workspaceId, query), dashboardKey, now))
        .filter((d) => d.tiles.some((t) => reportIds.has(t.report_id)))
    const alerts = (yield* everyRow((query) => alertStore.list(tenantId, workspaceId, query), alertKey, now))
      .filter((a) => a.dataset_id === datasetId)
    return {
      reports: reports.map((r) => ({ id: r.report_id, name: r.name })),
      dashboards: dashboards.map((d) => ({ id: d.dashboard_id, name: d.name })),
      alerts: alerts.map((a) => ({ id: a.alert_id, name: a.name }))
    }
  })

/** Deletes a dataset nothing uses (`Datasets.remove`); one that is used is refused naming what uses it, nothing changed. */
export const remove = (
  tenantId: TenantId,
  datasetId: string,
  by: AuditLog.Actor
): Effect.Effect<void, NotFound | DatasetInUse | StoreError, DatasetStore | Engines | AuditLog.Recording | ReportStore | DashboardStore | AlertStore> =>
  Effect.gen(function*() {
    const dataset = yield* Datasets.get(tenantId, datasetId)
    const uses = yield* usesOf(dataset)
    if (used(uses)) return yield* new DatasetInUse({ datasetId: dataset.dataset_id, name: dataset.name, uses })
    yield* Datasets.remove(tenantId, datasetId, by)
  })
