/**
 * The problems the API declares: RFC 9457 bodies with a `code` extension
 * member carrying the problem code of the catalogue in core. Each class is
 * declared on the endpoints that can answer it, so the OpenAPI document and
 * the typed client know them.
 *
 * @since 0.1.0
 */
import { ProblemCode } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiError } from "effect/http-api"

type Code = ProblemCode.ProblemCode

const declare = <C extends Code>(code: C) => ({
  type: ProblemCode.typeUri(code),
  status: ProblemCode.catalogue[code].status as (typeof ProblemCode.catalogue)[C]["status"],
  title: ProblemCode.catalogue[code].title
})

/** The members every problem carries beside RFC 9457's: its `code`, and the `request_id` the edge adds (the response's `X-Request-Id`). */
const members = <C extends Code>(code: C) => ({
  code: Schema.tag(code),
  request_id: Schema.optionalKey(Schema.String.annotate({ description: "The request's id (its X-Request-Id), to quote when asking about it" }))
})

/** One entry of a validation problem's `errors`: where the bad value is and what is wrong. */
export const Issue = Schema.Struct({
  path: Schema.Array(Schema.Union([Schema.String, Schema.Number])),
  message: Schema.String
})

/** 401 auth/unauthenticated. */
export class Unauthenticated extends HttpApiError.Problem<Unauthenticated>()(
  "Unauthenticated",
  declare("auth/unauthenticated"),
  { ...members("auth/unauthenticated") }
) {}

/** 403 auth/forbidden. */
export class Forbidden extends HttpApiError.Problem<Forbidden>()(
  "Forbidden",
  declare("auth/forbidden"),
  { ...members("auth/forbidden") }
) {}

/** 401 auth/sign-in-link-invalid: the e-mailed link is unknown, used or expired (decision 0022). */
export class SignInLinkInvalid extends HttpApiError.Problem<SignInLinkInvalid>()(
  "SignInLinkInvalid",
  declare("auth/sign-in-link-invalid"),
  { ...members("auth/sign-in-link-invalid") }
) {}

/** 403 auth/csrf-failed: an unsafe request signed in by cookie without the page's CSRF token or from another origin (decision 0022). */
export class CsrfFailed extends HttpApiError.Problem<CsrfFailed>()(
  "CsrfFailed",
  declare("auth/csrf-failed"),
  { ...members("auth/csrf-failed") }
) {}

/** 404 resource/not-found. */
export class NotFound extends HttpApiError.Problem<NotFound>()(
  "NotFound",
  declare("resource/not-found"),
  { ...members("resource/not-found") }
) {}

/** 400 request/invalid, with every issue found. */
export class InvalidRequest extends HttpApiError.Problem<InvalidRequest>()(
  "InvalidRequest",
  declare("request/invalid"),
  { ...members("request/invalid"), errors: Schema.Array(Issue) }
) {}

/** 400 request/malformed-json. */
export class MalformedJson extends HttpApiError.Problem<MalformedJson>()(
  "MalformedJson",
  declare("request/malformed-json"),
  { ...members("request/malformed-json") }
) {}

/** 413 request/body-too-large: the body is over the cap (1 MiB; an upload's own is larger). */
export class BodyTooLarge extends HttpApiError.Problem<BodyTooLarge>()(
  "BodyTooLarge",
  declare("request/body-too-large"),
  { ...members("request/body-too-large") }
) {}

/** 415 request/unsupported-media-type: the body is not of the media type the operation takes. */
export class UnsupportedMediaType extends HttpApiError.Problem<UnsupportedMediaType>()(
  "UnsupportedMediaType",
  declare("request/unsupported-media-type"),
  { ...members("request/unsupported-media-type") }
) {}

/** 400 pagination/cursor-invalid. */
export class CursorInvalid extends HttpApiError.Problem<CursorInvalid>()(
  "CursorInvalid",
  declare("pagination/cursor-invalid"),
  { ...members("pagination/cursor-invalid") }
) {}

/** 400 pagination/cursor-expired. */
export class CursorExpired extends HttpApiError.Problem<CursorExpired>()(
  "CursorExpired",
  declare("pagination/cursor-expired"),
  { ...members("pagination/cursor-expired") }
) {}

/** 400 pagination/cursor-mismatch. */
export class CursorMismatch extends HttpApiError.Problem<CursorMismatch>()(
  "CursorMismatch",
  declare("pagination/cursor-mismatch"),
  { ...members("pagination/cursor-mismatch") }
) {}

/** 400 idempotency/invalid-key. */
export class IdempotencyKeyInvalid extends HttpApiError.Problem<IdempotencyKeyInvalid>()(
  "IdempotencyKeyInvalid",
  declare("idempotency/invalid-key"),
  { ...members("idempotency/invalid-key") }
) {}

