/**
 * The ExportStore over `SqlClient` (PostgreSQL and PGlite): claims take
 * due jobs with `FOR UPDATE SKIP LOCKED` under a transaction-scoped
 * advisory lock, so that concurrent claims on several hosts count each
 * workspace's running jobs one after the other and never exceed its bound.
 *
 * @since 0.1.0
 */
import { type ExportJob, ExportStore, Ids, type SemanticQuery, type Tenant } from "@analytics/core"
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { parsed } from "./Jsonb.ts"
import { afterNewestFirst } from "./SqlKeyset.ts"
import { failAs, isId } from "./StoreErrors.ts"

interface JobRow {
  readonly job_id: string
  readonly tenant_id: string
  readonly workspace_id: string
  readonly report_id: string
  readonly request: ExportJob.ExportRequest
  readonly requested_by_type: ExportJob.Requester["type"]
  readonly requested_by_id: string
  readonly security: SemanticQuery.SecurityContext
  readonly watermark: string | null
  readonly delivery: ExportJob.Delivery | null
  readonly status: ExportJob.Status
  readonly percent_complete: number
  readonly attempts: number
  readonly failure: ExportJob.Failure | null
  readonly result: ExportJob.Result | null
  readonly run_after: Date
  readonly lease: string | null
  readonly lease_until: Date | null
  readonly created_at: Date
  readonly started_at: Date | null
  readonly finished_at: Date | null
  readonly updated_at: Date
}


/**
 * A job's request as its column keeps it: with the job's locked filters, when
 * it has any, under `locked` beside what was asked (no column of their own).
 */
type StoredRequest = ExportJob.ExportRequest & { readonly locked?: ExportJob.ExportJob["locked"] }

const storedRequest = (job: ExportJob.ExportJob): StoredRequest =>
  job.locked === undefined || job.locked.length === 0 ? job.request : { ...job.request, locked: job.locked }

// Rows were validated on the way in.
const toJob = ({ lease: _, lease_until: __, requested_by_id, requested_by_type, ...row }: JobRow): ExportJob.ExportJob => ({
  ...row,
  job_id: row.job_id as ExportJob.JobId,
  tenant_id: row.tenant_id as Tenant.TenantId,
  ...requestOf(parsed<StoredRequest>(row.request)),
  security: parsed(row.security),
  failure: row.failure === null ? null : parsed(row.failure),
  result: row.result === null ? null : parsed(row.result),
  delivery: row.delivery === null ? null : parsed(row.delivery),
  requested_by: { type: requested_by_type, id: requested_by_id }
})

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
      return sql<JobRow>`SELECT * FROM export_jobs WHERE tenant_id = ${tenantId} AND job_id = ${jobId}`.pipe(
        Effect.map(([row]) => row === undefined ? undefined : toJob(row)),
        failAs("ExportStore.find")
      )
    },
    listBySchedule: (tenantId, scheduleId, query) => {
      if (!isId(tenantId) || !isId(scheduleId)) return Effect.succeed([])
      return sql<JobRow>`SELECT * FROM export_jobs
        WHERE tenant_id = ${tenantId} AND delivery->>'schedule_id' = ${scheduleId}
          AND created_at <= ${query.createdAtOrBefore} ${afterNewestFirst(sql, query, "job_id")}
        ORDER BY created_at DESC, job_id ASC LIMIT ${query.take}`.pipe(
        Effect.map((rows) => rows.map(toJob)),
        failAs("ExportStore.listBySchedule")
      )
    },
    claim: (request) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* sql`SELECT pg_advisory_xact_lock(${claimLockKey})`
        const lease = yield* Ids.uuidv7
        const leaseUntil = new Date(request.now.getTime() + request.leaseMillis)
        const running = yield* sql<{ readonly workspace_id: string; readonly n: number }>`SELECT workspace_id, count(*)::int AS n
          FROM export_jobs WHERE status = 'running' AND lease_until > ${request.now} GROUP BY workspace_id`
        const due = yield* sql<JobRow>`SELECT * FROM export_jobs
          WHERE (status = 'queued' AND run_after <= ${request.now})
             OR (status = 'running' AND (lease_until IS NULL OR lease_until <= ${request.now}))
          ORDER BY created_at, job_id LIMIT ${request.limit * 8}
          FOR UPDATE SKIP LOCKED`
        const chosen = ExportStore.choose(due.map(toJob), new Map(running.map((r) => [r.workspace_id, r.n])), request)
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
      return sql<JobRow>`UPDATE export_jobs SET status = CASE WHEN status IN ('queued', 'running') THEN 'canceled' ELSE status END,
          finished_at = CASE WHEN status IN ('queued', 'running') THEN ${at} ELSE finished_at END,
          updated_at = CASE WHEN status IN ('queued', 'running') THEN ${at} ELSE updated_at END,
          lease = NULL, lease_until = NULL
        WHERE tenant_id = ${tenantId} AND job_id = ${jobId} RETURNING *`.pipe(
        Effect.map(([row]) => row === undefined ? undefined : toJob(row)),
        failAs("ExportStore.cancel")
      )
    },
    nextDue: sql<{ readonly due: Date | null }>`SELECT min(CASE WHEN status = 'queued' THEN run_after ELSE lease_until END) AS due
      FROM export_jobs WHERE status IN ('queued', 'running')`.pipe(
      Effect.map(([row]) => row?.due ?? undefined),
      failAs("ExportStore.nextDue")
    ),
    depth: sql<{ readonly status: string; readonly n: number }>`SELECT status, count(*)::int AS n
      FROM export_jobs WHERE status IN ('queued', 'running') GROUP BY status`.pipe(
      Effect.map((rows) => ({
        queued: rows.find((row) => row.status === "queued")?.n ?? 0,
        running: rows.find((row) => row.status === "running")?.n ?? 0
      })),
      failAs("ExportStore.depth")
    )
  }))
