/**
 * The export queue part of the store contract: jobs round-trip in their
 * tenant only; a claim takes due jobs fairly across workspaces within each
 * workspace's bound; only the lease holder writes a job; a lease that runs
 * out gives the job to the next claim; a canceled job stays canceled. Run
 * by `storeContract` on every adapter.
 *
 * @since 0.1.0
 */
import { ExportJob, ExportStore, Ids, Tenant } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { insertTenant } from "../Fixtures.ts"

// Far from other suites' jobs: claims see every tenant's queue.
const at = (offset: number) => new Date(2_500_000_000_000 + offset)

/** Registers the export queue tests on `it` (inside `storeContract`'s layer). */
export const exportStoreContract = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("export jobs: fair claims within each workspace's bound, writes only under the lease, leases that run out, cancels", () =>
    Effect.gen(function*() {
      const store = yield* ExportStore.ExportStore
      const tenant = yield* insertTenant({ createdAt: at(0) })
      const tenantId = tenant.tenant_id as Tenant.TenantId
      const [a, b] = [yield* Ids.uuidv7, yield* Ids.uuidv7]
      const job = (workspaceId: string, offset: number): Effect.Effect<ExportJob.ExportJob> =>
        Effect.map(Ids.uuidv7, (id) =>
          ExportJob.queued({
            job_id: id as ExportJob.JobId,
            tenant_id: tenantId,
            workspace_id: workspaceId,
            report_id: id,
            request: { format: "csv", visual_id: "total", filters: [{ member: "region", operator: "equals", values: ["EU"] }] },
            // A shared export's locked filters come back beside its request, as they went in.
            ...(offset === 2 ? { locked: [{ member: "channel", operator: "equals" as const, values: ["Online"] }] } : {}),
            requested_by: { type: "user", id: "u-1" },
            security: { roles: ["member"], attributes: { region: "EU" } },
            watermark: "viewer@example.com",
            // A scheduled job's recipient comes back as it went in.
            delivery: offset === 1 ? { schedule_id: id, schedule_name: "Weekly", email: "ada@example.com" } : null
          }, at(offset)))
      const a1 = yield* job(a, 1)
      const a2 = yield* job(a, 2)
      const a3 = yield* job(a, 3)
      const b1 = yield* job(b, 4)
      const later = { ...(yield* job(b, 5)), run_after: at(1_000_000) }
      const before = yield* store.depth
      for (const j of [a1, a2, a3, b1, later]) yield* store.insert(j)
      assert.deepStrictEqual(yield* store.find(tenantId, a1.job_id), a1)
      assert.deepStrictEqual(yield* store.find(tenantId, a2.job_id), a2)
      const other = yield* insertTenant({ createdAt: at(0) })
      assert.strictEqual(yield* store.find(other.tenant_id, a1.job_id), undefined)

      const request = { leaseMillis: 60_000, limit: 10, perWorkspace: 2 }
      const ids = (claims: ReadonlyArray<{ readonly job: ExportJob.ExportJob }>) => claims.map((c) => c.job.job_id)
      // The first of each workspace, then the second: a3 waits for a's bound, `later` for its time.
      const first = yield* store.claim({ ...request, now: at(100) })
      assert.deepStrictEqual(ids(first), [a1.job_id, b1.job_id, a2.job_id])
      assert.deepInclude(first[0]!.job, { status: "running", attempts: 1, started_at: at(100) })
      assert.deepStrictEqual(ids(yield* store.claim({ ...request, now: at(101) })), [])
      // The queue's depth: a3 and `later` wait, three run.
      assert.deepStrictEqual(yield* store.depth, { queued: before.queued + 2, running: before.running + 3 })
      // Only the lease holder writes.
      const [claimA1, claimB1, claimA2] = first
      const progressed = ExportJob.next(claimA1!.job, { _tag: "Progressed", percent: 40, at: at(110) })!
      assert.isTrue(yield* store.save(claimA1!, progressed, at(60_110)))
      assert.isFalse(yield* store.save({ ...claimA1!, lease: "not-the-lease" }, progressed, at(60_110)))
      assert.strictEqual((yield* store.find(tenantId, a1.job_id))!.percent_complete, 40)
      const result = { key: `exports/${a1.job_id}.csv`, filename: "total.csv", contentType: "text/csv", bytes: 42, warnings: [] }
      const done = ExportJob.next(progressed, { _tag: "Succeeded", result, at: at(120) })!
      assert.isTrue(yield* store.save(claimA1!, done, at(120)))
      assert.deepStrictEqual(yield* store.find(tenantId, a1.job_id), done)
      assert.isFalse(yield* store.save(claimA1!, done, at(121)), "a finished job changes no more")
      // a1 done: a3 may run.
      assert.deepStrictEqual(ids(yield* store.claim({ ...request, now: at(130) })), [a3.job_id])
      // A canceled job stays canceled; its worker's writes are refused.
      const canceled = yield* store.cancel(tenantId, b1.job_id, at(140))
      assert.deepInclude(canceled, { status: "canceled", finished_at: at(140) })
      assert.isFalse(yield* store.save(claimB1!, ExportJob.next(claimB1!.job, { _tag: "Progressed", percent: 10, at: at(141) })!, at(60_141)))
      assert.deepStrictEqual(yield* store.cancel(tenantId, a1.job_id, at(150)), done, "a finished job is not canceled")
      assert.strictEqual(yield* store.cancel(other.tenant_id, a2.job_id, at(150)), undefined)
      // The earliest due: a2's lease (60 100), before `later`'s time.
      const due = yield* store.nextDue
      assert.isDefined(due)
      assert.isAtMost(due!.getTime(), at(60_100).getTime())
      // a2's worker died: once its lease runs out, the next claim takes it, a second attempt; the old lease writes nothing.
      const again = yield* store.claim({ ...request, now: at(60_101) })
      assert.include(ids(again), a2.job_id)
      const retaken = again.find((c) => c.job.job_id === a2.job_id)!
      assert.strictEqual(retaken.job.attempts, 2)
      assert.isFalse(yield* store.save(claimA2!, ExportJob.next(claimA2!.job, { _tag: "Progressed", percent: 5, at: at(60_102) })!, at(120_102)))
      assert.isTrue(yield* store.save(retaken, ExportJob.next(retaken.job, { _tag: "Progressed", percent: 5, at: at(60_102) })!, at(120_102)))
      // Claims at once (two hosts) never exceed a workspace's bound together.
      const c = yield* Ids.uuidv7
      for (const offset of [200_000, 200_001, 200_002]) yield* store.insert(yield* job(c, offset))
      const racing = yield* Effect.all(
        [1, 2, 3].map(() => store.claim({ ...request, perWorkspace: 1, now: at(200_100) })),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(racing.flat().filter((claim) => claim.job.workspace_id === c).length, 1)
    }))

  it.effect("a schedule's jobs: listed newest first by its id (its runs' deliveries), a page at a time, in their tenant only", () =>
    Effect.gen(function*() {
      const store = yield* ExportStore.ExportStore
      const tenant = (yield* insertTenant({ createdAt: at(0) })).tenant_id as Tenant.TenantId
      const other = (yield* insertTenant({ createdAt: at(0) })).tenant_id as Tenant.TenantId
      const [schedule, another] = [yield* Ids.uuidv7, yield* Ids.uuidv7]
      // Finished jobs: claims (which see every tenant's queue) leave them alone.
      const job = (tenantId: Tenant.TenantId, scheduleId: string | null, offset: number, id?: string) =>
        Effect.map(Ids.uuidv7, (uuid): ExportJob.ExportJob => ({
          ...ExportJob.queued({
            job_id: (id ?? uuid) as ExportJob.JobId,
            tenant_id: tenantId,
            workspace_id: uuid,
            report_id: uuid,
            request: { format: "csv", visual_id: "total" },
            requested_by: { type: "user", id: "u-1" },
            security: { roles: ["member"], attributes: {} },
            delivery: scheduleId === null ? null : { schedule_id: scheduleId, schedule_name: "Weekly", email: `r${offset}@example.com` }
          }, at(10_000 + offset)),
          status: "canceled",
          finished_at: at(10_000 + offset)
        }))
      const first = yield* job(tenant, schedule, 1)
      const second = yield* job(tenant, schedule, 2)
      // Two of one run, made at the same moment: ties broken by id.
      const [low, high] = [yield* Ids.uuidv7, yield* Ids.uuidv7].sort()
      const tiedHigh = yield* job(tenant, schedule, 3, high)
      const tiedLow = yield* job(tenant, schedule, 3, low)
      for (const j of [first, second, tiedHigh, tiedLow, yield* job(tenant, another, 4), yield* job(tenant, null, 5), yield* job(other, schedule, 6)]) {
        yield* store.insert(j)
      }
      const query = (take: number, after?: ExportJob.ExportJob) => ({
        take,
        sort: { field: "created_at" as const, direction: "desc" as const },
        after: after === undefined ? undefined : ExportStore.jobKey(after),
        createdAtOrBefore: at(1_000_000)
      })
      const ids = (jobs: ReadonlyArray<ExportJob.ExportJob>) => jobs.map((j) => j.job_id)
      const page1 = yield* store.listBySchedule(tenant, schedule, query(3))
      assert.deepStrictEqual(ids(page1), [tiedLow.job_id, tiedHigh.job_id, second.job_id])
      assert.deepStrictEqual(page1[0], tiedLow)
      assert.deepStrictEqual(ids(yield* store.listBySchedule(tenant, schedule, query(3, page1[2]))), [first.job_id])
      assert.deepStrictEqual(ids(yield* store.listBySchedule(tenant, schedule, query(3, page1[0]))), [tiedHigh.job_id, second.job_id, first.job_id])
      assert.strictEqual((yield* store.listBySchedule(other, schedule, query(10))).length, 1)
      assert.deepStrictEqual(yield* store.listBySchedule(other, another, query(10)), [])
      assert.deepStrictEqual(yield* store.listBySchedule(tenant, "not-an-id", query(10)), [])
    }))
}
