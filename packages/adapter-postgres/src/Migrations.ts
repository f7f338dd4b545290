/**
 * The database schema, as versioned migrations kept in code (no files to ship
 * or find at run time), shared by PostgreSQL and PGlite.
 *
 * Append new migrations with the next id; never edit one that has shipped.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Migrator from "effect/sql/Migrator"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import { datasets, reports, alerts, datasetSchedules, dashboards, datasetLoads, reportFilters, datasetRefreshes, alertChecks } from "./migrations/Analytics.ts"
import { directory } from "./migrations/Directory.ts"
import { exportJobs, exportSchedules, jobsBySchedule, scheduleRunAs } from "./migrations/Exports.ts"
import { initial, idempotencyPurgeIndex, tenantLimits } from "./migrations/Platform.ts"
import { rateLimits, rateLimitLogs } from "./migrations/RateLimits.ts"
import { sessions } from "./migrations/Sessions.ts"
import { auditLog, grants, grantRecipients, comments, tenantBranding, grantOpens } from "./migrations/Sharing.ts"
import { webhooks } from "./migrations/Webhooks.ts"

/** The table where applied migration ids are recorded. */
export const migrationsTable = "analytics_migrations"

/** Every migration, keyed `<id>_<name>`. */
export const migrations: Record<string, Effect.Effect<void, unknown, SqlClient.SqlClient>> = {
  "1_initial": initial,
  "2_idempotency_purge_index": idempotencyPurgeIndex,
  "3_rate_limits": rateLimits,
  "4_tenant_limits": tenantLimits,
  "5_webhooks": webhooks,
  "6_directory": directory,
  "7_datasets": datasets,
  "8_reports": reports,
  "9_alerts": alerts,
  "10_dataset_schedules": datasetSchedules,
  "11_dashboards": dashboards,
  "12_audit_log": auditLog,
  "13_grants": grants,
  "14_grant_recipients": grantRecipients,
  "15_export_jobs": exportJobs,
  "16_export_schedules": exportSchedules,
  "17_dataset_loads": datasetLoads,
  "18_rate_limit_logs": rateLimitLogs,
  "19_report_filters": reportFilters,
  "20_schedule_run_as": scheduleRunAs,
  "21_comments": comments,
  "22_sessions": sessions,
  "23_jobs_by_schedule": jobsBySchedule,
  "24_dataset_refreshes": datasetRefreshes,
  "25_alert_checks": alertChecks,
  "26_tenant_branding": tenantBranding,
  "27_grant_opens": grantOpens
}

/** An arbitrary constant: the advisory lock that serialises `migrate` across processes. */
const migrationLockKey = 7_431_205_311

const runMigrator = Migrator.make({})({
  loader: Migrator.fromRecord(migrations),
  table: migrationsTable
})

/**
 * Applies pending migrations; returns those it applied (none when up to date).
 *
 * The whole run is one transaction holding a transaction-level advisory lock,
 * so processes that migrate at once run one after the other, and the later
 * ones find nothing to do. The Migrator alone also survives that race (its
 * `LOCK TABLE`, and a re-check when creating its table fails), but the lock
 * makes it independent of those internals and creates the migrations table
 * in the same transaction as the schema.
 */
export const migrate: Effect.Effect<
  ReadonlyArray<readonly [id: number, name: string]>,
  Migrator.MigrationError | SqlError,
  SqlClient.SqlClient
> = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(
    Effect.andThen(sql`SELECT pg_advisory_xact_lock(${migrationLockKey})`, runMigrator)
  )
})
