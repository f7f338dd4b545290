/**
 * The ExportStore in memory: one process's queue, with the same claiming
 * rules as the SQL store (`ExportStore.choose`).
 *
 * @since 0.1.0
 */
import { ExportJob, ExportStore, Ids, Pagination } from "@analytics/core"
import { Effect } from "effect"
import { set, write } from "./Transactions.ts"

interface Entry {
  readonly job: ExportJob.ExportJob
  readonly lease: string | null
  readonly leaseUntil: Date | null
}

/** A fresh in-memory export queue. */
export const make = Effect.sync(() => {
  const entries = new Map<string, Entry>()
  const holds = (entry: Entry, now: Date) => entry.leaseUntil !== null && entry.leaseUntil > now
  return ExportStore.ExportStore.of({
    insert: (job) => write(() => [undefined, set(entries, job.job_id, { job, lease: null, leaseUntil: null })]),
    find: (tenantId, jobId) =>
      Effect.sync(() => {
        const entry = entries.get(jobId)
        return entry !== undefined && entry.job.tenant_id === tenantId ? entry.job : undefined
      }),
    listBySchedule: (tenantId, scheduleId, query) =>
      Effect.sync(() =>
        Pagination.applyInMemory(
          [...entries.values()].map((e) => e.job).filter((job) => job.tenant_id === tenantId && job.delivery?.schedule_id === scheduleId),
          query,
          ExportStore.jobKey,
          (job) => job.created_at
        )
      ),
    claim: (request) =>
      Effect.gen(function*() {
        const running = new Map<string, number>()
        const due: Array<ExportJob.ExportJob> = []
        for (const entry of entries.values()) {
          const { job } = entry
          if (job.status === "running" && holds(entry, request.now)) {
            running.set(job.workspace_id, (running.get(job.workspace_id) ?? 0) + 1)
          } else if ((job.status === "queued" && job.run_after <= request.now) || job.status === "running") {
            due.push(job)
          }
        }
        const lease = yield* Ids.uuidv7
        const leaseUntil = new Date(request.now.getTime() + request.leaseMillis)
        return ExportStore.choose(due, running, request).map((job) => {
          const claimed = ExportStore.claimedAt(job, request.now)
          entries.set(job.job_id, { job: claimed, lease, leaseUntil })
          return { job: claimed, lease }
        })
      }),
    save: (claimed, job, leaseUntil) =>
      Effect.sync(() => {
        const entry = entries.get(job.job_id)
        if (entry === undefined || entry.lease !== claimed.lease || entry.job.status !== "running") return false
        entries.set(job.job_id, job.status === "running" ? { job, lease: claimed.lease, leaseUntil } : { job, lease: null, leaseUntil: null })
        return true
      }),
    cancel: (tenantId, jobId, at) =>
      Effect.sync(() => {
        const entry = entries.get(jobId)
        if (entry === undefined || entry.job.tenant_id !== tenantId) return undefined
        // A final job stays as it is.
        const canceled = ExportJob.next(entry.job, { _tag: "Canceled", at }) ?? entry.job
        entries.set(jobId, { job: canceled, lease: null, leaseUntil: null })
        return canceled
      }),
    nextDue: Effect.sync(() => {
      let earliest: Date | undefined
      for (const entry of entries.values()) {
        const due = entry.job.status === "queued" ? entry.job.run_after : entry.job.status === "running" ? entry.leaseUntil : null
        if (due !== null && (earliest === undefined || due < earliest)) earliest = due
      }
      return earliest
    }),
    depth: Effect.sync(() => {
      let queued = 0
      let running = 0
      for (const { job } of entries.values()) {
        if (job.status === "queued") queued++
        else if (job.status === "running") running++
      }
      return { queued, running }
    })
  })
})
