/**
 * Use cases on export jobs (decision 0015): asking for an export of
 * a report (the caller needs `download` on it, and it counts against the
 * export limits of decision 0009), reading a job, canceling it, and the signed
 * URL of its result.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import * as Datasets from "../datasets/Datasets.ts"
import type { DirectoryStore } from "../directory/DirectoryStore.ts"
import { DocumentRenderers } from "./DocumentRenderers.ts"
import * as ExportFormats from "./ExportFormats.ts"
import { type Forbidden, NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import {
  type ExportJob,
  type ExportRequest,
  type Format,
  type JobId,
  type NewJob,
  queued,
  singleVisualFormats,
  watermarkedFormats
} from "./ExportJob.ts"
import { ExportStore } from "./ExportStore.ts"
import * as Grants from "../sharing/Grants.ts"
import { GrantStore } from "../sharing/GrantStore.ts"
import type { GrantId } from "../sharing/Grant.ts"
import * as SharedViews from "../sharing/SharedViews.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { Limiter, type RateLimitedWith } from "../limits/Limiter.ts"
import * as OperationLimits from "../limits/OperationLimits.ts"
import * as Policy from "../sharing/Policy.ts"
import type { Member } from "../auth/Principal.ts"
import { findVisual, type Report } from "../reports/Report.ts"
import * as Reports from "../reports/Reports.ts"
import * as Subjects from "../sharing/Subjects.ts"

/**
 * The formats this deployment produces, in the table's order: those core
 * makes itself, and the document formats it has a renderer of
 * (`DocumentRenderers`); the others are refused at request time, never
 * accepted and then failed.
 */
export const availableFormats = Effect.map(DocumentRenderers, (renderers): ReadonlySet<Format> =>
  new Set(ExportFormats.names.filter((name) => !ExportFormats.isDocumentFormat(name) || renderers[name] !== undefined)))

/** The export request does not fit the report (an unknown page or visual, a format without the visual it needs). */
export class ExportInvalid extends TaggedFailure("ExportInvalid")<{
  readonly detail: string
}> {
  readonly code = "export/invalid" as const
}

/** The job has no result yet (or never will: failed, canceled). */
export class ResultNotReady extends TaggedFailure("ResultNotReady")<{
  readonly status: ExportJob["status"]
}> {
  readonly code = "export/not-ready" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `The job is ${this.status}; a result exists once it has succeeded`
  }
}

/** How result URLs are made: the HTTP side knows the path, core the signature. */
export interface ResultLinks {
  readonly url: (job: ExportJob) => Effect.Effect<{ readonly url: string; readonly expires_at: Date }>
}

/**
 * Refuses a format that cannot carry a watermark, for an export that must
 * (`whose`: what is watermarked, "this share" or "your grant on this report").
 */
export const carryingWatermark = (format: Format, whose: string): Effect.Effect<void, ExportInvalid> =>
  watermarkedFormats.has(format)
    ? Effect.void
    : Effect.fail(new ExportInvalid({ detail: `format: ${whose} is watermarked; it exports ${ExportFormats.listed([...watermarkedFormats], "or")}, which carry the watermark` }))

