/**
 * Records that belong to a tenant, over `SqlClient` (PostgreSQL and
 * PGlite), implemented once and parameterised by table, id column and row
 * codec: found by id in their tenant, replaced and deleted; and, for those
 * of a workspace (the DatasetStore, the ReportStore, the AlertStore, the
 * DashboardStore and the ExportScheduleStore), listed newest first per
 * workspace. The CommentStore is built on the tenant part. Nested parts
 * (models, pages, settings) are jsonb.
 *
 * @since 0.1.0
 */
import { Alert, AlertStore, type Pagination, type Dashboard, DashboardStore, type Dataset, DatasetRefresh, DatasetStore, type ExportSchedule, ExportScheduleStore, AuditLog, type Report, ReportStore, type WorkspaceRecords, WorkspaceRecordStores } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type * as Statement from "effect/sql/Statement"
import * as Rows from "./Rows.ts"
import { afterNewestFirst } from "./SqlKeyset.ts"
import { failAs, isId } from "./StoreErrors.ts"

/** One table of records: where they live, how a record and its row map to each other. */
export interface Spec<A, S extends Rows.RowSchema> {
  readonly table: string
  /** The id column. */
  readonly id: string
  /** The store's name in the operations of its StoreErrors (`DatasetStore.find`). */
  readonly name: string
  /** The table's row as read (`SELECT *`): every column the record has, jsonb parsed, numbers from text. */
  readonly row: S
  /** Columns held as jsonb: written as JSON text (a null as SQL NULL). */
  readonly jsonb?: ReadonlyArray<string>
  /** How a record becomes its row where more than its jsonb columns change (by default: as it is). */
  readonly toRow?: (record: A) => Record<string, unknown>
  /**
   * How a decoded row becomes its record (by default: as it is). The row
   * schema checks the shape; ids keep their brands and jsonb its nested
   * parts as they were validated on the way in.
   */
  readonly fromRow?: (row: S["Type"]) => A
  /** Columns `update` never writes, besides the id, the owners and the creation time. */
  readonly kept?: ReadonlyArray<string>
}

/** How a spec's records are written: their jsonb columns as JSON text. */
const rowWriter = <A>(spec: Pick<Spec<A, Rows.RowSchema>, "jsonb" | "toRow">) => {
  const jsonb = spec.jsonb ?? []
  return (record: A): Record<string, unknown> => {
    const values = spec.toRow === undefined ? record as Record<string, unknown> : spec.toRow(record)
    return { ...values, ...Object.fromEntries(jsonb.map((c) => [c, values[c] === null ? null : JSON.stringify(values[c])])) }
  }
}

/** The tenant-scoped methods of one table, the `SqlClient` they run on, and `where` for the store's own queries. */
export const tenantRecords = <A extends { readonly tenant_id: string }, Id extends string, S extends Rows.RowSchema>(spec: Spec<A, S>) =>
  Effect.map(SqlClient.SqlClient, (sql) => {
    const table = sql(spec.table)
    const id = sql(spec.id)
    const operation = (name: string) => `${spec.name}.${name}`
    const fail = (name: string) => failAs(operation(name))
    const toRow = rowWriter(spec)
    const rows = Rows.reader(spec.row, spec.fromRow ?? ((row) => row as unknown as A))
    const methods: WorkspaceRecords.TenantRecords<A, Id> = {
      insert: (record) => sql`INSERT INTO ${table} ${sql.insert(toRow(record))}`.pipe(Effect.asVoid, fail("insert")),
      find: (tenantId, recordId) => {
        if (!isId(tenantId) || !isId(recordId)) return Effect.succeed(undefined)
        return sql`SELECT * FROM ${table} WHERE tenant_id = ${tenantId} AND ${id} = ${recordId}`.pipe(
          rows.first(operation("find"))
        )
      },
      update: (record) => {
        const row = toRow(record)
        const recordId = row[spec.id] as string
        if (!isId(record.tenant_id) || !isId(recordId)) return Effect.succeed(false)
        return sql`UPDATE ${table} SET ${sql.update(row, [spec.id, "tenant_id", "workspace_id", "created_at", ...(spec.kept ?? [])])}
          WHERE tenant_id = ${record.tenant_id} AND ${id} = ${recordId} RETURNING ${id}`.pipe(
          Effect.map((rows) => rows.length > 0),
          fail("update")
        )
      },
      remove: (tenantId, recordId) => {
        if (!isId(tenantId) || !isId(recordId)) return Effect.succeed(false)
        return sql`DELETE FROM ${table} WHERE tenant_id = ${tenantId} AND ${id} = ${recordId} RETURNING ${id}`.pipe(
          Effect.map((rows) => rows.length > 0),
          fail("remove")
        )
      }
    }
    /** The records a condition selects, oldest first (the stores' own queries across workspaces). */
    const where = (name: string, condition: Statement.Fragment) =>
      sql`SELECT * FROM ${table} WHERE ${condition} ORDER BY created_at, ${id}`.pipe(rows.all(operation(name)))
    return { sql, fail, operation, rows, where, methods }
  })

