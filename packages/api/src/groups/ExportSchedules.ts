/**
 * Scheduled exports (decision 0015).
 *
 * @since 0.1.0
 */
import { AuditLog, ExportJob, ExportSchedule, Workspace } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoints from "../Endpoints.ts"
import { Authentication } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import { JobJson } from "./Exports.ts"
import * as ResourceEndpoints from "../ResourceEndpoints.ts"

/** A recipient's part of a run: their job, or why they got none. */
export const RecipientDeliveryJson = Schema.Union([
  Schema.Struct({ recipient: Schema.String, job_id: ExportJob.JobId }),
  Schema.Struct({ recipient: Schema.String, skipped: Schema.String })
])

/** An export schedule as the API shows it: its timing, its export (as POST /v1/reports/{id}/export takes it) and its recipients. */
export const ScheduleJson = Schema.Struct({
  schedule_id: ExportSchedule.ScheduleId,
  workspace_id: Workspace.WorkspaceId,
  report_id: Schema.String,
  name: Schema.String,
  cron: Schema.String,
  timezone: Schema.String,
  ...ExportJob.ExportRequest.fields,
  recipients: Schema.Array(Schema.String),
  run_as: Schema.NullOr(Schema.String).annotate({ description: "Whose view recipients who are no users of the tenant get; null: none named" }),
  enabled: Schema.Boolean,
  created_by: AuditLog.Actor,
  next_run_at: Schema.NullOr(Schema.Date).annotate({ description: "When it runs next; null while disabled" }),
  last_run: Schema.NullOr(Schema.Struct({
    at: Schema.Date,
    trigger: Schema.Literals(["schedule", "send_now"]),
    deliveries: Schema.Array(RecipientDeliveryJson)
  })),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

/** A delivery of a schedule's run: the job it queued for one recipient, as GET /v1/jobs/{job_id} shows it. */
export const RunDeliveryJson = Schema.Struct({
  ...JobJson.fields,
  recipient: Schema.String.annotate({ description: "The address the file is (or was to be) e-mailed to" }),
  mail: Schema.NullOr(Schema.Literals(["sent", "logged"])).annotate({
    description: "How the file reached the recipient: `sent` (handed to the mail service) or `logged` (the deployment has no mail service, such as a host without SMTP_URL: " +
      "the message, its links included, was written to the service's log and nobody received it); null until the job has succeeded"
  })
})

/** A run as `send-now` answers it. */
export const RunJson = ScheduleJson.fields.last_run.members[0]


/** Scheduled exports (decision 0015). */
export const ExportSchedulesGroup = ResourceEndpoints.group("exportSchedules", {
  path: "/v1/export-schedules",
  json: ScheduleJson,
  listDescription: "A workspace's export schedules, newest first. Tenant admins only; members read theirs by id.",
  create: {
    payload: ExportSchedule.ScheduleCreate,
    error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.ExportInvalid, Problems.ScheduleInvalid],
    description: "Schedules an export of a report on a five-field cron in a time zone, e-mailed to `recipients` (users of the tenant). " +
      "Each run queues one job per recipient, run as that recipient: each gets the data they would see live. Needs download on the report."
  },
  update: {
    payload: ExportSchedule.ScheduleUpdate,
    error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.ExportInvalid, Problems.ScheduleInvalid],
    description: "Changes a schedule; `null` removes `pages`, `visual_id` or `dialect`; `enabled: false` pauses it."
  }
})
  .add(Endpoints.action("sendNow", "/v1/export-schedules/:id/send-now", {
    params: ResourceEndpoints.idParams,
    success: RunJson.pipe(HttpApiSchema.status(202)),
    error: [Problems.Forbidden, Problems.NotFound, Problems.ExportsExceeded],
    rateLimit: "export",
    description: "Runs the schedule now (a test send): its jobs, one per recipient, are queued at once; its next scheduled run stays as it was."
  }))
  .add(Endpoints.list("runs", "/v1/export-schedules/:id/runs", {
    params: ResourceEndpoints.idParams,
    item: RunDeliveryJson,
    error: [...Problems.cursorProblems, Problems.Forbidden, Problems.NotFound],
    description: "The schedule's run history, newest first: every job its runs queued (one per recipient, by its cron or sent now), with its status, error, file and whether its mail was sent or only logged. " +
      "A recipient a run skipped has no job (the schedule's `last_run` says why). Its maker's and tenant admins'; another member's schedule is a 404."
  }))
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Exports made on a schedule and e-mailed to a distribution list, each recipient's as they would see it.")