/** Checks the request against the report: its pages and visual exist, the format can be made. */
export const check = (report: Report, request: ExportRequest) =>
  Effect.gen(function*() {
    const available = yield* availableFormats
    if (!available.has(request.format)) {
      return yield* new ExportInvalid({ detail: `format: ${request.format} is not produced by this deployment; use ${[...available].join(", ")}` })
    }
    for (const name of request.pages ?? []) {
      if (!report.pages.some((p) => p.name === name)) return yield* new ExportInvalid({ detail: `pages: the report has no page named ${JSON.stringify(name)}` })
    }
    if (singleVisualFormats.has(request.format)) {
      if (request.visual_id === undefined) return yield* new ExportInvalid({ detail: `visual_id: ${request.format} exports one visual; name it` })
      const found = findVisual(report, request.visual_id)
      if (found === undefined) return yield* new ExportInvalid({ detail: `visual_id: the report has no visual ${JSON.stringify(request.visual_id)}` })
      const needs = ExportFormats.formats[request.format].engine
      if (needs !== undefined && !(yield* Datasets.engineWrites(report.tenant_id, found.visual.dataset_id, needs.writer))) {
        return yield* new ExportInvalid({ detail: `format: ${request.format} is written by ${needs.by}; this visual's dataset is on another` })
      }
    }
    if (request.dialect !== undefined && request.format !== "sql") return yield* new ExportInvalid({ detail: "dialect: only a sql export has one" })
    const filtersRefused = yield* Reports.checkFilterValues(report, request.filters)
    if (filtersRefused !== undefined) return yield* new ExportInvalid({ detail: filtersRefused })
  })

/**
 * Queues an export of a report for the caller, who needs `download` on it
 * (a tenant admin always has it). The job runs as the caller: their
 * row-level security as it is now. Counted against one export limit by
 * how the member came: through the console or an embedding app, 30 a
 * minute per user; with an API token, 300 an hour per workspace in bursts
 * of 10.
 */
export const request = (
  member: Member,
  reportId: string,
  input: ExportRequest
): Effect.Effect<
  ExportJob,
  | NotFound
  | Forbidden
  | Grants.ShareExpired
  | ExportInvalid
  | RateLimitedWith<"rate-limit/exports-exceeded">
  | StoreError,
  ExportStore | GrantStore | DirectoryStore | Subjects.Services | Datasets.Engines | DocumentRenderers | Limiter | AuditLog.Recording
> =>
  Effect.gen(function*() {
    const report = yield* Reports.get(member.tenantId, reportId)
    const { watermark } = yield* Policy.onSubject(member, "exports.export", report.report_id)
    // A watermarked grant exports only what carries the watermark, drawn with the member's own address (decision 0014).
    if (watermark) yield* carryingWatermark(input.format, "your grant on this report")
    yield* check(report, input)
    // One class per channel (decision 0022): a person in the console or an embedding app, or a program with a token.
    const limiter = yield* Limiter
    if (member.channel === "session" || member.channel === "embedded") yield* limiter.enforce(OperationLimits.userExports(member.userId))
    else yield* limiter.enforce(OperationLimits.apiExports(report.workspace_id))
    const security = yield* Datasets.securityContext(member)
    return yield* AuditLog.recorded(member.tenantId, enqueue(report, {
      request: input,
      requested_by: { type: "user", id: member.userId },
      security,
      watermark: watermark ? member.email ?? `User ${member.userId}` : null
    }), (job) => requestedEntry(job, AuditLog.actorOf(member), { report_name: report.name, channel: member.channel ?? "token" }))
  })

/**
 * The `export.requested` entry of a job: what was asked of which report,
 * by whom (`extra`: how, or through which share); never the file's URL, the
 * requester's security context nor the watermark's address.
 */
export const requestedEntry = (job: ExportJob, by: AuditLog.Actor, extra: Readonly<Record<string, unknown>>): AuditLog.Recorded => ({
  workspace_id: job.workspace_id,
  action: "export.requested",
  actor: by,
  target: { type: "job", id: job.job_id },
  detail: { job_id: job.job_id, report_id: job.report_id, ...job.request, watermarked: job.watermark !== null, ...extra }
})

/** Queues a job of `report`, due now: what is asked, by whom, as whom (and, for a share or a schedule, its watermark or recipient). */
export const enqueue = (
  report: Pick<Report, "tenant_id" | "workspace_id" | "report_id">,
  job: Omit<NewJob, "job_id" | "tenant_id" | "workspace_id" | "report_id">
): Effect.Effect<ExportJob, StoreError, ExportStore> =>
  Effect.gen(function*() {
    const made = queued({
      ...job,
      job_id: (yield* uuidv7) as JobId,
      tenant_id: report.tenant_id,
      workspace_id: report.workspace_id,
      report_id: report.report_id
    }, new Date(yield* Clock.currentTimeMillis))
    yield* (yield* ExportStore).insert(made)
    return made
  })

