/**
 * The handlers of `POST /v1/reports/{id}/export` and `/v1/jobs...`.
 *
 * @since 0.1.0
 */
import { Api } from "@analytics/api"
import { AuditLog, BlobStore, Datasets, DocumentRenderers, EventPublisher, ExportJob, ExportStore, Exports, Limiter, SignedUrl, Transactor } from "@analytics/core"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { ServiceInfo } from "../ServiceInfo.ts"
import { toProblem } from "../edge/DomainProblems.ts"
import * as ExportRoutes from "../routes/ExportRoutes.ts"
import { accessServices, caller, captured, respond } from "./Handling.ts"
import * as ApiHandlers from "../edge/ApiHandlers.ts"

/** A job as the API shows it: never its requester's security context or where its file is kept. */
export const jobJson = (job: ExportJob.ExportJob) => ({
  job_id: job.job_id,
  report_id: job.report_id,
  workspace_id: job.workspace_id,
  format: job.request.format,
  request: job.request,
  status: job.status,
  percent_complete: job.percent_complete,
  attempts: job.attempts,
  error: job.failure,
  result: job.result === null
    ? null
    : { filename: job.result.filename, content_type: job.result.contentType, bytes: job.result.bytes, warnings: job.result.warnings },
  created_at: job.created_at,
  started_at: job.started_at,
  finished_at: job.finished_at,
  updated_at: job.updated_at
})

/**
 * What asking for exports reads: the queue, the report and who may download it, the engines and renderers, the limits;
 * and what it writes besides the job: its audit entry.
 */
export const exportServices = [
  ExportStore.ExportStore,
  ...accessServices,
  Datasets.Engines,
  DocumentRenderers.DocumentRenderers,
  Limiter.Limiter,
  AuditLog.AuditStore,
  EventPublisher.EventPublisher,
  Transactor.Transactor
] as const

/** `POST /v1/reports/{id}/export` and `/v1/jobs...`. */
export const exportsLayer = ApiHandlers.group(Api, "exports", (handlers) =>
  Effect.gen(function*() {
    const provide = yield* captured(...exportServices)
    const links = ExportRoutes.resultLinks((yield* ServiceInfo).publicBaseUrl, yield* SignedUrl.UrlSigner, yield* BlobStore.BlobStore)
    return handlers
      .handle("export", ({ endpoint, params, payload }) =>
        Effect.gen(function*() {
          const member = yield* caller("exports.export")
          const job = yield* Effect.mapError(provide(Exports.request(member, params.id, payload)), toProblem)
          return respond(endpoint, jobJson(job))
        }))
      .handle("job", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exports.job")
          const job = yield* Effect.mapError(provide(Exports.get(member, params.job_id)), toProblem)
          const response = respond(endpoint, jobJson(job))
          // Polls come back when there may be news: soon for a running job, a little later for a queued one.
          return ExportJob.isFinal(job.status) ? response : HttpServerResponse.setHeader(response, "retry-after", job.status === "running" ? "1" : "2")
        }))
      .handle("result", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exports.result")
          const { expires_at, job, url } = yield* Effect.mapError(provide(Exports.resultUrl(member, params.job_id, links)), toProblem)
          return respond(endpoint, { url, expires_at, filename: job.result!.filename, content_type: job.result!.contentType, bytes: job.result!.bytes })
        }))
      .handle("cancel", ({ endpoint, params }) =>
        Effect.gen(function*() {
          const member = yield* caller("exports.cancel")
          return respond(endpoint, jobJson(yield* Effect.mapError(provide(Exports.cancel(member, params.job_id)), toProblem)))
        }))
  }))