/** The workspace-record methods of one table (tenant records, listed per workspace), with what `tenantRecords` gives. */
export const make = <A extends { readonly tenant_id: string }, Id extends string, S extends Rows.RowSchema>(spec: Spec<A, S>) =>
  Effect.map(tenantRecords<A, Id, S>(spec), ({ operation, rows, sql, where, methods }) => {
    const records: WorkspaceRecords.WorkspaceRecords<A, Id> = {
      ...methods,
      list: (tenantId, workspaceId, query) => {
        if (!isId(tenantId) || !isId(workspaceId)) return Effect.succeed([])
        return sql`SELECT * FROM ${sql(spec.table)}
          WHERE tenant_id = ${tenantId} AND workspace_id = ${workspaceId} AND created_at <= ${query.createdAtOrBefore}
            ${afterNewestFirst(sql, query, spec.id)}
          ORDER BY created_at DESC, ${sql(spec.id)} ASC LIMIT ${query.take}`.pipe(rows.all(operation("list")))
      }
    }
    return { sql, where, records, rows }
  })

const json = (value: unknown) => JSON.stringify(value)

/** The columns every workspace record has besides its own id. */
const owned = {
  tenant_id: Schema.String,
  workspace_id: Schema.String,
  created_at: Schema.Date,
  updated_at: Schema.Date
}

const DatasetRow = Schema.Struct({
  ...owned,
  dataset_id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  source: Rows.JsonObject,
  model: Rows.JsonObject,
  columns: Rows.JsonArray,
  row_count: Schema.NullOr(Rows.Numeric),
  refreshed_at: Schema.NullOr(Schema.Date),
  refresh_cron: Schema.NullOr(Schema.String),
  load_id: Schema.NullOr(Schema.String)
})

const RefreshRow = Schema.Struct({
  refresh_id: Schema.String,
  tenant_id: Schema.String,
  dataset_id: Schema.String,
  trigger: DatasetRefresh.Trigger,
  requested_by: Schema.NullOr(Rows.Jsonb(AuditLog.Actor)),
  status: DatasetRefresh.Status,
  row_count: Schema.NullOr(Rows.Numeric),
  error: Schema.NullOr(Rows.Jsonb(DatasetRefresh.Failure)),
  started_at: Schema.Date,
  finished_at: Schema.Date,
  duration_ms: Schema.Number
})

const refreshes = Rows.reader(RefreshRow, (row) => row as DatasetRefresh.DatasetRefresh)

/** Where a record's history is kept: its table, the owner's id column, its own id column, its time column. */
interface History {
  readonly table: string
  readonly owner: string
  readonly id: string
  readonly at: string
  /** The operation its failures name (`AlertStore.listChecks`). */
  readonly operation: string
}

const refreshHistory: History = { table: "dataset_refreshes", owner: "dataset_id", id: "refresh_id", at: "started_at", operation: "DatasetStore.listRefreshes" }
const checkHistory: History = { table: "alert_checks", owner: "alert_id", id: "check_id", at: "checked_at", operation: "AlertStore.listChecks" }

/**
 * One page of a record's history (a dataset's refreshes, an alert's
 * checks): its rows at or before the page's snapshot, newest first, after
 * the cursor's place.
 */