/**
 * A job of the caller's tenant that the policy lets them see: their own, or
 * any for an admin; another member's is `NotFound`, as an unknown id is.
 */
export const get = (
  member: Member,
  jobId: string,
  operation: Policy.MemberOperation = "exports.job"
): Effect.Effect<ExportJob, NotFound | StoreError, ExportStore> =>
  Effect.flatMap(ExportStore, (store) => store.find(member.tenantId, jobId as JobId)).pipe(
    Policy.owned(member, operation, { type: "job", id: jobId }, (job) => job.requested_by)
  )

/** Cancels a job of the caller's that has not finished; a finished one is answered as it is. */
export const cancel = (member: Member, jobId: string): Effect.Effect<ExportJob, NotFound | StoreError, ExportStore> =>
  Effect.gen(function*() {
    yield* get(member, jobId, "exports.cancel")
    const job = yield* (yield* ExportStore).cancel(member.tenantId, jobId as JobId, new Date(yield* Clock.currentTimeMillis))
    return job ?? (yield* new NotFound({ resource: "job", id: jobId }))
  })

/**
 * The signed URL of a succeeded job's file, valid for an hour (decision 0015):
 * only for its requester (or an admin), and only while they may still
 * download the report, so a grant revoked after the export also stops its
 * file. The file holds the requester's rows (their row-level security).
 */
export const resultUrl = (
  member: Member,
  jobId: string,
  links: ResultLinks
): Effect.Effect<
  { readonly job: ExportJob; readonly url: string; readonly expires_at: Date },
  NotFound | Forbidden | Grants.ShareExpired | ResultNotReady | StoreError,
  ExportStore | GrantStore | DirectoryStore | Subjects.Services | AuditLog.Recording
> =>
  Effect.gen(function*() {
    const job = yield* get(member, jobId, "exports.result")
    yield* Policy.onSubject(member, "exports.export", job.report_id)
    if (job.status !== "succeeded" || job.result === null) return yield* new ResultNotReady({ status: job.status })
    const result = job.result
    const link = yield* links.url(job)
    // Handing out the file's URL is the download the service sees: an object store's presigned URL never passes through it (decision 0025).
    const reportName = yield* Subjects.locate(member.tenantId, "report", job.report_id).pipe(
      Effect.map((located) => located.name),
      Effect.catchTag("NotFound", () => Effect.succeed(null))
    )
    yield* AuditLog.recorded(member.tenantId, Effect.void, () => ({
      workspace_id: job.workspace_id,
      action: "export.downloaded",
      actor: AuditLog.actorOf(member),
      target: { type: "job", id: job.job_id },
      detail: {
        job_id: job.job_id,
        report_id: job.report_id,
        report_name: reportName,
        format: job.request.format,
        filename: result.filename,
        bytes: result.bytes,
        channel: member.channel ?? "token"
      }
    }))
    return { job, ...link }
  })

/**
 * Whether a job's file may still be handed out at its signed URL (decision
 * 0018): while its requester may still download the report, so revoking
 * their grant or deprovisioning them stops a URL already given; for a
 * share's job, while the link or embed still opens with `download`.
 */
export const fileAllowed = (job: ExportJob): Effect.Effect<boolean, StoreError, SharedViews.OpenServices> =>
  Effect.gen(function*() {
    if (job.requested_by.type !== "grant") return yield* Grants.actorMay(job.tenant_id, job.requested_by, "report", job.report_id, "download")
    const grant = yield* (yield* GrantStore).find(job.tenant_id, job.requested_by.id as GrantId)
    return grant !== undefined && (yield* SharedViews.stillAllows(grant, "download"))
  })
