/**
 * Use cases on scheduled exports: create, read, change and delete a
 * schedule; run it now by hand ("send now", a test send); and the
 * scheduler's tick, which runs every schedule whose time has come.
 *
 * A run queues one export job per recipient, run as that recipient as the
 * directory has them at the run (decision 0015: they get the data they
 * would see live, not the creator's); the worker mails each file. Jobs
 * wait in the report's workspace queue with every other export (rule 6),
 * so many schedules firing at once never starve other workspaces.
 * Schedules are managed by tenant admins and by members holding
 * `download` on the report, who manage their own.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import * as Access from "../sharing/Access.ts"
import * as Datasets from "../datasets/Datasets.ts"
import type { DatasetStore } from "../datasets/DatasetStore.ts"
import { DirectoryStore } from "../directory/DirectoryStore.ts"
import type { DocumentRenderers } from "./DocumentRenderers.ts"
import { type Forbidden, type NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import * as Exports from "./Exports.ts"
import {
  type Delivery,
  type ExportSchedule,
  nextRun,
  nextRunOf,
  requestOf,
  type Run,
  type ScheduleCreate,
  type ScheduleUpdate,
  updatedRequest
} from "./ExportSchedule.ts"
import { ExportScheduleStore, schedules } from "./ExportScheduleStore.ts"
import { ExportStore, jobKey } from "./ExportStore.ts"
import type { ExportJob } from "./ExportJob.ts"
import * as Grants from "../sharing/Grants.ts"
import type { GrantStore } from "../sharing/GrantStore.ts"
import { Limiter, type RateLimitedWith } from "../limits/Limiter.ts"
import * as OperationLimits from "../limits/OperationLimits.ts"
import * as Policy from "../sharing/Policy.ts"
import { type InvalidSort, type NewestFirstRequest, type Page, paginateNewestFirst } from "../platform/Pagination.ts"
import { type Member, memberOfUser } from "../auth/Principal.ts"
import type { Report } from "../reports/Report.ts"
import * as Reports from "../reports/Reports.ts"
import type * as Subjects from "../sharing/Subjects.ts"
import type { SecurityContext } from "../datasets/SemanticQuery.ts"
import { Transactor } from "../platform/Transactor.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"
import * as WorkspaceRecordUseCases from "../tenancy/WorkspaceRecordUseCases.ts"
import type { WorkspaceStore } from "../tenancy/WorkspaceStore.ts"

/** The schedule does not hold together (a recipient who is no user of the tenant). */
export class ScheduleInvalid extends TaggedFailure("ScheduleInvalid")<{
  readonly detail: string
}> {
  readonly code = "schedule/invalid" as const
}

/** What managing schedules reads. */
export type Services =
  | ExportScheduleStore
  | GrantStore
  | DirectoryStore
  | Subjects.Services
  | Datasets.Engines
  | DocumentRenderers

/** What a run writes: the jobs, in the schedule's transaction. */
export type RunServices = ExportScheduleStore | ExportStore | GrantStore | DirectoryStore | Subjects.Services | Transactor

type ManageError = NotFound | Forbidden | Grants.ShareExpired | StoreError

/** A schedule as its audit entries show it: what it sends, to whom, when; not its runs. */
export const shown: AuditLog.Shown<ExportSchedule> = {
  type: "export_schedule",
  id: (s) => s.schedule_id,
  workspace: (s) => s.workspace_id,
  detail: (s) => ({
    schedule_id: s.schedule_id,
    report_id: s.report_id,
    name: s.name,
    cron: s.cron,
    timezone: s.timezone,
    enabled: s.enabled,
    request: s.request,
    recipients: s.recipients,
    run_as: s.run_as
  })
}


/**
 * Who a recipient's file is made as, at a run: a user of the tenant as
 * themselves (rule 4: what they would see live); any other address as the
 * schedule's `run_as` user, or, when it names none, as nobody in particular,
 * which the report's data allows only without row-level security (read by
 * `rowLevelSecurity`, once a run); such an address sees no more rows than
 * `within` (the schedule's maker, when a delegate made it). A reason to
 * skip the recipient otherwise.
 */
