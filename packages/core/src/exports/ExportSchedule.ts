/**
 * Scheduled exports (decision 0015): an export of a report made on
 * a cron schedule in a time zone and e-mailed to a distribution list. Each
 * run queues one job per recipient, run as that recipient (their row-level
 * security: they get what they would see live), in the report's workspace
 * queue like any other export. A recipient who is no user of the tenant
 * gets the view of the schedule's `run_as` user (decision 0015).
 *
 * @since 0.1.0
 */
import { Cron, Result, Schema } from "effect"
import type { Actor } from "../audit/AuditLog.ts"
import { ExportRequest, type JobId } from "./ExportJob.ts"
import { Uuid } from "../platform/Ids.ts"
import { ReportId } from "../reports/Report.ts"
import { Name, type TenantId } from "../tenancy/Tenant.ts"
import { Email, UserId } from "../directory/User.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"

/** A schedule's identifier. */
export const ScheduleId = Uuid.pipe(Schema.brand("ScheduleId"))
/** A schedule's identifier. */
export type ScheduleId = typeof ScheduleId.Type

/** An IANA time zone (`Europe/Paris`, `UTC`). */
export const TimeZone = Schema.String.check(
  Schema.isMaxCodePoints(64),
  Schema.makeFilter((zone) => Result.isSuccess(Cron.parse("0 0 * * *", zone)) || `Expected an IANA time zone such as "Europe/Paris", got "${zone}"`)
).annotate({ description: "An IANA time zone, e.g. \"Europe/Paris\"; the cron's hours are read in it" })

/** A five-field cron expression (minute hour day-of-month month day-of-week): schedules run at most once a minute. */
export const Cron5 = Schema.String.check(
  Schema.isMaxCodePoints(100),
  Schema.makeFilter((text) =>
    (text.trim().split(/\s+/).length === 5 && Result.isSuccess(Cron.parse(text))) ||
    `Expected a five-field cron expression such as "0 8 * * 1" (Mondays at 08:00), got "${text}"`
  )
)

/** The distribution list: 1 to 50 distinct addresses. */
export const Recipients = Schema.Array(Email).check(
  Schema.isMinLength(1),
  Schema.isMaxLength(50),
  Schema.makeFilter((emails) => new Set(emails).size === emails.length || "Each recipient is listed once")
).annotate({
  description:
    "E-mail addresses. A user of the tenant gets the export as they would see the report live; any other address gets the view of `run_as`"
})

/** Whose view recipients who are no users of the tenant get. */
export const RunAs = UserId.annotate({
  description:
    "A user of the tenant whose view (row-level security as theirs at each run) recipients who are no users of the tenant get; needed for such recipients when the report's data has row-level security. A member may name only themselves"
})

/** What a client sends to create a schedule: when, for whom, and the export (as `POST /v1/reports/{id}/export` takes it). */
export const ScheduleCreate = Schema.Struct({
  report_id: ReportId,
  name: Name,
  cron: Cron5,
  timezone: Schema.optionalKey(TimeZone.annotate({ default: "UTC" })),
  ...ExportRequest.fields,
  recipients: Recipients,
  run_as: Schema.optionalKey(RunAs),
  enabled: Schema.optionalKey(Schema.Boolean.annotate({ default: true }))
})
/** What a client sends to create a schedule. */
export type ScheduleCreate = typeof ScheduleCreate.Type

/** What a client may change (the report stays). */
export const ScheduleUpdate = Schema.Struct({
  name: Schema.optionalKey(Name),
  cron: Schema.optionalKey(Cron5),
  timezone: Schema.optionalKey(TimeZone),
  format: Schema.optionalKey(ExportRequest.fields.format),
  pages: Schema.optionalKey(Schema.NullOr(ExportRequest.fields.pages.schema)),
  visual_id: Schema.optionalKey(Schema.NullOr(ExportRequest.fields.visual_id.schema)),
  filters: Schema.optionalKey(ExportRequest.fields.filters.schema),
  dialect: Schema.optionalKey(Schema.NullOr(ExportRequest.fields.dialect.schema)),
  recipients: Schema.optionalKey(Recipients),
  run_as: Schema.optionalKey(Schema.NullOr(RunAs)),
  enabled: Schema.optionalKey(Schema.Boolean)
})
/** What a client may change. */
export type ScheduleUpdate = typeof ScheduleUpdate.Type

/** A recipient's part of a run: their job, or why they got none. */
export type Delivery =
  | { readonly recipient: string; readonly job_id: JobId }
  | { readonly recipient: string; readonly skipped: string }

/** One run of a schedule: by its cron or sent now by hand. */
export interface Run {
  readonly at: Date
  readonly trigger: "schedule" | "send_now"
  readonly deliveries: ReadonlyArray<Delivery>
}

/** A schedule as stored. */
export interface ExportSchedule {
  readonly schedule_id: ScheduleId
  readonly tenant_id: TenantId
  readonly workspace_id: WorkspaceId
  readonly report_id: ReportId
  readonly name: string
  readonly cron: string
  readonly timezone: string
  readonly request: ExportRequest
  readonly recipients: ReadonlyArray<string>
  /** Whose view recipients who are no users of the tenant get; `null`: none named. */
  readonly run_as: UserId | null
  readonly enabled: boolean
  readonly created_by: Actor
  /** When it runs next; `null` while disabled. */
  readonly next_run_at: Date | null
  readonly last_run: Run | null
  readonly created_at: Date
  readonly updated_at: Date
}

/** The first time after `after` the cron names, read in the time zone (both checked when decoded). */
export const nextRun = (cron: string, timezone: string, after: Date): Date =>
  Cron.next(Cron.parseUnsafe(cron, timezone), after)

/** When a schedule runs next from `now`: the cron's next time, or never while disabled. */
export const nextRunOf = (schedule: Pick<ExportSchedule, "cron" | "timezone" | "enabled">, now: Date): Date | null =>
  schedule.enabled ? nextRun(schedule.cron, schedule.timezone, now) : null

/** The export request of a create. */
export const requestOf = (input: ScheduleCreate): ExportRequest => {
  const { cron: _c, enabled: _e, name: _n, recipients: _r, report_id: _id, run_as: _a, timezone: _t, ...request } = input
  return request
}

/** The export request after an update: `null` removes an optional part. */
export const updatedRequest = (current: ExportRequest, change: ScheduleUpdate): ExportRequest => {
  const merged: Record<string, unknown> = { ...current }
  for (const key of ["format", "pages", "visual_id", "filters", "dialect"] as const) {
    if (!(key in change)) continue
    const value = change[key]
    if (value === null) delete merged[key]
    else merged[key] = value
  }
  return merged as ExportRequest
}
