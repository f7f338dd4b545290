/**
 * What the ExportScheduleStore adds to the workspace-record contract
 * (`workspaceRecordsContract` runs the rest): a claim takes the enabled
 * schedules whose time has come, soonest first, up to its limit. Run by
 * `storeContract` on every adapter.
 *
 * @since 0.1.0
 */
import { ExportSchedule, ExportScheduleStore, Tenant, Workspace } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { insertTenant, insertWorkspace } from "../Fixtures.ts"
import { newSchedule } from "./WorkspaceRecordSamples.ts"

// Far from other suites' times: claims see every tenant's schedules.
const at = (offset: number) => new Date(2_600_000_000_000 + offset)

/** Registers the export schedule tests on `it` (inside `storeContract`'s layer). */
export const exportScheduleStoreContract = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("a claim takes enabled schedules whose time has come, soonest first, up to its limit", () =>
    Effect.gen(function*() {
      const store = yield* ExportScheduleStore.ExportScheduleStore
      const tenantId = (yield* insertTenant({ createdAt: at(0) })).tenant_id as Tenant.TenantId
      const workspace = (yield* insertWorkspace(tenantId, "Sales", at(0))).workspace_id as Workspace.WorkspaceId
      const late = yield* newSchedule(tenantId, workspace, at(5_000))
      const early = yield* newSchedule(tenantId, workspace, at(4_000))
      const disabled = yield* newSchedule(tenantId, workspace, at(3_000), { enabled: false, next_run_at: null })
      const future = yield* newSchedule(tenantId, workspace, at(9_000))
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
