/**
 * Export jobs (decision 0015).
 *
 * @since 0.1.0
 */
import { ExportFormats, ExportJob } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import * as Endpoints from "../Endpoints.ts"
import { Authentication } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import * as RateLimitHeaders from "../RateLimitHeaders.ts"
import * as ResourceEndpoints from "../ResourceEndpoints.ts"

/** An export job as the API shows it. */
export const JobJson = Schema.Struct({
  job_id: ExportJob.JobId,
  report_id: Schema.String,
  workspace_id: Schema.String,
  format: ExportJob.Format,
  request: ExportJob.ExportRequest,
  status: ExportJob.Status,
  percent_complete: Schema.Int,
  attempts: Schema.Int,
  error: Schema.NullOr(Schema.Struct({ kind: Schema.Literals(["transient", "permanent"]), detail: Schema.String })).annotate({
    description: "Why the last run failed: transient (it is tried again, up to 3 runs) or permanent"
  }),
  result: Schema.NullOr(Schema.Struct({ filename: Schema.String, content_type: Schema.String, bytes: Schema.Int, warnings: Schema.Array(Schema.String) })),
  created_at: Schema.Date,
  started_at: Schema.NullOr(Schema.Date),
  finished_at: Schema.NullOr(Schema.Date),
  updated_at: Schema.Date
})

/** Where a finished job's file is fetched (a signed URL, for an hour) and what it is. */
export const JobResultJson = Schema.Struct({ url: Schema.String, expires_at: Schema.Date, filename: Schema.String, content_type: Schema.String, bytes: Schema.Int })

const jobParams = { job_id: Schema.String }

/** The formats in words, from core's table: what each holds, which need a document renderer, which name `visual_id`. */
const formatsText = (): string => {
  const { formats, listed, names, which } = ExportFormats
  return `Formats: ${names.map((name) => `${name} (${formats[name].holds})`).join("; ")}. ` +
    `${listed(which((f) => f.madeBy === "renderer"))} need the deployment's document renderers; ` +
    `${listed(which((f) => f.renders !== "report"))} export one visual: these name \`visual_id\`.`
}

/** Export jobs (decision 0015). */
export const ExportsGroup = HttpApiGroup.make("exports")
  .add(Endpoints.action("export", "/v1/reports/:id/export", {
    params: ResourceEndpoints.idParams,
    payload: ExportJob.ExportRequest,
    success: JobJson.pipe(HttpApiSchema.status(202)),
    error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.ExportInvalid, Problems.ExportsExceeded],
    rateLimit: "export",
    description: "Queues an export of a report as the caller (their row-level security), who needs download on it. Answers 202 with the job; poll GET /v1/jobs/{job_id}. " +
      formatsText()
  }))
  .add(Endpoints.get("job", "/v1/jobs/:job_id", {
    params: jobParams,
    success: JobJson,
    error: [Problems.Forbidden, Problems.NotFound],
    description: "A job's status; while it is queued or running, `Retry-After` says when to poll again. Its requester's and tenant admins' only: another member's job is a 404."
  }).annotate(OpenApi.Transform, RateLimitHeaders.retryAfterOn(200)))
  .add(Endpoints.get("result", "/v1/jobs/:job_id/result", {
    params: jobParams,
    success: JobResultJson,
    error: [Problems.Forbidden, Problems.ShareExpired, Problems.NotFound, Problems.ResultNotReady],
    description: "A signed URL to the job's file, valid for 1 hour; anyone holding it may fetch the file until then. Only the job's requester (while they may still download the report) and tenant admins get one; another member's job is a 404."
  }))
  .add(Endpoints.remove("cancel", "/v1/jobs/:job_id", {
    params: jobParams,
    success: JobJson,
    error: [Problems.Forbidden, Problems.NotFound],
    description: "Cancels a queued or running job; a finished one is answered as it is."
  }))
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Asynchronous exports of reports, and their jobs.")
