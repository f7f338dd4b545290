/**
 * Domain errors as problems: maps each error of the core's use cases onto
 * the problem of `@analytics/api` the endpoints declare for it.
 *
 * @since 0.1.0
 */
import { Problems } from "@analytics/api"
import { Errors } from "@analytics/core"
import type { AnalyticsEngine, Comments, Cursor, Dashboards, DatasetDeletion, Datasets, Directory, Exports, ExportSchedules, Grants, Idempotency, Invitations, Limiter, Mailer, Pagination, Reports, SemanticModel, SemanticQuery, Sessions, Tenants, TenantTokens, Webhook, Webhooks, WebhookUrl } from "@analytics/core"

/** Every domain error a handler may meet. */
export type DomainError =
  | Errors.Unauthenticated
  | Errors.Forbidden
  | Errors.NotFound
  | Errors.StoreError
  | Cursor.CursorError
  | Pagination.InvalidSort
  | Idempotency.IdempotencyKeyInvalid
  | Idempotency.IdempotencyKeyReused
  | Idempotency.IdempotencyInProgress
  | Tenants.LimitsNeedCustomPlan
  | Limiter.RateLimited
  | WebhookUrl.WebhookUrlRefused
  | Webhook.FirehoseNeedsScalePlan
  | Webhooks.UnknownWorkspace
  | Webhooks.WebhookDisabled
  | Webhooks.DeliveryInProgress
  | Directory.EmailTaken
  | Directory.ManagedByIdentityProvider
  | TenantTokens.UserDeprovisioned
  | Invitations.InvitationUnknown
  | Sessions.SignInLinkInvalid
  | Invitations.InvitationClosed
  | Mailer.MailError
  | SemanticModel.ModelInvalid
  | SemanticQuery.QueryInvalid
  | Datasets.SourceInvalid
  | Datasets.EngineUnavailable
  | Datasets.NotLoaded
  | Datasets.QueryTimedOut
  | Datasets.RefreshNeedsFile
  | DatasetDeletion.DatasetInUse
  | Reports.ReportInvalid
  | Dashboards.DashboardInvalid
  | Grants.GrantInvalid
  | Grants.GrantNotActive
  | Grants.ShareExpired
  | Exports.ExportInvalid
  | Exports.ResultNotReady
  | ExportSchedules.ScheduleInvalid
  | Comments.CommentInvalid
  | Comments.CommentDeleted
  | AnalyticsEngine.EngineError

/** The problem class of each per-operation refusal code. */
const refusals = {
  "rate-limit/burst-exceeded": Problems.BurstExceeded,
  "rate-limit/sustained-exceeded": Problems.SustainedExceeded,
  "rate-limit/query-concurrency": Problems.QueryConcurrency,
  "rate-limit/ai-questions-exceeded": Problems.AiQuestionsExceeded,
  "rate-limit/exports-exceeded": Problems.ExportsExceeded,
  "rate-limit/password-attempts-exceeded": Problems.PasswordAttemptsExceeded,
  "rate-limit/shared-views-exceeded": Problems.SharedViewsExceeded,
  "rate-limit/sign-in-links-exceeded": Problems.SignInLinksExceeded
} as const

/** The 429 problem of a refusal code. */
type RefusalOf<Code extends keyof typeof refusals> = InstanceType<(typeof refusals)[Code]>

