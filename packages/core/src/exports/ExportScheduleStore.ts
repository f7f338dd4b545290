/**
 * Port: export schedules, scoped by tenant, and the scheduler's claim of
 * those that are due across every tenant.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { ExportSchedule, ScheduleId } from "./ExportSchedule.ts"
import type { Keyset } from "../platform/Pagination.ts"
import * as WorkspaceRecords from "../tenancy/WorkspaceRecords.ts"

/** Export schedules: workspace records, and the scheduler's claim. */
export class ExportScheduleStore extends Context.Service<ExportScheduleStore, WorkspaceRecords.WorkspaceRecords<ExportSchedule, ScheduleId> & {
  /**
   * Up to `limit` enabled schedules of any tenant whose `next_run_at` has
   * come, oldest due first. Inside a transaction they stay locked until it
   * ends, and a concurrent claim skips them, so two schedulers on one
   * database never run the same occurrence.
   */
  readonly claimDue: (now: Date, limit: number) => Effect.Effect<ReadonlyArray<ExportSchedule>, StoreError>
}>()("@analytics/core/ExportScheduleStore") {}

/** Export schedules as workspace records (a missing one is a `schedule`). */
export const schedules = WorkspaceRecords.kind({ resource: "schedule", id: "schedule_id", store: ExportScheduleStore })

/** A schedule's position in the newest-first list. */
export const scheduleKey: (schedule: ExportSchedule) => Keyset = WorkspaceRecords.keyOf(schedules)
