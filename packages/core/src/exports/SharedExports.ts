/**
 * Exports asked through a share: a public link's visitor or an embed's
 * viewer whose grant allows `download` queues an export of the shared
 * report, run as them (the link's or the token's row-level security, an
 * embed's locked filters) and watermarked as their view is (decisions
 * 0014 and 0015). A watermarked share exports only the formats that draw the
 * watermark into the file (pdf, png), so it cannot be taken off a copy. A
 * view-only share exports nothing.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import type * as Datasets from "../datasets/Datasets.ts"
import type { DatasetStore } from "../datasets/DatasetStore.ts"
import type { DocumentRenderers } from "./DocumentRenderers.ts"
import { Forbidden, NotFound, type StoreError } from "../platform/Errors.ts"
import { ExportRequest, type ExportJob, type JobId } from "./ExportJob.ts"
import * as Exports from "./Exports.ts"
import { ExportStore } from "./ExportStore.ts"
import { Limiter, type RateLimitedWith } from "../limits/Limiter.ts"
import * as OperationLimits from "../limits/OperationLimits.ts"
import { ReportFilterValues } from "../reports/Report.ts"
import * as Reports from "../reports/Reports.ts"
import * as ReportViews from "../reports/ReportViews.ts"
import type { ReportStore } from "../reports/ReportStore.ts"
import { may, type Viewer } from "../sharing/SharedViews.ts"

/**
 * What a viewer asks for: a format, the pages or visual it needs, and the
 * values of the report's filters they set on the page (as `?filters=` takes
 * them; never query filters). The share's own filters are added to them.
 */
export const SharedExportRequest = Schema.Struct({
  format: ExportRequest.fields.format,
  pages: ExportRequest.fields.pages,
  visual_id: ExportRequest.fields.visual_id,
  filters: Schema.optionalKey(ReportFilterValues.annotate({
    description: "Values of the report's filters by name, as the page shows them; a filter the share locks cannot be given"
  }))
})
/** What a viewer asks for. */
export type SharedExportRequest = typeof SharedExportRequest.Type


/** Who asked, on the job: the grant the viewer came through. */
const requesterOf = (viewer: Viewer) => ({ type: "grant", id: viewer.grant.grant_id }) as const

/**
 * Queues an export of the shared report for the viewer, from `clientIp`.
 * Counted against the share's own export budget (per grant, and per client
 * address for a public link: `OperationLimits.sharedExports`), never the
 * workspace's API or UI export limits, which anonymous visitors must not
 * be able to spend (decision 0009).
 */
export const request = (
  viewer: Viewer,
  input: SharedExportRequest,
  clientIp: string
): Effect.Effect<
  ExportJob,
  Forbidden | NotFound | Exports.ExportInvalid | RateLimitedWith<"rate-limit/exports-exceeded"> | StoreError,
  ExportStore | ReportStore | DatasetStore | Datasets.Engines | DocumentRenderers | Limiter | AuditLog.Recording
> =>
  Effect.gen(function*() {
    if (!may(viewer, "download")) return yield* new Forbidden({ detail: "This share allows viewing only" })
    // Exports are of a report: a dashboard, dataset or workspace share exports nothing (decision 0014).
    if (viewer.grant.subject_type !== "report") return yield* new Forbidden({ detail: `Exports are of a shared report; this share is of a ${viewer.grant.subject_type}` })
    if (viewer.watermark !== null) yield* Exports.carryingWatermark(input.format, "this share")
    const report = yield* Reports.get(viewer.grant.tenant_id, viewer.grant.subject_id)
    // The values the viewer set, checked as their view checks them (none may lift a locked filter); the locked ones always added.
    const { filters: values = {}, ...asked } = input
    const chosen = Object.keys(values).length > 0
    if (chosen) {
      const refused = yield* ReportViews.refusedValues(report, values, viewer.lockedFilters)
      if (refused !== undefined) return yield* new Exports.ExportInvalid({ detail: refused })
    }
    const exportRequest: ExportRequest = chosen ? { ...asked, filters: values } : asked
    yield* Exports.check(report, exportRequest)
    yield* (yield* Limiter).enforce(OperationLimits.sharedExports({
      grantId: viewer.grant.grant_id,
      clientIp: viewer.grant.principal_type === "link" ? clientIp : undefined
    }))
    // The visitor has no name: the entry names the grant they came through.
    return yield* AuditLog.recorded(viewer.grant.tenant_id, Exports.enqueue(report, {
      request: exportRequest,
      ...(viewer.lockedFilters.length === 0 ? {} : { locked: viewer.lockedFilters }),
      requested_by: requesterOf(viewer),
      security: viewer.security,
      watermark: viewer.watermark
    }), (job) => Exports.requestedEntry(job, requesterOf(viewer), { report_name: report.name, grant_id: viewer.grant.grant_id, principal_type: viewer.grant.principal_type }))
  })

/** A job the viewer's grant asked for; any other is NotFound to them. */
export const job = (viewer: Viewer, jobId: string): Effect.Effect<ExportJob, NotFound | StoreError, ExportStore> =>
  Effect.gen(function*() {
    const found = yield* (yield* ExportStore).find(viewer.grant.tenant_id, jobId as JobId)
    const requester = requesterOf(viewer)
    if (found === undefined || found.requested_by.type !== requester.type || found.requested_by.id !== requester.id) {
      return yield* new NotFound({ resource: "job", id: jobId })
    }
    return found
  })
