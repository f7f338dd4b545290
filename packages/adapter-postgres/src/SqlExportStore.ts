/**
 * The ExportStore over `SqlClient` (PostgreSQL and PGlite): claims take
 * due jobs with `FOR UPDATE SKIP LOCKED` under a transaction-scoped
 * advisory lock, so that concurrent claims on several hosts count each
 * workspace's running jobs one after the other and never exceed its bound.
 *
 * @since 0.1.0
 */
import { AuditLog, ExportJob, ExportStore, Ids, type SemanticQuery, type Tenant } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.ts"
import { afterNewestFirst } from "./SqlKeyset.ts"
import { failAs, isId } from "./StoreErrors.ts"

const JobRow = Schema.Struct({
  job_id: Schema.String,
  tenant_id: Schema.String,
  workspace_id: Schema.String,
  report_id: Schema.String,
  request: Rows.JsonObject,
  requested_by_type: AuditLog.Actor.fields.type,
  requested_by_id: Schema.String,
  security: Rows.JsonObject,
  watermark: Schema.NullOr(Schema.String),
  delivery: Schema.NullOr(Rows.JsonObject),
  status: ExportJob.Status,
  percent_complete: Schema.Number,
  attempts: Schema.Number,
  failure: Schema.NullOr(Rows.Jsonb(Schema.Struct({ kind: Schema.Literals(["transient", "permanent"]), detail: Schema.String }))),
  result: Schema.NullOr(Rows.JsonObject),
  run_after: Schema.Date,
  lease: Schema.NullOr(Schema.String),
  lease_until: Schema.NullOr(Schema.Date),
  created_at: Schema.Date,
  started_at: Schema.NullOr(Schema.Date),
  finished_at: Schema.NullOr(Schema.Date),
  updated_at: Schema.Date
})

/**
 * A job's request as its column keeps it: with the job's locked filters, when
 * it has any, under `locked` beside what was asked (no column of their own).
 */
type StoredRequest = ExportJob.ExportRequest & { readonly locked?: ExportJob.ExportJob["locked"] }

const storedRequest = (job: ExportJob.ExportJob): StoredRequest =>
  job.locked === undefined || job.locked.length === 0 ? job.request : { ...job.request, locked: job.locked }

// The row has the job's shape; ids and its jsonb's nested parts were validated on the way in.
const jobs = Rows.reader(JobRow, ({ lease: _, lease_until: __, requested_by_id, requested_by_type, ...row }): ExportJob.ExportJob => ({
  ...row,
  job_id: row.job_id as ExportJob.JobId,
  tenant_id: row.tenant_id as Tenant.TenantId,
  ...requestOf(row.request as unknown as StoredRequest),
  security: row.security as unknown as SemanticQuery.SecurityContext,
  result: row.result as unknown as ExportJob.Result | null,
  delivery: row.delivery as unknown as ExportJob.Delivery | null,
  requested_by: { type: requested_by_type, id: requested_by_id }
}))

const runningCounts = Rows.reader(Schema.Struct({ workspace_id: Schema.String, n: Schema.Number }))
const depths = Rows.reader(Schema.Struct({ status: Schema.String, n: Schema.Number }))

/** The request asked, and the locked filters kept beside it. */
const requestOf = ({ locked, ...request }: StoredRequest): Pick<ExportJob.ExportJob, "request" | "locked"> =>
  locked === undefined ? { request } : { request, locked }

const json = (value: unknown) => value === null ? null : JSON.stringify(value)

/** The columns a job's state writes. */
const stateColumns = (job: ExportJob.ExportJob) => ({
  status: job.status,
  percent_complete: job.percent_complete,
  attempts: job.attempts,
  failure: json(job.failure),
  result: json(job.result),
  run_after: job.run_after,
  started_at: job.started_at,
  finished_at: job.finished_at,
  updated_at: job.updated_at
})

/** An arbitrary constant: the advisory lock that serialises claims. */
const claimLockKey = 7_431_205_312

