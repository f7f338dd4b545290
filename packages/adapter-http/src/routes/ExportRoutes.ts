/**
 * Export results at their signed URLs (decision 0015: valid for 1 hour):
 * `GET /v1/jobs/{job_id}/file?tenant=…&expires=…&signature=…` streams the
 * file to whoever holds the URL, without a token; a changed or expired URL
 * answers 403 `export/url-invalid` or `export/url-expired`, and a URL whose
 * requester may no longer download the report (a grant revoked, a share
 * paused, a user deprovisioned) 403 `auth/forbidden`.
 *
 * @since 0.1.0
 */
import { BlobStore, ExportJob, Exports, ExportStore, type SharedViews, SignedUrl, type Tenant } from "@analytics/core"
import { Clock, Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { problemResponse } from "../edge/LastLineProblems.ts"

/** The file route, as `[method, path]` (the edge's 404/405 answers know it). */
export const routes: ReadonlyArray<readonly [string, string]> = [["GET", "/v1/jobs/:job_id/file"]]

/** What a signature covers: the file's path and its tenant. */
const signedPath = (tenantId: string, jobId: string) => `/v1/jobs/${jobId}/file?tenant=${tenantId}`

/**
 * Result URLs, valid for an hour: the object store's own presigned URL when
 * `blobs` makes them (the bytes then never pass through the service), else
 * the service's file route under `publicBaseUrl`, HMAC-signed. A store that
 * cannot sign at the moment falls back to the service's route, which still
 * serves the file.
 */
export const resultLinks = (
  publicBaseUrl: string,
  signer: SignedUrl.UrlSigner["Service"],
  blobs?: BlobStore.BlobStore["Service"]
): Exports.ResultLinks => ({
  url: (job) =>
    Effect.gen(function*() {
      // Whole seconds, as both kinds of URL carry them.
      const expiresAt = new Date(Math.floor(((yield* Clock.currentTimeMillis) + SignedUrl.validityMillis) / 1000) * 1000)
      const result = job.result
      if (blobs?.signedUrl !== undefined && result !== null) {
        const presigned = yield* blobs.signedUrl(result.key, { filename: result.filename, contentType: result.contentType, expiresAt }).pipe(
          Effect.catchTag("StoreError", (error) =>
            Effect.as(Effect.logWarning("The result store could not sign a URL; the service serves the file", error), undefined))
        )
        if (presigned !== undefined) return { url: presigned, expires_at: expiresAt }
      }
      const path = signedPath(job.tenant_id, job.job_id)
      const { expires, signature } = yield* signer.sign(path, expiresAt)
      return { url: `${publicBaseUrl}${path}&expires=${expires}&signature=${signature}`, expires_at: new Date(Number(expires) * 1000) }
    })
})

/** The file route, over the stores and signer in context. */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const signer = yield* SignedUrl.UrlSigner
  const jobs = yield* ExportStore.ExportStore
  const blobs = yield* BlobStore.BlobStore
  const access = yield* Effect.context<SharedViews.OpenServices>()
  return HttpRouter.add("GET", "/v1/jobs/:job_id/file", Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const jobId = (yield* HttpRouter.params).job_id ?? ""
    const query = new URL(request.url, "http://localhost").searchParams
    const tenantId = query.get("tenant") ?? ""
    const verified = yield* signer.verify(signedPath(tenantId, jobId), query.get("expires") ?? "", query.get("signature") ?? "", yield* Clock.currentTimeMillis)
    if (verified._tag === "Failure") {
      return verified.failure === "expired"
        ? problemResponse("export/url-expired", "This result URL has expired; GET /v1/jobs/{job_id}/result gives a new one")
        : problemResponse("export/url-invalid", "This URL was not signed by this service, or was changed")
    }
    const unavailable = problemResponse("service/unavailable", "The result cannot be read now; retry later")
    const job = yield* Effect.orElseSucceed(jobs.find(tenantId as Tenant.TenantId, jobId as ExportJob.JobId), () => null)
    if (job === null) return unavailable
    if (job === undefined || job.result === null || !ExportJob.isFinal(job.status)) return problemResponse("resource/not-found", "The job or its file no longer exists")
    const allowed = yield* Effect.orElseSucceed(Effect.provideContext(Exports.fileAllowed(job), access), () => null)
    if (allowed === null) return unavailable
    if (!allowed) return problemResponse("auth/forbidden", "Whoever asked for this file may no longer download the report")
    const file = yield* Effect.orElseSucceed(blobs.get(job.result.key), () => null)
    if (file === null) return unavailable
    if (file === undefined) return problemResponse("resource/not-found", "The file no longer exists")
    return HttpServerResponse.stream(file.body, {
      contentType: job.result.contentType,
      contentLength: file.bytes,
      headers: {
        // Saved, never shown: a browser neither renders it on this origin nor guesses another type (an HTML or SVG export, a CSV cell).
        "content-disposition": `attachment; filename="${job.result.filename}"`,
        "x-content-type-options": "nosniff",
        "cache-control": "private, no-store",
        "referrer-policy": "no-referrer"
      }
    })
  }))
}))