/** 422 idempotency/key-reused. */
export class IdempotencyKeyReused extends HttpApiError.Problem<IdempotencyKeyReused>()(
  "IdempotencyKeyReused",
  declare("idempotency/key-reused"),
  { ...members("idempotency/key-reused") }
) {}

/** 409 idempotency/in-progress. */
export class IdempotencyInProgress extends HttpApiError.Problem<IdempotencyInProgress>()(
  "IdempotencyInProgress",
  declare("idempotency/in-progress"),
  { ...members("idempotency/in-progress") }
) {}

/** 400 webhook/scheme-not-allowed (decision 0010). */
export class SchemeNotAllowed extends HttpApiError.Problem<SchemeNotAllowed>()(
  "SchemeNotAllowed",
  declare("webhook/scheme-not-allowed"),
  { ...members("webhook/scheme-not-allowed") }
) {}

/** 403 webhook/firehose-not-in-plan (decision 0010: audit.event on Scale only). */
export class FirehoseNotInPlan extends HttpApiError.Problem<FirehoseNotInPlan>()(
  "FirehoseNotInPlan",
  declare("webhook/firehose-not-in-plan"),
  { ...members("webhook/firehose-not-in-plan") }
) {}

/** 409 webhook/disabled. */
export class WebhookDisabled extends HttpApiError.Problem<WebhookDisabled>()(
  "WebhookDisabled",
  declare("webhook/disabled"),
  { ...members("webhook/disabled") }
) {}

/** 409 webhook/delivery-in-progress. */
export class DeliveryInProgress extends HttpApiError.Problem<DeliveryInProgress>()(
  "DeliveryInProgress",
  declare("webhook/delivery-in-progress"),
  { ...members("webhook/delivery-in-progress") }
) {}

/** 409 directory/email-taken. */
export class EmailTaken extends HttpApiError.Problem<EmailTaken>()(
  "EmailTaken",
  declare("directory/email-taken"),
  { ...members("directory/email-taken") }
) {}

/** 409 directory/user-deprovisioned. */
export class UserDeprovisioned extends HttpApiError.Problem<UserDeprovisioned>()(
  "UserDeprovisioned",
  declare("directory/user-deprovisioned"),
  { ...members("directory/user-deprovisioned") }
) {}

/** 409 directory/managed-by-identity-provider. */
export class ManagedByIdentityProvider extends HttpApiError.Problem<ManagedByIdentityProvider>()(
  "ManagedByIdentityProvider",
  declare("directory/managed-by-identity-provider"),
  { ...members("directory/managed-by-identity-provider") }
) {}

/** 404 directory/invitation-not-found. */
export class InvitationNotFound extends HttpApiError.Problem<InvitationNotFound>()(
  "InvitationNotFound",
  declare("directory/invitation-not-found"),
  { ...members("directory/invitation-not-found") }
) {}

/** 410 directory/invitation-closed, with the invitation's status. */
export class InvitationClosed extends HttpApiError.Problem<InvitationClosed>()(
  "InvitationClosed",
  declare("directory/invitation-closed"),
  { ...members("directory/invitation-closed"), status_of_invitation: Schema.Literals(["accepted", "revoked", "expired"]) }
) {}

/** 503 service/unavailable: the store failed; the request may be retried. */
export class ServiceUnavailable extends HttpApiError.Problem<ServiceUnavailable>()(
  "ServiceUnavailable",
  declare("service/unavailable"),
  { ...members("service/unavailable") }
) {}

/** Seconds to wait before retrying, as in the `Retry-After` header that comes with it. */
const retryAfter = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)).annotate({
  description: "Seconds until the next request passes; the same as the Retry-After header"
})

/** A 429 problem class for a rate-limit code, with `retry_after`. */
const tooManyRequests = <Self>() => <const Tag extends string, const C extends Code>(tag: Tag, code: C) =>
  HttpApiError.Problem<Self>()(tag, declare(code), { ...members(code), retry_after: retryAfter })

/** 429 rate-limit/burst-exceeded: the tenant's burst bucket for this endpoint class is empty (decision 0009). */
export class BurstExceeded extends tooManyRequests<BurstExceeded>()("BurstExceeded", "rate-limit/burst-exceeded") {}

/** 429 rate-limit/sustained-exceeded: the tenant's hourly window for this endpoint class is full (decision 0009). */
export class SustainedExceeded
  extends tooManyRequests<SustainedExceeded>()("SustainedExceeded", "rate-limit/sustained-exceeded")
{}