/** The problem a domain error is. */
export type ProblemOf<E extends DomainError> = E extends Errors.Unauthenticated ? Problems.Unauthenticated
  : E extends Errors.Forbidden ? Problems.Forbidden
  : E extends Errors.NotFound ? Problems.NotFound
  : E extends Errors.StoreError ? Problems.ServiceUnavailable
  : E extends Cursor.CursorInvalid ? Problems.CursorInvalid
  : E extends Cursor.CursorExpired ? Problems.CursorExpired
  : E extends Cursor.CursorMismatch ? Problems.CursorMismatch
  : E extends Pagination.InvalidSort ? Problems.InvalidRequest
  : E extends Idempotency.IdempotencyKeyInvalid ? Problems.IdempotencyKeyInvalid
  : E extends Idempotency.IdempotencyKeyReused ? Problems.IdempotencyKeyReused
  : E extends Idempotency.IdempotencyInProgress ? Problems.IdempotencyInProgress
  : E extends Tenants.LimitsNeedCustomPlan ? Problems.InvalidRequest
  : E extends Limiter.RateLimited ? RefusalOf<E["code"]>
  : E extends WebhookUrl.WebhookUrlRefused ? Problems.SchemeNotAllowed | Problems.InvalidRequest
  : E extends Webhook.FirehoseNeedsScalePlan ? Problems.FirehoseNotInPlan
  : E extends Webhooks.UnknownWorkspace ? Problems.InvalidRequest
  : E extends Webhooks.WebhookDisabled ? Problems.WebhookDisabled
  : E extends Webhooks.DeliveryInProgress ? Problems.DeliveryInProgress
  : E extends Directory.EmailTaken ? Problems.EmailTaken
  : E extends Directory.ManagedByIdentityProvider ? Problems.ManagedByIdentityProvider
  : E extends TenantTokens.UserDeprovisioned ? Problems.UserDeprovisioned
  : E extends Invitations.InvitationUnknown ? Problems.InvitationNotFound
  : E extends Sessions.SignInLinkInvalid ? Problems.SignInLinkInvalid
  : E extends Invitations.InvitationClosed ? Problems.InvitationClosed
  : E extends Mailer.MailError ? Problems.ServiceUnavailable
  : E extends SemanticModel.ModelInvalid ? Problems.ModelInvalid
  : E extends SemanticQuery.QueryInvalid ? Problems.QueryInvalid
  : E extends Datasets.SourceInvalid ? Problems.SourceInvalid
  : E extends Datasets.EngineUnavailable ? Problems.EngineUnavailable
  : E extends Datasets.NotLoaded ? Problems.NotLoaded
  : E extends Datasets.QueryTimedOut ? Problems.QueryTimedOut
  : E extends Datasets.RefreshNeedsFile ? Problems.RefreshNeedsFile
  : E extends DatasetDeletion.DatasetInUse ? Problems.DatasetInUse
  : E extends Reports.ReportInvalid ? Problems.ReportInvalid
  : E extends Dashboards.DashboardInvalid ? Problems.DashboardInvalid
  : E extends Grants.GrantInvalid ? Problems.GrantInvalid
  : E extends Grants.GrantNotActive ? Problems.GrantNotActive
  : E extends Grants.ShareExpired ? Problems.ShareExpired
  : E extends Exports.ExportInvalid ? Problems.ExportInvalid
  : E extends Exports.ResultNotReady ? Problems.ResultNotReady
  : E extends ExportSchedules.ScheduleInvalid ? Problems.ScheduleInvalid
  : E extends Comments.CommentInvalid ? Problems.CommentInvalid
  : E extends Comments.CommentDeleted ? Problems.CommentDeleted
  : E extends AnalyticsEngine.EngineError ? Problems.ServiceUnavailable
  : never

