/**
 * Export jobs (decision 0015): what is asked, and the state
 * machine a job follows from the request to its result.
 *
 * ```
 *            claim                 succeed
 *  queued ─────────▶ running ─────────────▶ succeeded
 *    ▲  │               │ │ fail (permanent, or transient out of attempts)
 *    │  │ cancel        │ └────────────────▶ failed
 *    │  ▼               │ cancel
 *    │ canceled ◀───────┘
 *    └─ fail (transient, attempts left): queued again after a wait
 *       a lease that runs out (the worker died): claimed again as it is
 * ```
 *
 * `succeeded`, `failed` and `canceled` are final. The spec shows `queued`
 * and `succeeded`; `running`, `failed` (transient or permanent, as Power BI
 * tells them apart) and `canceled` are ours.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { Actor } from "../audit/AuditLog.ts"
import { Uuid } from "../platform/Ids.ts"
import { ReportFilterValues } from "../reports/Report.ts"
import { Query, type SecurityContext } from "../datasets/SemanticQuery.ts"
import { dialectNames } from "../datasets/SqlDialect.ts"
import * as ExportFormats from "./ExportFormats.ts"
import { Name, type TenantId } from "../tenancy/Tenant.ts"

/** The export formats (decision 0015), as `ExportFormats` lists them. */
export const Format = Schema.Literals(ExportFormats.names)
/** An export format. */
export type Format = ExportFormats.Format

/** The formats that draw a watermark into the file: all a watermarked grant exports (decision 0014). */
export const watermarkedFormats: ReadonlySet<Format> = new Set(ExportFormats.which((f) => f.watermarked))

/** Formats of one visual's picture, rows or SQL, which name the visual. */
export const singleVisualFormats: ReadonlySet<Format> = new Set(ExportFormats.which((f) => f.renders !== "report"))

/** A filter of a semantic query, as an export adds it. */
type QueryFilter = NonNullable<typeof Query.Type["filters"]>[number]

/** What a client sends to export a report (decision 0015). */
export const ExportRequest = Schema.Struct({
  format: Format,
  pages: Schema.optionalKey(Schema.Array(Name).check(Schema.isMinLength(1), Schema.isMaxLength(50)).annotate({
    description: "Names of the report pages to include; all pages when omitted"
  })),
  visual_id: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxCodePoints(100)).annotate({
    description: `The visual exported by ${ExportFormats.listed([...singleVisualFormats])}`
  })),
  filters: Schema.optionalKey(
    Schema.Union([ReportFilterValues, Query.fields.filters.schema]).annotate({
      description:
        "Values of the report's filters by name (`{\"region\": \"EU\", \"ordered_at\": \"last 3 months\"}`, a list for several values), applied to every visual they concern; or, richer, query filters `[{member, operator, values}]` added to each visual"
    })
  ),
  dialect: Schema.optionalKey(Schema.Literals(dialectNames).annotate({ description: "For sql: the dialect to compile to; the dataset's engine's by default" }))
})
/** What a client sends to export a report. */
export type ExportRequest = typeof ExportRequest.Type

/** Who asked for a job: someone of the tenant, or a visitor through a share (the grant they came by). */
export type Requester = Actor | { readonly type: "grant"; readonly id: string }

/** A job's identifier. */
export const JobId = Uuid.pipe(Schema.brand("JobId"))
/** A job's identifier. */
export type JobId = typeof JobId.Type

/** The states of a job. */
export const Status = Schema.Literals(["queued", "running", "succeeded", "failed", "canceled"])
/** A job's state. */
export type Status = typeof Status.Type

/** Whether a state is final. */
export const isFinal = (status: Status): boolean => status === "succeeded" || status === "failed" || status === "canceled"

/** Why a job failed: `transient` (worth asking again later) or `permanent` (the request cannot be served as it is). */
export interface Failure {
  readonly kind: "transient" | "permanent"
  readonly detail: string
}

/** A finished job's file. */
export interface Result {
  /** Where the file is kept (`BlobStore`). */
  readonly key: string
  readonly filename: string
  readonly contentType: string
  readonly bytes: number
  /** What the file lacks, in words (a visual whose query timed out). */
  readonly warnings: ReadonlyArray<string>
  /**
   * How a scheduled export's file reached its recipient: `sent` (handed to
   * the mail service) or `logged` (no mail service is configured: written
   * to the host's log, not sent). Absent for a job nobody is mailed.
   */
  readonly mail?: "sent" | "logged" | undefined
}

