/**
 * Port: export schedules, scoped by tenant, and the scheduler's claim of
 * those that are due across every tenant.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { ExportSchedule, ScheduleId } from "./ExportSchedule.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"

/** A schedule's position in the newest-first list. */
export const scheduleKey = (schedule: ExportSchedule): Keyset => ({ value: schedule.created_at.getTime(), id: schedule.schedule_id })

/** Export schedules. */
export class ExportScheduleStore extends Context.Service<ExportScheduleStore, {
  readonly insert: (schedule: ExportSchedule) => Effect.Effect<void, StoreError>
  readonly find: (tenantId: TenantId, scheduleId: ScheduleId) => Effect.Effect<ExportSchedule | undefined, StoreError>
  /** One page of a workspace's schedules, newest first. */
  readonly list: (tenantId: TenantId, workspaceId: WorkspaceId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<ExportSchedule>, StoreError>
  readonly update: (schedule: ExportSchedule) => Effect.Effect<boolean, StoreError>
  readonly remove: (tenantId: TenantId, scheduleId: ScheduleId) => Effect.Effect<boolean, StoreError>
  /**
   * Up to `limit` enabled schedules of any tenant whose `next_run_at` has
   * come, oldest due first. Inside a transaction they stay locked until it
   * ends, and a concurrent claim skips them, so two schedulers on one
   * database never run the same occurrence.
   */
  readonly claimDue: (now: Date, limit: number) => Effect.Effect<ReadonlyArray<ExportSchedule>, StoreError>
}>()("@analytics/core/ExportScheduleStore") {}
