/**
 * The export scheduler on a real PostgreSQL, as several hosts run it: three
 * schedulers on their own connection pools tick at once over the same due
 * schedules, and each occurrence runs exactly once (one job per recipient,
 * every schedule moved to its next time), since a claim skips the
 * schedules another holds until its transaction ends.
 */
import { type ExportSchedule, ExportSchedules, ExportScheduleStore, ExportStore, type Report, ReportStore, type Tenant, type User, DirectoryStore, type Workspace } from "@analytics/core"
import { insertTenant, insertWorkspace } from "@analytics/testing"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Context, Effect, Layer, Redacted } from "effect"
import { SqlStores } from "../src/index.ts"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"

const at = (offset: number) => new Date(1_900_000_000_000 + offset)

/** A clock stopped at `time`. */
const stoppedAt = (time: Date): Clock.Clock => {
  const nanos = BigInt(time.getTime()) * 1_000_000n
  return {
    currentTimeMillisUnsafe: () => time.getTime(),
    currentTimeMillis: Effect.succeed(time.getTime()),
    currentTimeNanosUnsafe: () => nanos,
    currentTimeNanos: Effect.succeed(nanos),
    monotonicTimeNanosUnsafe: () => nanos,
    monotonicTimeNanos: Effect.succeed(nanos),
    sleep: () => Effect.void
  }
}

const suite = databaseUrl === "" ? describe.skip : describe
describe("export scheduler on PostgreSQL", () => {
  suite(`several schedulers at once${databaseUrl === "" ? ` ${skippedForNoPostgres}` : ""}`, () => {
    it.live("run each due occurrence once", () =>
      Effect.gen(function*() {
        const url = Redacted.make(yield* freshDatabase(databaseUrl))
        // One host's stores, then two more on their own pools, as other processes would be.
        const first = yield* Layer.build(SqlStores.layerPg(url))
        const others = [yield* Layer.build(SqlStores.layerPg(url)), yield* Layer.build(SqlStores.layerPg(url))]
        const arrange = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provideContext(effect, first) as Effect.Effect<A, E>
        const tenant = yield* arrange(insertTenant({ createdAt: at(0) }))
        const tenantId = tenant.tenant_id as Tenant.TenantId
        const workspaceId = (yield* arrange(insertWorkspace(tenantId, "Sales", at(0)))).workspace_id as Workspace.WorkspaceId
        const report: Report.Report = {
          report_id: crypto.randomUUID() as Report.ReportId,
          tenant_id: tenantId,
          workspace_id: workspaceId,
          name: "Sales overview",
          description: null,
          pages: [],
          filters: [],
          settings: { query_timeout_seconds: 60 },
          created_at: at(0),
          updated_at: at(0)
        }
        yield* arrange(Effect.flatMap(ReportStore.ReportStore, (store) => store.insert(report)))
        const user: User.User = {
          user_id: crypto.randomUUID() as User.UserId,
          tenant_id: tenantId,
          email: "ada@example.com",
          name: "Ada",
          status: "active",
          // An admin: a schedule runs only while its maker may download the report, and an admin always may.
          roles: ["admin"],
          external_id: null,
          user_name: null,
          created_at: at(0),
          updated_at: at(0)
        }
        yield* arrange(Effect.flatMap(DirectoryStore.DirectoryStore, (store) => store.insertUser(user)))
        const count = 30
        for (let i = 0; i < count; i++) {
          const schedule: ExportSchedule.ExportSchedule = {
            schedule_id: crypto.randomUUID() as ExportSchedule.ScheduleId,
            tenant_id: tenantId,
            workspace_id: workspaceId,
            report_id: report.report_id,
            name: `Daily ${i}`,
            cron: "0 6 * * *",
            timezone: "UTC",
            request: { format: "pdf" },
            recipients: ["ada@example.com"],
            run_as: null,
            enabled: true,
            created_by: { type: "user", id: user.user_id },
            next_run_at: at(1_000 + i),
            last_run: null,
            created_at: at(i),
            updated_at: at(i)
          }
          yield* arrange(Effect.flatMap(ExportScheduleStore.ExportScheduleStore, (store) => store.insert(schedule)))
        }
        // Three schedulers tick together, again and again, until none finds work.
        const tick = (stores: Context.Context<any>) =>
          ExportSchedules.runDue.pipe(Effect.provideContext(stores), Effect.provideService(Clock.Clock, stoppedAt(at(60_000)))) as Effect.Effect<number, unknown>
        let ran = 0
        for (let round = 0; round < 5; round++) {
          const counts = yield* Effect.all([tick(first), tick(others[0]!), tick(others[1]!)], { concurrency: 3 })
          ran += counts.reduce((a, b) => a + b, 0)
        }
        assert.strictEqual(ran, count)
        // One job per occurrence (one recipient each), and every schedule at its next time.
        const claimed = yield* arrange(Effect.flatMap(ExportStore.ExportStore, (store) =>
          store.claim({ now: at(120_000), leaseMillis: 60_000, limit: 1_000, perWorkspace: 1_000 })))
        assert.lengthOf(claimed, count)
        assert.strictEqual(new Set(claimed.map((c) => c.job.delivery?.schedule_id)).size, count)
        for (const c of claimed) assert.strictEqual(c.job.delivery?.email, "ada@example.com")
        const schedules = yield* arrange(Effect.flatMap(ExportScheduleStore.ExportScheduleStore, (store) =>
          store.list(tenantId, workspaceId, { take: 100, sort: { field: "created_at", direction: "desc" }, after: undefined, createdAtOrBefore: at(1_000_000) })))
        for (const s of schedules) {
          assert.strictEqual(s.last_run?.trigger, "schedule")
          assert.isAbove(s.next_run_at!.getTime(), at(60_000).getTime())
        }
      }).pipe(Effect.scoped), 60_000)
  })
})
