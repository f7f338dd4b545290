/**
 * The HTTP contract of the service, defined once: the server, the OpenAPI
 * 3.1 document and the typed client all derive from it. Each group is in
 * its own module under `groups/`.
 *
 * @since 0.1.0
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { AiGroup } from "./groups/Ai.ts"
import { AlertsGroup } from "./groups/Alerts.ts"
import { AuditLogGroup } from "./groups/AuditLog.ts"
import { BrandingGroup } from "./groups/Branding.ts"
import { CommentsGroup } from "./groups/Comments.ts"
import { DashboardsGroup } from "./groups/Dashboards.ts"
import { DatasetsGroup } from "./groups/Datasets.ts"
import { ExecutiveRolesGroup } from "./groups/ExecutiveRoles.ts"
import { ExportSchedulesGroup } from "./groups/ExportSchedules.ts"
import { ExportsGroup } from "./groups/Exports.ts"
import { InvitationAcceptanceGroup } from "./groups/InvitationAcceptance.ts"
import { InvitationsGroup } from "./groups/Invitations.ts"
import { ReportsGroup } from "./groups/Reports.ts"
import { ScimTokensGroup } from "./groups/ScimTokens.ts"
import { SessionGroup } from "./groups/Session.ts"
import { SharingGroup } from "./groups/Sharing.ts"
import { SystemGroup } from "./groups/System.ts"
import { TeamsGroup } from "./groups/Teams.ts"
import { TenantsGroup } from "./groups/Tenants.ts"
import { UsersGroup } from "./groups/Users.ts"
import { documentWebhooks, WebhooksGroup } from "./groups/Webhooks.ts"
import { WorkspacesGroup } from "./groups/Workspaces.ts"
import { Validation } from "./Middleware.ts"
import * as QueryParams from "./QueryParams.ts"
import * as RateLimitHeaders from "./RateLimitHeaders.ts"
import * as RequestBodyProblems from "./RequestBodyProblems.ts"
import * as ResponseHeaders from "./ResponseHeaders.ts"

/** The whole API. */
export const Api = HttpApi.make("analytics")
  .add(SystemGroup)
  .add(SessionGroup)
  .add(TenantsGroup)
  .add(WorkspacesGroup)
  .add(WebhooksGroup)
  .add(UsersGroup)
  .add(TeamsGroup)
  .add(ExecutiveRolesGroup)
  .add(ScimTokensGroup)
  .add(InvitationsGroup)
  .add(InvitationAcceptanceGroup)
  .add(DatasetsGroup)
  .add(ReportsGroup)
  .add(AlertsGroup)
  .add(CommentsGroup)
  .add(DashboardsGroup)
  .add(AuditLogGroup)
  .add(SharingGroup)
  .add(BrandingGroup)
  .add(ExportsGroup)
  .add(ExportSchedulesGroup)
  .add(AiGroup)
  .middleware(Validation)
  .annotate(HttpApi.ParseOptions, { errors: "all", onExcessProperty: "error" })
  .annotate(HttpApi.HeadersParseOptions, { errors: "all" })
  // Responses are built from values the domain already validated: re-checking every row costs more than it catches.
  .annotate(HttpApi.SuccessParseOptions, { disableChecks: true })
  .annotate(OpenApi.Title, "Analytics Service API")
  .annotate(OpenApi.Version, "0.1.0")
  .annotate(
    OpenApi.Description,
    "Multi-tenant analytics: workspaces, datasets, reports, exports, sharing, webhooks. Errors are RFC 9457 problem+json with a `code` member."
  )
  .annotate(HttpApi.AdditionalSchemas, RequestBodyProblems.schemas)
  // The headers last: they go on every response, the body problems' included.
  .annotate(
    OpenApi.Transform,
    (spec) =>
      ResponseHeaders.documentRequestId(
        RateLimitHeaders.document(RequestBodyProblems.document(documentWebhooks(QueryParams.documentQueryParams(spec))))
      )
  )