/** 429 rate-limit/query-concurrency: the workspace runs as many queries as its plan allows (decision 0009). */
export class QueryConcurrency
  extends tooManyRequests<QueryConcurrency>()("QueryConcurrency", "rate-limit/query-concurrency")
{}

/** 429 rate-limit/ai-questions-exceeded (decision 0009). */
export class AiQuestionsExceeded
  extends tooManyRequests<AiQuestionsExceeded>()("AiQuestionsExceeded", "rate-limit/ai-questions-exceeded")
{}

/** 429 rate-limit/exports-exceeded (decision 0009). */
export class ExportsExceeded extends tooManyRequests<ExportsExceeded>()("ExportsExceeded", "rate-limit/exports-exceeded") {}

/** 429 rate-limit/password-attempts-exceeded (decision 0009). */
export class PasswordAttemptsExceeded extends tooManyRequests<PasswordAttemptsExceeded>()(
  "PasswordAttemptsExceeded",
  "rate-limit/password-attempts-exceeded"
) {}

/** 429 rate-limit/shared-views-exceeded: views of links and embeds per client address. */
export class SharedViewsExceeded extends tooManyRequests<SharedViewsExceeded>()(
  "SharedViewsExceeded",
  "rate-limit/shared-views-exceeded"
) {}

/** 429 rate-limit/sign-in-links-exceeded: sign-in links per e-mail address and per client address (decision 0022). */
export class SignInLinksExceeded extends tooManyRequests<SignInLinksExceeded>()(
  "SignInLinksExceeded",
  "rate-limit/sign-in-links-exceeded"
) {}

/** The 429s of the tenant's own limits, which any authenticated request can meet. */
export const rateLimitProblems = [BurstExceeded, SustainedExceeded] as const

/** The problems of reading any request body, which every operation taking one may answer (`RequestBodyProblems`). */
export const bodyProblems = [BodyTooLarge, UnsupportedMediaType] as const

/** The cursor problems every list endpoint declares. */
export const cursorProblems = [CursorInvalid, CursorExpired, CursorMismatch] as const

/** The idempotency problems every POST endpoint declares. */
export const idempotencyProblems = [IdempotencyKeyInvalid, IdempotencyKeyReused, IdempotencyInProgress] as const

/**
 * A problem for the conditions no endpoint declares (unknown route, wrong
 * method, oversized body, defects): rendered straight as problem+json.
 */
export const undeclared = (
  code: Code,
  detail?: string,
  extensions?: Record<string, unknown>
): { readonly type: string; readonly status: number; readonly title: string; readonly [k: string]: unknown } => ({
  ...declare(code),
  ...(detail === undefined ? {} : { detail }),
  code,
  ...extensions
})

/** A member of a model that does not fit the columns of the rows (or of an uploaded file). */
export const ColumnMismatch = Schema.Struct({
  member: Schema.String,
  kind: Schema.Literals(["dimension", "measure"]),
  column: Schema.String.annotate({ description: "The column the member reads" }),
  problem: Schema.Literals(["missing", "not-numeric"]).annotate({ description: "The column does not exist, or a sum or average reads a column that is not numeric" }),
  message: Schema.String
})

/** 400 dataset/model-invalid; against a file's columns, with every mismatch and the columns the file has. */
export class ModelInvalid extends HttpApiError.Problem<ModelInvalid>()(
  "ModelInvalid",
  declare("dataset/model-invalid"),
  {
    ...members("dataset/model-invalid"),
    mismatches: Schema.optionalKey(Schema.Array(ColumnMismatch).annotate({ description: "Every member that does not fit the columns" })),
    file_columns: Schema.optionalKey(Schema.Array(Schema.String).annotate({ description: "The columns the rows (or the uploaded file) have" }))
  }
) {}

/** Where a file was refused: its line (1 for the header) and, when known, its field (1 for the first). */
export const FileIssue = Schema.Struct({
  path: Schema.Array(Schema.Union([Schema.String, Schema.Number])).annotate({ description: "[\"body\"]: the uploaded file" }),
  line: Schema.Number,
  field: Schema.optionalKey(Schema.Number),
  message: Schema.String
})

/** 400 dataset/source-invalid; for a CSV file the strict check refused, where in `errors`. */
export class SourceInvalid extends HttpApiError.Problem<SourceInvalid>()(
  "SourceInvalid",
  declare("dataset/source-invalid"),
  { ...members("dataset/source-invalid"), errors: Schema.optionalKey(Schema.Array(FileIssue)) }
) {}

/** 400 dataset/engine-unavailable. */
export class EngineUnavailable extends HttpApiError.Problem<EngineUnavailable>()(
  "EngineUnavailable",
  declare("dataset/engine-unavailable"),
  { ...members("dataset/engine-unavailable") }
) {}

