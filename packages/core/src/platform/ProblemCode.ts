/**
 * The catalogue of problem codes: every error the service answers carries one
 * of these in the `code` member of its RFC 9457 body. The spec names a few;
 * the rest follow the same `area/condition` shape.
 *
 * @since 0.1.0
 */

/** One entry of the catalogue: the HTTP status and a short human title. */
export interface ProblemSpec {
  readonly status: number
  readonly title: string
}

/** Every problem code the service can answer, with its status and title. */
export const catalogue = {
  "auth/unauthenticated": { status: 401, title: "Missing or invalid bearer token" },
  "auth/forbidden": { status: 403, title: "The credential is not allowed to do this" },
  "auth/sign-in-link-invalid": { status: 401, title: "The sign-in link is unknown, used or expired" },
  "auth/csrf-failed": { status: 403, title: "The request did not come from the console's own page" },
  "share/expired": { status: 403, title: "The grant has expired" },
  "share/revoked": { status: 403, title: "The grant was revoked" },
  "share/paused": { status: 403, title: "The link is paused" },
  "share/password-required": { status: 401, title: "The link asks for its password" },
  "share/password-incorrect": { status: 401, title: "The password is not the link's" },
  "share/token-invalid": { status: 401, title: "The embed token is not valid" },
  "share/token-expired": { status: 401, title: "The embed token has expired; the embedding app mints a new one" },
  "grant/invalid": { status: 400, title: "The grant does not hold together" },
  "export/invalid": { status: 400, title: "The export request does not fit the report" },
  "export/not-ready": { status: 409, title: "The job has no result: it has not succeeded" },
  "export/url-invalid": { status: 403, title: "The result URL is not one this service signed" },
  "export/url-expired": { status: 403, title: "The result URL has expired; ask the job for a new one" },
  "schedule/invalid": { status: 400, title: "The export schedule does not hold together" },
  "comment/invalid": { status: 400, title: "The comment does not fit its report" },
  "comment/deleted": { status: 409, title: "The comment was deleted; it changes no more" },
  "grant/not-active": { status: 409, title: "The grant was revoked or has expired; it changes no more" },
  "request/invalid": { status: 400, title: "The request failed validation" },
  "request/malformed-json": { status: 400, title: "The request body is not valid JSON" },
  "request/body-too-large": { status: 413, title: "The request body is too large" },
  "request/unsupported-media-type": { status: 415, title: "The request body must be application/json" },
  "route/not-found": { status: 404, title: "No such route" },
  "route/method-not-allowed": { status: 405, title: "The route does not accept this method" },
  "resource/not-found": { status: 404, title: "No such resource" },
  "pagination/cursor-invalid": { status: 400, title: "The cursor is not one this service issued" },
  "pagination/cursor-expired": { status: 400, title: "The cursor is older than 24 hours" },
  "pagination/cursor-mismatch": {
    status: 400,
    title: "The cursor was issued for another endpoint or query string"
  },
  "idempotency/invalid-key": { status: 400, title: "The Idempotency-Key header is not valid" },
  "idempotency/key-reused": {
    status: 422,
    title: "The Idempotency-Key was already used with a different request"
  },
  "idempotency/in-progress": {
    status: 409,
    title: "A request with this Idempotency-Key is still in progress"
  },
  "webhook/scheme-not-allowed": { status: 400, title: "Only https:// webhook urls are accepted" },
  "webhook/firehose-not-in-plan": { status: 403, title: "The audit.event firehose is available on the Scale plan only" },
  "webhook/disabled": { status: 409, title: "The webhook is disabled; enable it first" },
  "webhook/delivery-in-progress": { status: 409, title: "The delivery has not finished; it can be re-delivered once it has" },
  "directory/email-taken": { status: 409, title: "Another user of the tenant has this e-mail address" },
  "directory/managed-by-identity-provider": {
    status: 409,
    title: "The team is synced from the identity provider; change it there"
  },
  "directory/user-deprovisioned": { status: 409, title: "The user is deprovisioned" },
  "directory/invitation-not-found": { status: 404, title: "No invitation has this token" },
  "directory/invitation-closed": { status: 410, title: "The invitation was accepted, revoked or has expired" },
  "dataset/model-invalid": { status: 400, title: "The semantic model is not consistent" },
  "dataset/source-invalid": { status: 400, title: "The dataset's source cannot be read" },
  "dataset/engine-unavailable": { status: 400, title: "No analytics engine serves this kind of source here" },
  "dataset/not-loaded": { status: 409, title: "The dataset has no rows yet; upload them first" },
  "dataset/not-uploadable": { status: 409, title: "Only upload datasets take files; a PostgreSQL dataset reads its table in place" },
  "dataset/refresh-needs-file": { status: 409, title: "An upload dataset is refreshed by uploading its file again" },
  "dataset/in-use": { status: 409, title: "Reports, dashboards or alerts use this dataset; delete or change them first" },
  "dataset/upload-too-large": { status: 413, title: "The file exceeds the upload limit" },
  "report/invalid": { status: 400, title: "The report's pages do not hold together" },
  "dashboard/invalid": { status: 400, title: "The dashboard's tiles do not hold together" },
  "query/invalid": { status: 400, title: "The query does not fit the dataset's model" },
  "query/timed-out": { status: 422, title: "The query ran longer than allowed and was cancelled" },
  "rate-limit/burst-exceeded": { status: 429, title: "Burst rate limit exceeded" },
  "rate-limit/sustained-exceeded": { status: 429, title: "Hourly rate limit exceeded" },
  "rate-limit/query-concurrency": { status: 429, title: "Too many concurrent queries in this workspace" },
  "rate-limit/ai-questions-exceeded": { status: 429, title: "AI question limit exceeded" },
  "rate-limit/exports-exceeded": { status: 429, title: "Export limit exceeded" },
  "rate-limit/password-attempts-exceeded": { status: 429, title: "Too many failed password attempts" },
  "rate-limit/shared-views-exceeded": { status: 429, title: "Too many views of shared content from this address" },
  "rate-limit/sign-in-links-exceeded": { status: 429, title: "Too many sign-in links asked for" },
  "service/unavailable": { status: 503, title: "The service is temporarily unavailable" },
  "internal": { status: 500, title: "Internal error" }
} as const satisfies Record<string, ProblemSpec>

/** A problem code from the catalogue. */
export type ProblemCode = keyof typeof catalogue

/** The problem `type` URI of a code: a tag URI, stable and not meant to be dereferenced. */
export const typeUri = (code: ProblemCode): string => `tag:analytics-service,2026:problem/${code}`