/** The problem answering a domain error; made without a stack trace, as the domain's failures are (`Errors.withoutStackTrace`). */
export const toProblem = <E extends DomainError>(error: E): ProblemOf<E> => {
  const problem = Errors.withoutStackTrace(() => {
    switch (error._tag) {
      case "Unauthenticated":
        return new Problems.Unauthenticated({ detail: error.detail })
      case "Forbidden":
        return new Problems.Forbidden({ detail: error.detail })
      case "NotFound":
        return new Problems.NotFound({ detail: `No ${error.resource} ${error.id}` })
      case "StoreError":
        return new Problems.ServiceUnavailable({ detail: "The store is unavailable; retry later" })
      case "CursorInvalid":
        return new Problems.CursorInvalid({ detail: "The cursor was not issued by this service or was altered" })
      case "CursorExpired":
        return new Problems.CursorExpired({
          detail: `The cursor was issued at ${error.issuedAt.toISOString()}; restart from the first page`
        })
      case "CursorMismatch":
        return new Problems.CursorMismatch({
          detail: "The cursor belongs to another endpoint or query string; send the same query with it"
        })
      case "InvalidSort":
        return new Problems.InvalidRequest({
          detail: "The request failed validation; see errors",
          errors: [{ path: ["query", "sort"], message: `Expected one of ${error.allowed.join(", ")}` }]
        })
      case "IdempotencyKeyInvalid":
        return new Problems.IdempotencyKeyInvalid({ detail: error.detail })
      case "IdempotencyKeyReused":
        return new Problems.IdempotencyKeyReused({
          detail: "This Idempotency-Key was used with a different request body; use a new key"
        })
      case "LimitsNeedCustomPlan":
        return new Problems.InvalidRequest({
          detail: "The request failed validation; see errors",
          errors: [{ path: ["body", "limits"], message: `Negotiated limits apply to the custom plan only, not ${error.plan}` }]
        })
      case "RateLimited":
        return new refusals[error.code]({ detail: error.detail, retry_after: error.retryAfterSeconds })
      case "WebhookUrlRefused":
        return error.reason === "scheme"
          ? new Problems.SchemeNotAllowed({ detail: error.message })
          : new Problems.InvalidRequest({
            detail: "The request failed validation; see errors",
            errors: [{ path: ["body", "url"], message: error.message }]
          })
      case "FirehoseNeedsScalePlan":
        return new Problems.FirehoseNotInPlan({
          detail: `audit.event is available on the Scale plan; this tenant is on ${error.plan}`
        })
      case "UnknownWorkspace":
        return new Problems.InvalidRequest({
          detail: "The request failed validation; see errors",
          errors: [{ path: ["body", "workspace_id"], message: `No workspace ${error.workspaceId} in this tenant` }]
        })
      case "WebhookDisabled":
        return new Problems.WebhookDisabled({
          detail: `Webhook ${error.webhookId} is disabled; enable it with PATCH {"enabled": true} first`
        })
      case "DeliveryInProgress":
        return new Problems.DeliveryInProgress({
          detail: `Delivery ${error.deliveryId} is still being attempted; re-deliver it once it has succeeded or failed`
        })
      case "EmailTaken":
        return new Problems.EmailTaken({ detail: `A user of this tenant already has ${error.email}` })
      case "UserDeprovisioned":
        return new Problems.UserDeprovisioned({ detail: `User ${error.userId} is deprovisioned; reactivate them first` })
      case "ManagedByIdentityProvider":
        return new Problems.ManagedByIdentityProvider({
          detail: `Group ${error.groupId} is synced from the identity provider over SCIM; change it there`
        })
      case "SignInLinkInvalid":
        return new Problems.SignInLinkInvalid({
          detail: "This sign-in link is unknown, was used already or has expired. Ask for a new link"
        })
      case "InvitationUnknown":
        return new Problems.InvitationNotFound({ detail: "No invitation has this token; ask for a new one" })
      case "InvitationClosed":
        return new Problems.InvitationClosed({
          detail: `The invitation is ${error.status}`,
          status_of_invitation: error.status
        })
      case "MailError":
        return new Problems.ServiceUnavailable({
          detail: "The e-mail could not be sent; the invitation is kept: resend it later"
        })
      case "ModelInvalid":
        return new Problems.ModelInvalid({
          detail: error.detail,
          ...(error.mismatches === undefined ? {} : { mismatches: error.mismatches }),
          ...(error.fileColumns === undefined ? {} : { file_columns: error.fileColumns })
        })
      case "QueryInvalid":
        return new Problems.QueryInvalid({ detail: error.detail, ...(error.member === undefined ? {} : { member: error.member }) })
      case "SourceInvalid":
        return new Problems.SourceInvalid({ detail: error.detail })
      case "EngineUnavailable":
        return new Problems.EngineUnavailable({
          detail: error.source === "upload"
            ? "This service has no engine for uploaded files"
            : "This service has no PostgreSQL engine configured for direct query"
        })
      case "NotLoaded":
        return new Problems.NotLoaded({ detail: `Dataset ${error.datasetId} has no rows yet: PUT a CSV or Parquet file to /v1/datasets/${error.datasetId}/data` })
      case "QueryTimedOut":
        return new Problems.QueryTimedOut({ detail: `The query ran longer than ${error.seconds} s and was cancelled; narrow it (filters, a date range, fewer dimensions)` })
      case "RefreshNeedsFile":
        return new Problems.RefreshNeedsFile({ detail: `Dataset ${error.datasetId} is an upload: PUT its file to /v1/datasets/${error.datasetId}/data again` })
      case "DatasetInUse": {
        const { reports, dashboards, alerts } = error.uses
        const named = (what: string, uses: ReadonlyArray<{ readonly name: string }>) =>
          uses.length === 0 ? [] : [`${what} ${uses.map((u) => `"${u.name}"`).join(", ")}`]
        return new Problems.DatasetInUse({
          detail: `Dataset "${error.name}" is used by ${[...named("the reports", reports), ...named("the dashboards", dashboards), ...named("the alerts", alerts)].join("; ")}. ` +
            "Nothing was deleted: delete them or take the dataset out of them first",
          reports: reports.map((u) => ({ report_id: u.id, name: u.name })),
          dashboards: dashboards.map((u) => ({ dashboard_id: u.id, name: u.name })),
          alerts: alerts.map((u) => ({ alert_id: u.id, name: u.name }))
        })
      }
      case "DashboardInvalid":
        return new Problems.DashboardInvalid({ detail: error.detail })
      case "ReportInvalid":
        return new Problems.ReportInvalid({ detail: error.detail })
      case "GrantInvalid":
        return new Problems.GrantInvalid({ detail: error.detail })
      case "ExportInvalid":
        return new Problems.ExportInvalid({ detail: error.detail })
      case "ScheduleInvalid":
        return new Problems.ScheduleInvalid({ detail: error.detail })
      case "CommentInvalid":
        return new Problems.CommentInvalid({ detail: error.detail })
      case "CommentDeleted":
        return new Problems.CommentDeleted({ detail: `Comment ${error.commentId} was deleted: its tombstone changes no more` })
      case "ResultNotReady":
        return new Problems.ResultNotReady({ detail: `The job is ${error.status}; a result exists once it has succeeded`, status_of_job: error.status })
      case "ShareExpired":
        return new Problems.ShareExpired({ detail: error.detail })
      case "GrantNotActive":
        return new Problems.GrantNotActive({ detail: `The grant is ${error.state}: it is kept for the record and changes no more`, state: error.state })
      case "EngineError":
        return new Problems.ServiceUnavailable({ detail: "The analytics engine failed; retry later" })
      case "IdempotencyInProgress":
        return new Problems.IdempotencyInProgress({
          detail: "The first request with this Idempotency-Key is still running; retry shortly"
        })
    }
  })
  return problem as ProblemOf<E>
}
