/**
 * Port: the export job queue, durable and fair across workspaces (decision
 * 0015). Workers `claim` due jobs under a lease: queued jobs whose wait
 * is over, and running jobs whose lease ran out (their worker died), so a
 * job is never lost. A worker writes its job only while its lease holds,
 * so a job is never finished twice. At most `perWorkspace` jobs of one
 * workspace run at once, and a claim takes the oldest job of each
 * workspace before the second of any: one busy workspace does not starve
 * the others.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import { type ExportJob, type JobId, next } from "./ExportJob.ts"
import type { TenantId } from "../tenancy/Tenant.ts"

/** A job a worker holds. */
export interface Claimed {
  readonly job: ExportJob
  /** Proves the lease when writing; a worker whose lease ran out writes nothing. */
  readonly lease: string
}

/** What one claim takes. */
export interface ClaimRequest {
  readonly now: Date
  readonly leaseMillis: number
  readonly limit: number
  /** At most this many running jobs per workspace, counting those other workers hold. */
  readonly perWorkspace: number
}

/**
 * Which due jobs a claim takes, in order: `due` oldest first, each
 * workspace's jobs ranked after those it already runs, the first of every
 * workspace before the second of any. (The memory store uses this; the SQL
 * store says the same in SQL.)
 */
export const choose = (
  due: ReadonlyArray<ExportJob>,
  runningPerWorkspace: ReadonlyMap<string, number>,
  request: Pick<ClaimRequest, "limit" | "perWorkspace">
): ReadonlyArray<ExportJob> => {
  const taken = new Map<string, number>()
  const ranked = [...due]
    .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.job_id < b.job_id ? -1 : 1))
    .map((job) => {
      const slot = (runningPerWorkspace.get(job.workspace_id) ?? 0) + (taken.get(job.workspace_id) ?? 0) + 1
      taken.set(job.workspace_id, (taken.get(job.workspace_id) ?? 0) + 1)
      return { job, slot }
    })
    .filter(({ slot }) => slot <= request.perWorkspace)
  return ranked
    .sort((a, b) => a.slot - b.slot || a.job.created_at.getTime() - b.job.created_at.getTime())
    .slice(0, request.limit)
    .map(({ job }) => job)
}

/** A claimed job as the claim leaves it. */
export const claimedAt = (job: ExportJob, now: Date): ExportJob => next(job, { _tag: "Claimed", at: now })!

/** The keyset position of a job in a newest-first list. */
export const jobKey = (job: ExportJob): Keyset => ({ value: job.created_at.getTime(), id: job.job_id })

/** Export jobs. */
export class ExportStore extends Context.Service<ExportStore, {
  readonly insert: (job: ExportJob) => Effect.Effect<void, StoreError>
  readonly find: (tenantId: TenantId, jobId: JobId) => Effect.Effect<ExportJob | undefined, StoreError>
  /** One page of the jobs a schedule made (its runs' deliveries, `delivery.schedule_id`), in `Pagination.applyInMemory` order. */
  readonly listBySchedule: (
    tenantId: TenantId,
    scheduleId: string,
    query: PageQuery<"created_at">
  ) => Effect.Effect<ReadonlyArray<ExportJob>, StoreError>
  /** Leases due jobs (see `choose`), each moved to `running` with one more attempt. */
  readonly claim: (request: ClaimRequest) => Effect.Effect<ReadonlyArray<Claimed>, StoreError>
  /**
   * Writes a claimed job's new state (progress, success, failure) while its
   * lease holds and it is still running, extending the lease to
   * `leaseUntil`; a job left running keeps the lease, any other lets it go.
   * `false` when the lease was lost or the job canceled meanwhile.
   */
  readonly save: (claimed: Claimed, job: ExportJob, leaseUntil: Date) => Effect.Effect<boolean, StoreError>
  /** Cancels a job that is not final; the job as it is after, or `undefined` when there is none. */
  readonly cancel: (tenantId: TenantId, jobId: JobId, at: Date) => Effect.Effect<ExportJob | undefined, StoreError>
  /** The earliest time a job may be due (a queued job's wait, a running job's lease), to sleep until. */
  readonly nextDue: Effect.Effect<Date | undefined, StoreError>
  /** How many jobs wait in the queue and how many run, across every worker (for the queue's gauges). */
  readonly depth: Effect.Effect<{ readonly queued: number; readonly running: number }, StoreError>
}>()("@analytics/core/ExportStore") {}