/** 409 dataset/not-loaded. */
export class NotLoaded extends HttpApiError.Problem<NotLoaded>()(
  "NotLoaded",
  declare("dataset/not-loaded"),
  { ...members("dataset/not-loaded") }
) {}

/** 400 query/invalid, naming the member at fault when there is one. */
export class QueryInvalid extends HttpApiError.Problem<QueryInvalid>()(
  "QueryInvalid",
  declare("query/invalid"),
  { ...members("query/invalid"), member: Schema.optionalKey(Schema.String) }
) {}

/** 422 query/timed-out. */
export class QueryTimedOut extends HttpApiError.Problem<QueryTimedOut>()(
  "QueryTimedOut",
  declare("query/timed-out"),
  { ...members("query/timed-out") }
) {}

/** 409 dataset/in-use: the reports, dashboards and alerts that use the dataset, by id and name; nothing was deleted. */
export class DatasetInUse extends HttpApiError.Problem<DatasetInUse>()(
  "DatasetInUse",
  declare("dataset/in-use"),
  {
    ...members("dataset/in-use"),
    reports: Schema.Array(Schema.Struct({ report_id: Schema.String, name: Schema.String })).annotate({ description: "The reports with a visual of the dataset" }),
    dashboards: Schema.Array(Schema.Struct({ dashboard_id: Schema.String, name: Schema.String })).annotate({ description: "The dashboards with a tile of those reports" }),
    alerts: Schema.Array(Schema.Struct({ alert_id: Schema.String, name: Schema.String })).annotate({ description: "The alerts on the dataset" })
  }
) {}

/** 409 dataset/refresh-needs-file. */
export class RefreshNeedsFile extends HttpApiError.Problem<RefreshNeedsFile>()(
  "RefreshNeedsFile",
  declare("dataset/refresh-needs-file"),
  { ...members("dataset/refresh-needs-file") }
) {}

/** 400 report/invalid. */
export class ReportInvalid extends HttpApiError.Problem<ReportInvalid>()(
  "ReportInvalid",
  declare("report/invalid"),
  { ...members("report/invalid") }
) {}

/** 400 dashboard/invalid. */
export class DashboardInvalid extends HttpApiError.Problem<DashboardInvalid>()(
  "DashboardInvalid",
  declare("dashboard/invalid"),
  { ...members("dashboard/invalid") }
) {}

/** 400 grant/invalid. */
export class GrantInvalid extends HttpApiError.Problem<GrantInvalid>()(
  "GrantInvalid",
  declare("grant/invalid"),
  { ...members("grant/invalid") }
) {}

/** 409 grant/not-active: the grant is kept for the record and changes no more. */
export class GrantNotActive extends HttpApiError.Problem<GrantNotActive>()(
  "GrantNotActive",
  declare("grant/not-active"),
  { ...members("grant/not-active"), state: Schema.Literals(["expired", "revoked"]) }
) {}

/** 403 share/expired: the grant that gave access has expired (kept for audit). */
export class ShareExpired extends HttpApiError.Problem<ShareExpired>()(
  "ShareExpired",
  declare("share/expired"),
  { ...members("share/expired") }
) {}

/** 400 export/invalid. */
export class ExportInvalid extends HttpApiError.Problem<ExportInvalid>()(
  "ExportInvalid",
  declare("export/invalid"),
  { ...members("export/invalid") }
) {}

/** 400 schedule/invalid: a recipient who is no active user of the tenant. */
export class ScheduleInvalid extends HttpApiError.Problem<ScheduleInvalid>()(
  "ScheduleInvalid",
  declare("schedule/invalid"),
  { ...members("schedule/invalid") }
) {}

/** 400 comment/invalid: a visual the report lacks, a parent that is no thread's first comment. */
export class CommentInvalid extends HttpApiError.Problem<CommentInvalid>()(
  "CommentInvalid",
  declare("comment/invalid"),
  { ...members("comment/invalid") }
) {}

/** 409 comment/deleted: a deleted comment (a tombstone) changes no more. */
export class CommentDeleted extends HttpApiError.Problem<CommentDeleted>()(
  "CommentDeleted",
  declare("comment/deleted"),
  { ...members("comment/deleted") }
) {}

/** 409 export/not-ready: the job has not succeeded (yet, or at all). */
export class ResultNotReady extends HttpApiError.Problem<ResultNotReady>()(
  "ResultNotReady",
  declare("export/not-ready"),
  { ...members("export/not-ready"), status_of_job: Schema.Literals(["queued", "running", "succeeded", "failed", "canceled"]) }
) {}