const history = <A>(
  sql: SqlClient.SqlClient,
  of: History,
  rows: Rows.Reader<A>,
  tenantId: string,
  ownerId: string,
  query: Pagination.PageQuery
) =>
  !isId(tenantId) || !isId(ownerId)
    ? Effect.succeed<ReadonlyArray<A>>([])
    : sql`SELECT * FROM ${sql(of.table)}
        WHERE tenant_id = ${tenantId} AND ${sql(of.owner)} = ${ownerId} AND ${sql(of.at)} <= ${query.createdAtOrBefore}
          ${afterNewestFirst(sql, query, of.id, undefined, of.at)}
        ORDER BY ${sql(of.at)} DESC, ${sql(of.id)} ASC LIMIT ${query.take}`.pipe(rows.all(of.operation))

/** The DatasetStore over the `SqlClient` in context. */
export const datasets = Effect.map(
  make<Dataset.Dataset, Dataset.DatasetId, typeof DatasetRow>({
    table: "datasets",
    id: "dataset_id",
    name: "DatasetStore",
    row: DatasetRow,
    jsonb: ["source", "model", "columns"],
    // Only switchLoad writes what refreshes find (an edit racing a load would undo it).
    kept: ["load_id", "columns", "row_count", "refreshed_at"]
  }),
  ({ records, sql, where }) =>
    DatasetStore.DatasetStore.of({
      ...records,
      switchLoad: (d, from) => {
        if (!isId(d.tenant_id) || !isId(d.dataset_id)) return Effect.succeed(false)
        const values = {
          load_id: d.load_id,
          model: json(d.model),
          columns: json(d.columns),
          row_count: d.row_count,
          refreshed_at: d.refreshed_at,
          updated_at: d.updated_at
        }
        // One statement, conditional on the load it replaces: the one switch of a load's rows.
        return sql`UPDATE datasets SET ${sql.update(values)}
          WHERE tenant_id = ${d.tenant_id} AND dataset_id = ${d.dataset_id} AND load_id IS NOT DISTINCT FROM ${from}::uuid
          RETURNING dataset_id`.pipe(Effect.map((rows) => rows.length > 0), failAs("DatasetStore.switchLoad"))
      },
      listScheduled: where("listScheduled", sql`refresh_cron IS NOT NULL`),
      listBySourceType: (types) =>
        types.length === 0 ? Effect.succeed([]) : where("listBySourceType", sql`source->>'type' IN ${sql.in(types)}`),
      insertRefresh: (r) =>
        sql`INSERT INTO dataset_refreshes ${
          sql.insert({
            refresh_id: r.refresh_id,
            tenant_id: r.tenant_id,
            dataset_id: r.dataset_id,
            trigger: r.trigger,
            requested_by: r.requested_by === null ? null : json(r.requested_by),
            status: r.status,
            row_count: r.row_count,
            error: r.error === null ? null : json(r.error),
            started_at: r.started_at,
            finished_at: r.finished_at,
            duration_ms: r.duration_ms
          })
        }`.pipe(Effect.asVoid, failAs("DatasetStore.insertRefresh")),
      listRefreshes: (tenantId, datasetId, query) => history(sql, refreshHistory, refreshes, tenantId, datasetId, query)
    })
)

const ReportRow = Schema.Struct({
  ...owned,
  report_id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  pages: Rows.JsonArray,
  filters: Rows.JsonArray,
  settings: Rows.JsonObject
})

/** The ReportStore over the `SqlClient` in context. */
export const reports = Effect.map(
  make<Report.Report, Report.ReportId, typeof ReportRow>({
    table: "reports",
    id: "report_id",
    name: "ReportStore",
    row: ReportRow,
    jsonb: ["pages", "filters", "settings"]
  }),
  ({ records }) => ReportStore.ReportStore.of(records)
)

const AlertState = Schema.Literals(["ok", "firing"])

const AlertRow = Schema.Struct({
  ...owned,
  alert_id: Schema.String,
  dataset_id: Schema.String,
  name: Schema.String,
  measure: Schema.String,
  filters: Rows.JsonArray,
  condition: Alert.Condition,
  threshold: Rows.Numeric,
  schedule: Rows.JsonObject,
  state: AlertState,
  last_value: Schema.NullOr(Rows.Numeric),
  last_checked_at: Schema.NullOr(Schema.Date)
})

const CheckRow = Schema.Struct({
  check_id: Schema.String,
  tenant_id: Schema.String,
  alert_id: Schema.String,
  trigger: Alert.CheckTrigger,
  measure: Schema.String,
  condition: Alert.Condition,
  threshold: Rows.Numeric,
  value: Schema.NullOr(Rows.Numeric),
  state: AlertState,
  transition: Schema.NullOr(Schema.Literals(["fired", "resolved"])),
  checked_at: Schema.Date
})

