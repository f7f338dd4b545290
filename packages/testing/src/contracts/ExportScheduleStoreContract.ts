/**
 * The export schedule part of the store contract: schedules round-trip
 * (their last run included) in their tenant only, list newest first per
 * workspace, and a claim takes the enabled schedules whose time has come,
 * soonest first, up to its limit. Run by `storeContract` on every adapter.
 *
 * @since 0.1.0
 */
import { ExportJob, ExportSchedule, ExportScheduleStore, Ids, Report, Tenant, User, Workspace } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { insertTenant, insertWorkspace } from "../Fixtures.ts"

// Far from other suites' times: claims see every tenant's schedules.
const at = (offset: number) => new Date(2_600_000_000_000 + offset)

const newSchedule = (tenantId: Tenant.TenantId, workspaceId: Workspace.WorkspaceId, offset: number, overrides: Partial<ExportSchedule.ExportSchedule> = {}) =>
  Effect.map(Ids.uuidv7, (id): ExportSchedule.ExportSchedule => ({
    schedule_id: id as ExportSchedule.ScheduleId,
    tenant_id: tenantId,
    workspace_id: workspaceId,
    report_id: id as unknown as Report.ReportId,
    name: `Weekly ${offset}`,
    cron: "0 8 * * 1",
    timezone: "Europe/Paris",
    request: { format: "pdf", pages: ["Overview"], filters: [{ member: "region", operator: "equals", values: ["EU"] }] },
    recipients: ["ada@example.com", "grace@example.com"],
    run_as: "0190c0de-0000-7000-8000-0000000000aa" as User.UserId,
    enabled: true,
    created_by: { type: "user", id: "u-1" },
    next_run_at: at(offset),
    last_run: null,
    created_at: at(offset),
    updated_at: at(offset),
    ...overrides
  }))

/** Registers the export schedule tests on `it` (inside `storeContract`'s layer). */
export const exportScheduleStoreContract = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("export schedules round-trip with their last run, list newest first, in their tenant only", () =>
    Effect.gen(function*() {
      const store = yield* ExportScheduleStore.ExportScheduleStore
      const tenant = yield* insertTenant({ createdAt: at(0) })
      const tenantId = tenant.tenant_id as Tenant.TenantId
      const workspace = (yield* insertWorkspace(tenantId, "Sales", at(0))).workspace_id as Workspace.WorkspaceId
      const first = yield* newSchedule(tenantId, workspace, 1)
      const second = yield* newSchedule(tenantId, workspace, 2)
      yield* store.insert(first)
      yield* store.insert(second)
      assert.deepStrictEqual(yield* store.find(tenantId, first.schedule_id), first)
      const ran: ExportSchedule.ExportSchedule = {
        ...first,
        enabled: false,
        next_run_at: null,
        last_run: {
          at: at(10),
          trigger: "send_now",
          deliveries: [
            { recipient: "ada@example.com", job_id: (yield* Ids.uuidv7) as ExportJob.JobId },
            { recipient: "grace@example.com", skipped: "Not an active user of the tenant" }
          ]
        },
        updated_at: at(10)
      }
      assert.isTrue(yield* store.update(ran))
      assert.deepStrictEqual(yield* store.find(tenantId, first.schedule_id), ran)
      const page = yield* store.list(tenantId, workspace, {
        take: 10,
        sort: { field: "created_at", direction: "desc" },
        after: undefined,
        createdAtOrBefore: at(1_000_000)
      })
      assert.deepStrictEqual(page.map((s) => s.schedule_id), [second.schedule_id, first.schedule_id])
      const other = (yield* insertTenant({ createdAt: at(0) })).tenant_id as Tenant.TenantId
      assert.strictEqual(yield* store.find(other, first.schedule_id), undefined)
      assert.isFalse(yield* store.update({ ...ran, tenant_id: other }))
      assert.isFalse(yield* store.remove(other, first.schedule_id))
      assert.isTrue(yield* store.remove(tenantId, first.schedule_id))
      assert.strictEqual(yield* store.find(tenantId, first.schedule_id), undefined)
    }))

  it.effect("a claim takes enabled schedules whose time has come, soonest first, up to its limit", () =>
    Effect.gen(function*() {
      const store = yield* ExportScheduleStore.ExportScheduleStore
      const tenantId = (yield* insertTenant({ createdAt: at(0) })).tenant_id as Tenant.TenantId
      const workspace = (yield* insertWorkspace(tenantId, "Sales", at(0))).workspace_id as Workspace.WorkspaceId
      const late = yield* newSchedule(tenantId, workspace, 5_000)
      const early = yield* newSchedule(tenantId, workspace, 4_000)
      const disabled = yield* newSchedule(tenantId, workspace, 3_000, { enabled: false, next_run_at: null })
      const future = yield* newSchedule(tenantId, workspace, 9_000)
      for (const s of [late, early, disabled, future]) yield* store.insert(s)
      const mine = (claimed: ReadonlyArray<ExportSchedule.ExportSchedule>) => claimed.filter((s) => s.tenant_id === tenantId).map((s) => s.schedule_id)
      assert.deepStrictEqual(mine(yield* store.claimDue(at(6_000), 100)), [early.schedule_id, late.schedule_id])
      assert.deepStrictEqual(mine(yield* store.claimDue(at(9_000), 100)), [early.schedule_id, late.schedule_id, future.schedule_id])
      assert.lengthOf(yield* store.claimDue(at(9_000), 1), 1)
      // Moved past the claim's time, a schedule is no longer due.
      yield* store.update({ ...early, next_run_at: at(20_000) })
      assert.deepStrictEqual(mine(yield* store.claimDue(at(6_000), 100)), [late.schedule_id])
    }))
}
