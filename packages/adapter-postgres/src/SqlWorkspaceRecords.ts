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
import { type Alert, AlertStore, type Pagination, type Dashboard, DashboardStore, type Dataset, type DatasetRefresh, DatasetStore, type ExportSchedule, ExportScheduleStore, type Report, ReportStore, type WorkspaceRecords, WorkspaceRecordStores } from "@analytics/core"
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type * as Statement from "effect/sql/Statement"
import { afterNewestFirst } from "./SqlKeyset.ts"
import { parsed } from "./Jsonb.ts"
import { failAs, isId } from "./StoreErrors.ts"

/** A row as read: the record's columns, its tenant's among them. */
export type Row = Record<string, unknown> & { readonly tenant_id: string }

/** One table of records: where they live, how a record and its row map to each other. */
export interface Spec<A> {
  readonly table: string
  /** The id column. */
  readonly id: string
  /** The store's name in the operations of its StoreErrors (`DatasetStore.find`). */
  readonly name: string
  /** Columns held as jsonb: written as JSON text (a null as SQL NULL); the drivers parse them back. */
  readonly jsonb?: ReadonlyArray<string>
  /** Columns the drivers may return as text (bigint, numeric): read back as numbers, a null kept. */
  readonly numeric?: ReadonlyArray<string>
  /** How a record becomes its row where more than its jsonb columns change (by default: as it is). */
  readonly toRow?: (record: A) => Record<string, unknown>
  /** How a row becomes its record where more than its numeric columns change (by default: as it is; rows were validated on the way in). */
  readonly fromRow?: (row: Row) => A
  /** Columns `update` never writes, besides the id, the owners and the creation time. */
  readonly kept?: ReadonlyArray<string>
}

/** A spec's two directions, its defaults filled in. */
const codecOf = <A>(spec: Spec<A>) => {
  const convert = (columns: ReadonlyArray<string> | undefined, as: (value: unknown) => unknown) => (values: Record<string, unknown>) =>
    columns === undefined ? values : { ...values, ...Object.fromEntries(columns.map((c) => [c, values[c] === null ? null : as(values[c])])) }
  const jsonb = convert(spec.jsonb, (value) => JSON.stringify(value))
  const numeric = convert(spec.numeric, Number)
  return {
    toRow: (record: A) => jsonb(spec.toRow === undefined ? record as Record<string, unknown> : spec.toRow(record)),
    fromRow: (row: Row): A => spec.fromRow === undefined ? numeric(row) as A : spec.fromRow(numeric(row) as Row)
  }
}

