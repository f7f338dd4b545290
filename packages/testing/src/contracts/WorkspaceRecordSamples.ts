/**
 * A sample record of each kind of workspace record, with every nested part
 * filled, and how an edit changes it: what `workspaceRecordsContract` runs
 * on, and what the kinds' own parts of the contract arrange with.
 *
 * @since 0.1.0
 */
import { Alert, AlertStore, Dashboard, DashboardStore, Dataset, DatasetStore, ExportJob, ExportSchedule, ExportScheduleStore, Ids, Report, ReportStore, Tenant, User, Workspace } from "@analytics/core"
import { Effect } from "effect"
import type { Sample } from "./WorkspaceRecordsContract.ts"

/** A new upload dataset of the workspace, with a model using every kind of member and row-level security. */
export const newDataset = (tenantId: Tenant.TenantId, workspaceId: Workspace.WorkspaceId, createdAt: Date, overrides: Partial<Dataset.Dataset> = {}) =>
  Effect.map(Ids.uuidv7, (id): Dataset.Dataset => ({
    dataset_id: id as Dataset.DatasetId,
    tenant_id: tenantId,
    workspace_id: workspaceId,
    name: `Sales ${createdAt.getTime()}`,
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
    created_at: createdAt,
    updated_at: createdAt,
    ...overrides
  }))

/** Datasets: an edit writes the name, description, model and schedule (what refreshes find is `switchLoad`'s). */
export const datasetSample: Sample<Dataset.Dataset, Dataset.DatasetId, DatasetStore.DatasetStore> = {
  kind: DatasetStore.datasets,
  make: newDataset,
  change: (dataset, at) => ({
    ...dataset,
    name: `${dataset.name} (renamed)`,
    description: "Orders since 2020",
    model: { dimensions: [{ name: "region", type: "string" }], measures: [{ name: "orders", aggregation: "count" }] },
    refresh_cron: "0 * * * *",
    updated_at: at
  })
}

/** Reports, with a page of a visual and filters. */
export const reportSample: Sample<Report.Report, Report.ReportId, typeof ReportStore.reports.store.Identifier> = {
  kind: ReportStore.reports,
  make: (tenantId, workspaceId, createdAt) =>
    Effect.gen(function*() {
      return {
        report_id: (yield* Ids.uuidv7) as Report.ReportId,
        tenant_id: tenantId,
        workspace_id: workspaceId,
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
        created_at: createdAt,
        updated_at: createdAt
      } satisfies Report.Report
    }),
  change: (report, at) => ({ ...report, name: "Sales", description: "Monthly", pages: [], filters: [], settings: { query_timeout_seconds: 5 }, updated_at: at })
}

/** Dashboards, with a tile. */
export const dashboardSample: Sample<Dashboard.Dashboard, Dashboard.DashboardId, typeof DashboardStore.dashboards.store.Identifier> = {
  kind: DashboardStore.dashboards,
  make: (tenantId, workspaceId, createdAt) =>
    Effect.gen(function*() {
      return {
        dashboard_id: (yield* Ids.uuidv7) as Dashboard.DashboardId,
        tenant_id: tenantId,
        workspace_id: workspaceId,
        name: "Executive",
        tiles: [{ id: "revenue", report_id: (yield* Ids.uuidv7) as Report.ReportId, visual_id: "revenue_total", x: 0, y: 0, width: 6, height: 4 }],
        created_at: createdAt,
        updated_at: createdAt
      } satisfies Dashboard.Dashboard
    }),
  change: (dashboard, at) => ({ ...dashboard, name: "Board", tiles: [{ ...dashboard.tiles[0]!, x: 6, width: 12 }], updated_at: at })
}

/** A new alert on a dataset (stored first: an alert points at its dataset). */
export const newAlert = (tenantId: Tenant.TenantId, workspaceId: Workspace.WorkspaceId, createdAt: Date, overrides: Partial<Alert.Alert> = {}) =>
  Effect.gen(function*() {
    const dataset = yield* newDataset(tenantId, workspaceId, createdAt)
    yield* (yield* DatasetStore.DatasetStore).insert(dataset)
    return {
      alert_id: (yield* Ids.uuidv7) as Alert.AlertId,
      tenant_id: tenantId,
      workspace_id: workspaceId,
      dataset_id: dataset.dataset_id,
      name: `Revenue ${createdAt.getTime()}`,
      measure: "revenue",
      filters: [{ member: "region", operator: "equals", values: ["EU"] }],
      condition: "lt",
      threshold: 90_000.5,
      schedule: { after_refresh: true },
      state: "ok",
      last_value: null,
      last_checked_at: null,
      created_at: createdAt,
      updated_at: createdAt,
      ...overrides
    } satisfies Alert.Alert as Alert.Alert
  })

/** Alerts: an edit, or a check that fired. */
export const alertSample: Sample<Alert.Alert, Alert.AlertId, typeof AlertStore.alerts.store.Identifier> = {
  kind: AlertStore.alerts,
  make: (tenantId, workspaceId, createdAt) => newAlert(tenantId, workspaceId, createdAt),
  change: (alert, at) => ({
    ...alert,
    name: "Revenue (EU)",
    filters: [],
    condition: "gt",
    threshold: 12.25,
    schedule: { after_refresh: false, cron: "0 * * * *" },
    state: "firing",
    last_value: 81_250.25,
    last_checked_at: at,
    updated_at: at
  })
}

/** A new export schedule of a report. */
export const newSchedule = (tenantId: Tenant.TenantId, workspaceId: Workspace.WorkspaceId, createdAt: Date, overrides: Partial<ExportSchedule.ExportSchedule> = {}) =>
  Effect.map(Ids.uuidv7, (id): ExportSchedule.ExportSchedule => ({
    schedule_id: id as ExportSchedule.ScheduleId,
    tenant_id: tenantId,
    workspace_id: workspaceId,
    report_id: id as unknown as Report.ReportId,
    name: `Weekly ${createdAt.getTime()}`,
    cron: "0 8 * * 1",
    timezone: "Europe/Paris",
    request: { format: "pdf", pages: ["Overview"], filters: [{ member: "region", operator: "equals", values: ["EU"] }] },
    recipients: ["ada@example.com", "grace@example.com"],
    run_as: "0190c0de-0000-7000-8000-0000000000aa" as User.UserId,
    enabled: true,
    created_by: { type: "user", id: "u-1" },
    next_run_at: createdAt,
    last_run: null,
    created_at: createdAt,
    updated_at: createdAt,
    ...overrides
  }))

/** Export schedules: retimed, disabled, and with a run recorded. */
export const scheduleSample: Sample<ExportSchedule.ExportSchedule, ExportSchedule.ScheduleId, typeof ExportScheduleStore.schedules.store.Identifier> = {
  kind: ExportScheduleStore.schedules,
  make: newSchedule,
  change: (schedule, at) => ({
    ...schedule,
    name: "Monthly",
    cron: "0 8 1 * *",
    timezone: "UTC",
    request: { format: "xlsx" },
    recipients: ["ada@example.com"],
    run_as: null,
    enabled: false,
    next_run_at: null,
    last_run: {
      at,
      trigger: "send_now",
      deliveries: [
        { recipient: "ada@example.com", job_id: schedule.schedule_id as unknown as ExportJob.JobId },
        { recipient: "grace@example.com", skipped: "Not an active user of the tenant" }
      ]
    },
    updated_at: at
  })
}