const checks = Rows.reader(CheckRow, (row) => row as Alert.AlertCheck)

/** The AlertStore over the `SqlClient` in context. */
export const alerts = Effect.map(
  make<Alert.Alert, Alert.AlertId, typeof AlertRow>({
    table: "alerts",
    id: "alert_id",
    name: "AlertStore",
    row: AlertRow,
    jsonb: ["filters", "schedule"]
  }),
  ({ records, sql, where }) =>
    AlertStore.AlertStore.of({
      ...records,
      listAfterRefresh: (tenantId, datasetId) =>
        isId(tenantId) && isId(datasetId)
          ? where("listAfterRefresh", sql`tenant_id = ${tenantId} AND dataset_id = ${datasetId} AND (schedule->>'after_refresh')::boolean`)
          : Effect.succeed([]),
      listScheduled: where("listScheduled", sql`schedule ? 'cron'`),
      insertCheck: (c) =>
        sql`INSERT INTO alert_checks ${
          sql.insert({
            check_id: c.check_id,
            tenant_id: c.tenant_id,
            alert_id: c.alert_id,
            trigger: c.trigger,
            measure: c.measure,
            condition: c.condition,
            threshold: c.threshold,
            value: c.value,
            state: c.state,
            transition: c.transition,
            checked_at: c.checked_at
          })
        }`.pipe(Effect.asVoid, failAs("AlertStore.insertCheck")),
      listChecks: (tenantId, alertId, query) => history(sql, checkHistory, checks, tenantId, alertId, query)
    })
)

const DashboardRow = Schema.Struct({
  ...owned,
  dashboard_id: Schema.String,
  name: Schema.String,
  tiles: Rows.JsonArray
})

/** The DashboardStore over the `SqlClient` in context. */
export const dashboards = Effect.map(
  make<Dashboard.Dashboard, Dashboard.DashboardId, typeof DashboardRow>({
    table: "dashboards",
    id: "dashboard_id",
    name: "DashboardStore",
    row: DashboardRow,
    jsonb: ["tiles"]
  }),
  ({ records }) => DashboardStore.DashboardStore.of(records)
)

/** A run as stored: its time as ISO text inside jsonb. */
const RunRow = Schema.Struct({
  at: Schema.DateFromString,
  trigger: Schema.Literals(["schedule", "send_now"]),
  deliveries: Schema.Array(Schema.Unknown)
})

const ScheduleRow = Schema.Struct({
  ...owned,
  schedule_id: Schema.String,
  report_id: Schema.String,
  name: Schema.String,
  cron: Schema.String,
  timezone: Schema.String,
  request: Rows.JsonObject,
  recipients: Rows.Jsonb(Schema.Array(Schema.String)),
  run_as: Schema.NullOr(Schema.String),
  enabled: Schema.Boolean,
  created_by: Rows.Jsonb(AuditLog.Actor),
  next_run_at: Schema.NullOr(Schema.Date),
  last_run: Schema.NullOr(Rows.Jsonb(RunRow))
})

/** The ExportScheduleStore over the `SqlClient` in context. */
export const schedules = Effect.map(
  make<ExportSchedule.ExportSchedule, ExportSchedule.ScheduleId, typeof ScheduleRow>({
    table: "export_schedules",
    id: "schedule_id",
    name: "ExportScheduleStore",
    row: ScheduleRow,
    jsonb: ["request", "recipients", "created_by", "last_run"]
  }),
  ({ records: methods, rows, sql }) =>
    ExportScheduleStore.ExportScheduleStore.of({
      ...methods,
      // Locked until the caller's transaction ends; another scheduler skips them meanwhile.
      claimDue: (now, limit) =>
        sql`SELECT * FROM export_schedules
          WHERE enabled AND next_run_at <= ${now} ORDER BY next_run_at, schedule_id LIMIT ${limit} FOR UPDATE SKIP LOCKED`.pipe(
          rows.all("ExportScheduleStore.claimDue")
        )
    })
)

/** The five workspace-record stores over the `SqlClient` in context. */
export const layer = WorkspaceRecordStores.layer({ datasets, reports, dashboards, alerts, schedules })