/** The tenant-scoped methods of one table, the `SqlClient` they run on, and `where` for the store's own queries. */
export const tenantRecords = <A extends { readonly tenant_id: string }, Id extends string>(spec: Spec<A>) =>
  Effect.map(SqlClient.SqlClient, (sql) => {
    const table = sql(spec.table)
    const id = sql(spec.id)
    const fail = (operation: string) => failAs(`${spec.name}.${operation}`)
    const { fromRow, toRow } = codecOf(spec)
    const methods: WorkspaceRecords.TenantRecords<A, Id> = {
      insert: (record) => sql`INSERT INTO ${table} ${sql.insert(toRow(record))}`.pipe(Effect.asVoid, fail("insert")),
      find: (tenantId, recordId) => {
        if (!isId(tenantId) || !isId(recordId)) return Effect.succeed(undefined)
        return sql<Row>`SELECT * FROM ${table} WHERE tenant_id = ${tenantId} AND ${id} = ${recordId}`.pipe(
          Effect.map(([row]) => row === undefined ? undefined : fromRow(row)),
          fail("find")
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
    const where = (operation: string, condition: Statement.Fragment) =>
      sql<Row>`SELECT * FROM ${table} WHERE ${condition} ORDER BY created_at, ${id}`.pipe(Effect.map((rows) => rows.map(fromRow)), fail(operation))
    return { sql, fail, fromRow, where, methods }
  })

/** The workspace-record methods of one table (tenant records, listed per workspace), with what `tenantRecords` gives. */
export const make = <A extends { readonly tenant_id: string }, Id extends string>(spec: Spec<A>) =>
  Effect.map(tenantRecords<A, Id>(spec), ({ fail, fromRow, sql, where, methods }) => {
    const records: WorkspaceRecords.WorkspaceRecords<A, Id> = {
      ...methods,
      list: (tenantId, workspaceId, query) => {
        if (!isId(tenantId) || !isId(workspaceId)) return Effect.succeed([])
        return sql<Row>`SELECT * FROM ${sql(spec.table)}
          WHERE tenant_id = ${tenantId} AND workspace_id = ${workspaceId} AND created_at <= ${query.createdAtOrBefore}
            ${afterNewestFirst(sql, query, spec.id)}
          ORDER BY created_at DESC, ${sql(spec.id)} ASC LIMIT ${query.take}`.pipe(Effect.map((rows) => rows.map(fromRow)), fail("list"))
      }
    }
    return { sql, where, records }
  })

const json = (value: unknown) => JSON.stringify(value)

/** A refresh log entry as its row holds it. */
interface RefreshRow {
  readonly refresh_id: string
  readonly tenant_id: string
  readonly dataset_id: string
  readonly trigger: DatasetRefresh.Trigger
  readonly requested_by: unknown
  readonly status: DatasetRefresh.Status
  readonly row_count: number | string | null
  readonly error: unknown
  readonly started_at: Date
  readonly finished_at: Date
  readonly duration_ms: number
}

const refreshOf = (row: RefreshRow): DatasetRefresh.DatasetRefresh => ({
  refresh_id: row.refresh_id,
  tenant_id: row.tenant_id as DatasetRefresh.DatasetRefresh["tenant_id"],
  dataset_id: row.dataset_id,
  trigger: row.trigger,
  requested_by: row.requested_by === null ? null : parsed(row.requested_by),
  status: row.status,
  row_count: row.row_count === null ? null : Number(row.row_count),
  error: row.error === null ? null : parsed(row.error),
  started_at: row.started_at,
  finished_at: row.finished_at,
  duration_ms: row.duration_ms
})

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
const history = <R extends object>(sql: SqlClient.SqlClient, of: History, tenantId: string, ownerId: string, query: Pagination.PageQuery) =>
  !isId(tenantId) || !isId(ownerId)
    ? Effect.succeed<ReadonlyArray<R>>([])
    : sql<R>`SELECT * FROM ${sql(of.table)}
        WHERE tenant_id = ${tenantId} AND ${sql(of.owner)} = ${ownerId} AND ${sql(of.at)} <= ${query.createdAtOrBefore}
          ${afterNewestFirst(sql, query, of.id, undefined, of.at)}
        ORDER BY ${sql(of.at)} DESC, ${sql(of.id)} ASC LIMIT ${query.take}`.pipe(failAs(of.operation))

/** The DatasetStore over the `SqlClient` in context. */
export const datasets = Effect.map(
  make<Dataset.Dataset, Dataset.DatasetId>({
    table: "datasets",
    id: "dataset_id",
    name: "DatasetStore",
    jsonb: ["source", "model", "columns"],
    numeric: ["row_count"],
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
      listRefreshes: (tenantId, datasetId, query) =>
        Effect.map(history<RefreshRow>(sql, refreshHistory, tenantId, datasetId, query), (rows) => rows.map(refreshOf))
    })
)

/** The ReportStore over the `SqlClient` in context. */
export const reports = Effect.map(
  make<Report.Report, Report.ReportId>({
    table: "reports",
    id: "report_id",
    name: "ReportStore",
    jsonb: ["pages", "filters", "settings"]
  }),
  ({ records }) => ReportStore.ReportStore.of(records)
)

/** An alert's check as its row holds it (numeric columns come back as text). */
interface CheckRow extends Omit<Alert.AlertCheck, "threshold" | "value"> {
  readonly threshold: number | string
  readonly value: number | string | null
}

const checkOf = (row: CheckRow): Alert.AlertCheck => ({
  ...row,
  check_id: String(row.check_id),
  threshold: Number(row.threshold),
  value: row.value === null ? null : Number(row.value)
})

/** The AlertStore over the `SqlClient` in context. */
export const alerts = Effect.map(
  make<Alert.Alert, Alert.AlertId>({
    table: "alerts",
    id: "alert_id",
    name: "AlertStore",
    jsonb: ["filters", "schedule"],
    numeric: ["threshold", "last_value"]
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
      listChecks: (tenantId, alertId, query) =>
        Effect.map(history<CheckRow>(sql, checkHistory, tenantId, alertId, query), (rows) => rows.map(checkOf))
    })
)

/** The DashboardStore over the `SqlClient` in context. */
export const dashboards = Effect.map(
  make<Dashboard.Dashboard, Dashboard.DashboardId>({
    table: "dashboards",
    id: "dashboard_id",
    name: "DashboardStore",
    jsonb: ["tiles"]
  }),
  ({ records }) => DashboardStore.DashboardStore.of(records)
)

/** A run as stored: its time as ISO text inside jsonb. */
const runOf = (value: unknown): ExportSchedule.Run | null => {
  const run = parsed<(Omit<ExportSchedule.Run, "at"> & { readonly at: string }) | null>(value)
  return run === null ? null : { ...run, at: new Date(run.at) }
}

/** A schedule from its row. */
const scheduleOf = (row: Row): ExportSchedule.ExportSchedule => ({
  ...(row as unknown as ExportSchedule.ExportSchedule),
  request: parsed(row.request),
  recipients: parsed(row.recipients),
  created_by: parsed(row.created_by),
  last_run: runOf(row.last_run)
})

/** The ExportScheduleStore over the `SqlClient` in context. */
export const schedules = Effect.map(
  make<ExportSchedule.ExportSchedule, ExportSchedule.ScheduleId>({
    table: "export_schedules",
    id: "schedule_id",
    name: "ExportScheduleStore",
    jsonb: ["request", "recipients", "created_by", "last_run"],
    fromRow: scheduleOf
  }),
  ({ records, sql }) =>
    ExportScheduleStore.ExportScheduleStore.of({
      ...records,
      // Locked until the caller's transaction ends; another scheduler skips them meanwhile.
      claimDue: (now, limit) =>
        sql<Row>`SELECT * FROM export_schedules
          WHERE enabled AND next_run_at <= ${now} ORDER BY next_run_at, schedule_id LIMIT ${limit} FOR UPDATE SKIP LOCKED`.pipe(
          Effect.map((rows) => rows.map(scheduleOf)),
          failAs("ExportScheduleStore.claimDue")
        )
    })
)

/** The five workspace-record stores over the `SqlClient` in context. */
export const layer = WorkspaceRecordStores.layer({ datasets, reports, dashboards, alerts, schedules })