const viewerOf = (
  schedule: Pick<ExportSchedule, "tenant_id" | "run_as">,
  rowLevelSecurity: Effect.Effect<boolean, StoreError, DatasetStore>,
  email: string,
  within: SecurityContext | undefined
) =>
  Effect.gen(function*(): Effect.fn.Return<{ readonly security: SecurityContext } | { readonly skipped: string }, StoreError, DirectoryStore | DatasetStore> {
    const directory = yield* DirectoryStore
    const user = yield* directory.findUserBy(schedule.tenant_id, { email })
    if (user !== undefined) {
      return user.status === "active" ? { security: yield* Datasets.securityContext(memberOfUser(user)) } : { skipped: "Not an active user of the tenant" }
    }
    if (schedule.run_as !== null) {
      const runAs = yield* directory.findUser(schedule.tenant_id, schedule.run_as)
      return runAs === undefined || runAs.status !== "active"
        ? { skipped: "Not a user of the tenant, and the schedule's run_as user is no longer active" }
        : { security: { ...(yield* Datasets.securityContext(memberOfUser(runAs))), within } }
    }
    if (yield* rowLevelSecurity) {
      return { skipped: "Not a user of the tenant, and the report's data has row-level security: the schedule names no run_as" }
    }
    return { security: { roles: [], attributes: { email }, within } }
  })

/** Whether any dataset the report's visuals read has row-level security policies. */
const hasRowLevelSecurity = (report: Report) =>
  Effect.map(Reports.datasetsOf(report.tenant_id, report.pages), (datasets) =>
    datasets.some((dataset) => (dataset.model.row_level_security ?? []).length > 0))

/**
 * Checks a schedule's export against its report, its `run_as` (an active
 * user; a member may name only themselves) and its recipients: one who is
 * no user of the tenant needs `run_as` when the report's data has
 * row-level security. A user deprovisioned later is skipped at each run.
 */
const validate = (
  member: Member,
  report: Report,
  schedule: Pick<ExportSchedule, "request" | "recipients" | "run_as">,
  newRecipients: ReadonlyArray<string>
) =>
  Effect.gen(function*() {
    yield* Policy.onSubject(member, "exportSchedules.create", report.report_id)
    yield* Exports.check(report, schedule.request)
    const directory = yield* DirectoryStore
    const rowLevelSecurity = yield* Effect.cached(hasRowLevelSecurity(report))
    if (schedule.run_as !== null) {
      if (!Policy.isAdmin(member) && schedule.run_as !== member.userId) {
        return yield* new ScheduleInvalid({ detail: "run_as: a member may name only themselves; a tenant admin may name any user" })
      }
      const runAs = yield* directory.findUser(member.tenantId, schedule.run_as)
      if (runAs === undefined || runAs.status !== "active") {
        return yield* new ScheduleInvalid({ detail: `run_as: ${schedule.run_as} is not an active user of this tenant` })
      }
    }
    for (const email of newRecipients) {
      const user = yield* directory.findUserBy(member.tenantId, { email })
      if (user !== undefined && user.status !== "active") {
        return yield* new ScheduleInvalid({ detail: `recipients: ${email} is a deprovisioned user of this tenant` })
      }
      if (user === undefined && schedule.run_as === null && (yield* rowLevelSecurity)) {
        return yield* new ScheduleInvalid({
          detail: `recipients: ${email} is no user of this tenant and the report's data has row-level security: name run_as, whose view such recipients get`
        })
      }
    }
  })

/** Creates a schedule of an export of a report; it first runs at the cron's next time. */
export const create = (
  member: Member,
  input: ScheduleCreate
): Effect.Effect<ExportSchedule, ManageError | Exports.ExportInvalid | ScheduleInvalid, Services | AuditLog.Recording> =>
  AuditLog.created(member.tenantId, shown, AuditLog.actorOf(member), Effect.gen(function*() {
    const report = yield* Reports.get(member.tenantId, input.report_id)
    return yield* WorkspaceRecordUseCases.create(schedules, { tenant_id: member.tenantId, workspace_id: report.workspace_id }, (_, now) =>
      Effect.gen(function*() {
        const base = { cron: input.cron, timezone: input.timezone ?? "UTC", enabled: input.enabled ?? true }
        const fields = {
          report_id: report.report_id,
          name: input.name,
          ...base,
          request: requestOf(input),
          recipients: input.recipients,
          run_as: input.run_as ?? null,
          created_by: { type: "user" as const, id: member.userId },
          next_run_at: nextRunOf(base, now),
          last_run: null
        }
        yield* validate(member, report, fields, fields.recipients)
        return fields
      }))
  }))