/** An export job. */
export interface ExportJob {
  readonly job_id: JobId
  readonly tenant_id: TenantId
  readonly workspace_id: string
  readonly report_id: string
  readonly request: ExportRequest
  /**
   * Query filters added besides the request's `filters`, which the requester
   * cannot lift (an embed's locked parameters beside the values its viewer
   * chose, `SharedExports`); none for a job asked over the API.
   */
  readonly locked?: ReadonlyArray<QueryFilter> | undefined
  readonly requested_by: Requester
  /** Row-level security as the requester had it when asking: the job runs as them. */
  readonly security: SecurityContext
  /** A public link's watermark text, drawn into PDF and PNG pages; `null` without one. */
  readonly watermark: string | null
  /** A scheduled export's recipient, to whom the worker mails the file; `null` for a job asked over the API. */
  readonly delivery: Delivery | null
  readonly status: Status
  readonly percent_complete: number
  /** Runs started so far (a run a dead worker left counts). */
  readonly attempts: number
  readonly failure: Failure | null
  readonly result: Result | null
  /** A queued job waits until then (a transient failure's retry). */
  readonly run_after: Date
  readonly created_at: Date
  readonly started_at: Date | null
  readonly finished_at: Date | null
  readonly updated_at: Date
}

/** Where a scheduled export's file goes: the schedule that made the job, and its recipient's address. */
export interface Delivery {
  readonly schedule_id: string
  readonly schedule_name: string
  readonly email: string
}

/** What a new job is made of: who asks what, and as whom. */
export type NewJob =
  & Pick<ExportJob, "job_id" | "tenant_id" | "workspace_id" | "report_id" | "request" | "locked" | "requested_by" | "security">
  & { readonly watermark?: string | null | undefined; readonly delivery?: Delivery | null | undefined }

/** A job as it is queued, due at once. */
export const queued = (job: NewJob, now: Date): ExportJob => ({
  ...job,
  watermark: job.watermark ?? null,
  delivery: job.delivery ?? null,
  status: "queued",
  percent_complete: 0,
  attempts: 0,
  failure: null,
  result: null,
  run_after: now,
  created_at: now,
  started_at: null,
  finished_at: null,
  updated_at: now
})

/** How many runs a job gets before a transient failure is final. */
export const maxAttempts = 3

/** The wait before run `attempt + 1` after a transient failure: 10 s, then 60 s. */
export const retryWaitMillis = (attempt: number): number => attempt <= 1 ? 10_000 : 60_000

/** What happens to a job. */
export type Event =
  | { readonly _tag: "Claimed"; readonly at: Date }
  | { readonly _tag: "Progressed"; readonly percent: number; readonly at: Date }
  | { readonly _tag: "Succeeded"; readonly result: Result; readonly at: Date }
  | { readonly _tag: "Failed"; readonly failure: Failure; readonly at: Date }
  | { readonly _tag: "Canceled"; readonly at: Date }

/**
 * The job after `event`, or `undefined` when the event does not apply to
 * its state (a final job changes no more; only a running job progresses,
 * succeeds or fails; a running job is claimed again only by the queue,
 * once its lease has run out).
 */
export const next = (job: ExportJob, event: Event): ExportJob | undefined => {
  if (isFinal(job.status)) return undefined
  const at = event.at
  switch (event._tag) {
    case "Claimed":
      return { ...job, status: "running", attempts: job.attempts + 1, started_at: job.started_at ?? at, updated_at: at }
    case "Progressed":
      return job.status !== "running"
        ? undefined
        : { ...job, percent_complete: Math.max(job.percent_complete, Math.min(99, Math.floor(event.percent))), updated_at: at }
    case "Succeeded":
      return job.status !== "running"
        ? undefined
        : { ...job, status: "succeeded", percent_complete: 100, result: event.result, failure: null, finished_at: at, updated_at: at }
    case "Failed": {
      if (job.status !== "running") return undefined
      const retry = event.failure.kind === "transient" && job.attempts < maxAttempts
      return retry
        ? { ...job, status: "queued", failure: event.failure, run_after: new Date(at.getTime() + retryWaitMillis(job.attempts)), updated_at: at }
        : { ...job, status: "failed", failure: event.failure, finished_at: at, updated_at: at }
    }
    case "Canceled":
      return { ...job, status: "canceled", finished_at: at, updated_at: at }
  }
}
