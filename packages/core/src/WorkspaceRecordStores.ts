/**
 * The five workspace-record store ports (`WorkspaceRecords`) as one layer,
 * which a storage adapter builds from its five instances of the shape: the
 * wiring of each instance to its port, written once for every adapter.
 *
 * @since 0.1.0
 */
import { type Effect, Layer } from "effect"
import { AlertStore } from "./reports/AlertStore.ts"
import { DashboardStore } from "./reports/DashboardStore.ts"
import { DatasetStore } from "./datasets/DatasetStore.ts"
import { ExportScheduleStore } from "./exports/ExportScheduleStore.ts"
import { ReportStore } from "./reports/ReportStore.ts"

/** How an adapter builds each of the five stores. */
export interface Implementations<E, R> {
  readonly datasets: Effect.Effect<DatasetStore["Service"], E, R>
  readonly reports: Effect.Effect<ReportStore["Service"], E, R>
  readonly dashboards: Effect.Effect<DashboardStore["Service"], E, R>
  readonly alerts: Effect.Effect<AlertStore["Service"], E, R>
  readonly schedules: Effect.Effect<ExportScheduleStore["Service"], E, R>
}

/** The five stores, each built by the adapter's effect. */
export const layer = <E, R>(stores: Implementations<E, R>) =>
  Layer.mergeAll(
    Layer.effect(DatasetStore, stores.datasets),
    Layer.effect(ReportStore, stores.reports),
    Layer.effect(DashboardStore, stores.dashboards),
    Layer.effect(AlertStore, stores.alerts),
    Layer.effect(ExportScheduleStore, stores.schedules)
  )