/** A schedule the member manages (the policy's `owner` rule: tenant admins all, others those they made); another one is NotFound to them. */
export const get = (
  member: Member,
  scheduleId: string,
  operation: Policy.MemberOperation = "exportSchedules.get"
): Effect.Effect<ExportSchedule, NotFound | StoreError, ExportScheduleStore> =>
  WorkspaceRecordUseCases.find(schedules, member.tenantId, scheduleId).pipe(
    Policy.owned(member, operation, { type: "schedule", id: scheduleId }, (schedule) => schedule.created_by)
  )

/** One page of a workspace's schedules, newest first (tenant admins; members manage theirs by id). */
export const list = (
  member: Member,
  workspaceId: WorkspaceId,
  request: NewestFirstRequest
): Effect.Effect<Page<ExportSchedule>, NotFound | StoreError | CursorError | InvalidSort, ExportScheduleStore | WorkspaceStore | CursorCodec> =>
  WorkspaceRecordUseCases.list(schedules, member.tenantId, workspaceId, request)

/**
 * One page of a schedule's run history, newest first: the jobs its runs
 * queued, one per recipient delivered to (its maker's and tenant admins';
 * anyone else's is NotFound, as the schedule is). A recipient a run
 * skipped has no job: the schedule's `last_run` says why.
 */
export const runs = (
  member: Member,
  scheduleId: string,
  request: NewestFirstRequest
): Effect.Effect<Page<ExportJob>, NotFound | StoreError | CursorError | InvalidSort, ExportScheduleStore | ExportStore | CursorCodec> =>
  Effect.gen(function*() {
    const schedule = yield* get(member, scheduleId, "exportSchedules.runs")
    const store = yield* ExportStore
    return yield* paginateNewestFirst(request, (query) => store.listBySchedule(member.tenantId, schedule.schedule_id, query), jobKey)
  })

/** Changes a schedule (checked again); its next run follows the new cron, zone or state. */
export const update = (
  member: Member,
  scheduleId: string,
  change: ScheduleUpdate
): Effect.Effect<ExportSchedule, ManageError | Exports.ExportInvalid | ScheduleInvalid, Services | AuditLog.Recording> =>
  AuditLog.updated(member.tenantId, shown, AuditLog.actorOf(member), get(member, scheduleId, "exportSchedules.update"), (found) =>
  WorkspaceRecordUseCases.update(schedules, scheduleId, Effect.succeed(found), (current, now) =>
    Effect.gen(function*() {
      const report = yield* Reports.get(member.tenantId, current.report_id)
      const timing = {
        cron: change.cron ?? current.cron,
        timezone: change.timezone ?? current.timezone,
        enabled: change.enabled ?? current.enabled
      }
      const retimed = timing.cron !== current.cron || timing.timezone !== current.timezone || timing.enabled !== current.enabled
      const updated: ExportSchedule = {
        ...current,
        ...timing,
        name: change.name ?? current.name,
        request: updatedRequest(current.request, change),
        recipients: change.recipients ?? current.recipients,
        run_as: change.run_as === undefined ? current.run_as : change.run_as,
        next_run_at: retimed ? nextRunOf(timing, now) : current.next_run_at
      }
      // A changed run_as is checked against every recipient; otherwise the new ones.
      const changedRunAs = updated.run_as !== current.run_as
      yield* validate(member, report, updated, changedRunAs ? updated.recipients : updated.recipients.filter((email) => !current.recipients.includes(email)))
      return updated
    })))

/** Deletes a schedule; jobs it queued already run. */
export const remove = (member: Member, scheduleId: string): Effect.Effect<void, NotFound | StoreError, ExportScheduleStore | AuditLog.Recording> =>
  Effect.asVoid(AuditLog.deleted(member.tenantId, shown, AuditLog.actorOf(member), get(member, scheduleId, "exportSchedules.delete"), () =>
    WorkspaceRecordUseCases.remove(schedules, member.tenantId, scheduleId)))