/** The ExportStore over the `SqlClient` in context. */
export const make = Effect.map(SqlClient.SqlClient, (sql) =>
  ExportStore.ExportStore.of({
    insert: (job) =>
      sql`INSERT INTO export_jobs ${
        sql.insert({
          job_id: job.job_id,
          tenant_id: job.tenant_id,
          workspace_id: job.workspace_id,
          report_id: job.report_id,
          request: json(storedRequest(job)),
          requested_by_type: job.requested_by.type,
          requested_by_id: job.requested_by.id,
          security: json(job.security),
          watermark: job.watermark,
          delivery: json(job.delivery),
          created_at: job.created_at,
          ...stateColumns(job)
        })
      }`.pipe(Effect.asVoid, failAs("ExportStore.insert")),
    find: (tenantId, jobId) => {
      if (!isId(tenantId) || !isId(jobId)) return Effect.succeed(undefined)
      return sql`SELECT * FROM export_jobs WHERE tenant_id = ${tenantId} AND job_id = ${jobId}`.pipe(jobs.first("ExportStore.find"))
    },
    listBySchedule: (tenantId, scheduleId, query) => {
      if (!isId(tenantId) || !isId(scheduleId)) return Effect.succeed([])
      return sql`SELECT * FROM export_jobs
        WHERE tenant_id = ${tenantId} AND delivery->>'schedule_id' = ${scheduleId}
          AND created_at <= ${query.createdAtOrBefore} ${afterNewestFirst(sql, query, "job_id")}
        ORDER BY created_at DESC, job_id ASC LIMIT ${query.take}`.pipe(jobs.all("ExportStore.listBySchedule"))
    },
    claim: (request) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(${claimLockKey})`
        const lease = yield* Ids.uuidv7
        const leaseUntil = new Date(request.now.getTime() + request.leaseMillis)
        const running = yield* sql`SELECT workspace_id, count(*)::int AS n
          FROM export_jobs WHERE status = 'running' AND lease_until > ${request.now} GROUP BY workspace_id`.pipe(
          Effect.flatMap(runningCounts.decodeAll("ExportStore.claim"))
        )
        const due = yield* sql`SELECT * FROM export_jobs
          WHERE (status = 'queued' AND run_after <= ${request.now})
             OR (status = 'running' AND (lease_until IS NULL OR lease_until <= ${request.now}))
          ORDER BY created_at, job_id LIMIT ${request.limit * 8}
          FOR UPDATE SKIP LOCKED`.pipe(Effect.flatMap(jobs.decodeAll("ExportStore.claim")))
        const chosen = ExportStore.choose(due, new Map(running.map((r) => [r.workspace_id, r.n])), request)
        const claimed: Array<ExportStore.Claimed> = []
        for (const job of chosen) {
          const next = ExportStore.claimedAt(job, request.now)
          yield* sql`UPDATE export_jobs SET ${sql.update({ ...stateColumns(next), lease, lease_until: leaseUntil })}
            WHERE job_id = ${job.job_id}`
          claimed.push({ job: next, lease })
        }
        return claimed
      })).pipe(failAs("ExportStore.claim")),
    save: (claimed, job, leaseUntil) =>
      !isId(claimed.lease) ? Effect.succeed(false) : sql`UPDATE export_jobs SET ${
        sql.update({
          ...stateColumns(job),
          lease: job.status === "running" ? claimed.lease : null,
          lease_until: job.status === "running" ? leaseUntil : null
        })
      } WHERE job_id = ${job.job_id} AND lease = ${claimed.lease} AND status = 'running' RETURNING job_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("ExportStore.save")
      ),
    cancel: (tenantId, jobId, at) => {
      if (!isId(tenantId) || !isId(jobId)) return Effect.succeed(undefined)
      return sql`UPDATE export_jobs SET status = CASE WHEN status IN ('queued', 'running') THEN 'canceled' ELSE status END,
          finished_at = CASE WHEN status IN ('queued', 'running') THEN ${at} ELSE finished_at END,
          updated_at = CASE WHEN status IN ('queued', 'running') THEN ${at} ELSE updated_at END,
          lease = NULL, lease_until = NULL
        WHERE tenant_id = ${tenantId} AND job_id = ${jobId} RETURNING *`.pipe(jobs.first("ExportStore.cancel"))
    },
    nextDue: sql`SELECT min(CASE WHEN status = 'queued' THEN run_after ELSE lease_until END) AS due
      FROM export_jobs WHERE status IN ('queued', 'running')`.pipe(Rows.earliest("ExportStore.nextDue")),
    depth: sql`SELECT status, count(*)::int AS n
      FROM export_jobs WHERE status IN ('queued', 'running') GROUP BY status`.pipe(
      depths.all("ExportStore.depth"),
      Effect.map((rows) => ({
        queued: rows.find((row) => row.status === "queued")?.n ?? 0,
        running: rows.find((row) => row.status === "running")?.n ?? 0
      }))
    )
  }))