/**
 * Queues a run of `schedule`: a job per recipient who is still an active
 * user, run as them; the others are skipped, with the reason in the run.
 * (Every member of the tenant may open its reports, decision 0014; what
 * each sees of the rows is their row-level security.)
 */
const queueRun = (schedule: ExportSchedule, at: Date, trigger: Run["trigger"]) =>
  Effect.gen(function*() {
    const report = yield* Effect.orElseSucceed(Reports.get(schedule.tenant_id, schedule.report_id), () => undefined)
    const deliveries: Array<Delivery> = []
    const rowLevelSecurity = report === undefined ? Effect.succeed(false) : yield* Effect.cached(hasRowLevelSecurity(report))
    // A schedule hands the report out at each run: only while its maker may still download it (decision 0018).
    const makerMay = report === undefined || (yield* Grants.actorMay(schedule.tenant_id, schedule.created_by, "report", report.report_id, "download"))
    const maker = yield* Access.makerOf(schedule.tenant_id, schedule.created_by)
    // An address that is no user sees at most what a delegate who made the schedule sees.
    const within = maker._tag === "Delegate" ? yield* Datasets.securityContext(memberOfUser(maker.user)) : undefined
    for (const email of schedule.recipients) {
      if (report === undefined) {
        deliveries.push({ recipient: email, skipped: "The report no longer exists" })
        continue
      }
      if (!makerMay) {
        deliveries.push({ recipient: email, skipped: "The schedule's maker no longer holds download on this report" })
        continue
      }
      const viewer = yield* viewerOf(schedule, rowLevelSecurity, email, within)
      if ("skipped" in viewer) {
        deliveries.push({ recipient: email, skipped: viewer.skipped })
        continue
      }
      const job = yield* Exports.enqueue(schedule, {
        request: schedule.request,
        requested_by: schedule.created_by,
        security: viewer.security,
        delivery: { schedule_id: schedule.schedule_id, schedule_name: schedule.name, email }
      })
      deliveries.push({ recipient: email, job_id: job.job_id })
    }
    return { at, trigger, deliveries } satisfies Run
  })

/**
 * Runs a schedule now, by hand (a test send; its next scheduled run stays
 * as it was). Counted against the workspace's export limit, once.
 */
export const sendNow = (
  member: Member,
  scheduleId: string
): Effect.Effect<Run, NotFound | StoreError | RateLimitedWith<"rate-limit/exports-exceeded">, RunServices | Limiter | AuditLog.Recording> =>
  Effect.gen(function*() {
    const schedule = yield* get(member, scheduleId, "exportSchedules.sendNow")
    yield* (yield* Limiter).enforce(OperationLimits.apiExports(schedule.workspace_id))
    const at = new Date(yield* Clock.currentTimeMillis)
    return yield* (yield* Transactor).transaction(Effect.gen(function*() {
      const run = yield* queueRun(schedule, at, "send_now")
      yield* (yield* ExportScheduleStore).update({ ...schedule, last_run: run, updated_at: at })
      yield* AuditLog.record(member.tenantId, AuditLog.entryOn(shown, "sent_now", schedule, AuditLog.actorOf(member), { deliveries: run.deliveries }))
      return run
    }))
  })

/** Schedules one tick takes at most; the next tick takes the rest. */
const claimLimit = 20

/**
 * The scheduler's tick: runs every schedule whose time has come and moves
 * it to its next time, each schedule's jobs and new time written together.
 * Occurrences missed while no scheduler ran are run once, not once each.
 * Any number of hosts may tick on one database: a schedule is claimed by
 * one of them. Returns how many schedules ran.
 */
export const runDue: Effect.Effect<number, StoreError, RunServices> = Effect.gen(function*() {
  const now = new Date(yield* Clock.currentTimeMillis)
  return yield* (yield* Transactor).transaction(Effect.gen(function*() {
    const store = yield* ExportScheduleStore
    const due = yield* store.claimDue(now, claimLimit)
    for (const schedule of due) {
      const run = yield* queueRun(schedule, now, "schedule")
      yield* store.update({ ...schedule, last_run: run, next_run_at: nextRun(schedule.cron, schedule.timezone, now) })
    }
    return due.length
  }))
})
