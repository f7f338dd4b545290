/**
 * The handlers of every group of the API, one module per group: thin
 * translations between the contract of `@analytics/api` and the core's use cases.
 *
 * @since 0.1.0
 */
/** The handlers of the Ai group. */
export { aiLayer } from "./Ai.ts"
/** `/v1/alerts...`: members read; tenant admins write and check. */
export { alertsLayer } from "./Alerts.ts"
/** `GET /v1/audit-log`: tenant admins only. */
export { auditLogLayer } from "./AuditLog.ts"
/** `/v1/reports/{id}/comments` and `/v1/comments/{id}`: members read; holders of comment post; authors edit; authors and admins delete. */
export { commentsLayer } from "./Comments.ts"
/** `/v1/dashboards...`: members read and run tiles; tenant admins write. */
export { dashboardsLayer } from "./Dashboards.ts"
/** `/v1/datasets...`: members list, read and query; tenant admins create, describe and delete. */
export { datasetsLayer } from "./Datasets.ts"
/** `/v1/executive-roles...`: tenant admins only. */
export { executiveRolesLayer } from "./ExecutiveRoles.ts"
/** `/v1/export-schedules...`: tenant admins, and members with download on the report for their own. */
export { exportSchedulesLayer } from "./ExportSchedules.ts"
/** `POST /v1/reports/{id}/export` and `/v1/jobs...`. */
export { exportsLayer } from "./Exports.ts"
/** `POST /v1/invitations/accept`: the token is the credential. */
export { invitationAcceptanceLayer } from "./InvitationAcceptance.ts"
/** `/v1/invitations...`: tenant admins only. */
export { invitationsLayer } from "./Invitations.ts"
/** `/v1/reports...`: members list, read and run visuals; tenant admins write. */
export { reportsLayer } from "./Reports.ts"
/** `POST /v1/scim-tokens`: tenant admins only. */
export { scimTokensLayer } from "./ScimTokens.ts"
export { brandingLayer } from "./Branding.ts"
/** `/api/session...`: console sign-in and sessions (decision 0022). */
export { sessionLayer } from "./Session.ts"
/** `/v1/sharing/grants...` and `/v1/workspaces/{id}/links`. */
export { sharingLayer } from "./Sharing.ts"
/** `GET /healthz` and `GET /api/config/public`. */
export { systemLayer } from "./System.ts"
/** `/v1/teams...`: tenant admins only. */
export { teamsLayer } from "./Teams.ts"
/** `POST /v1/tenants`, `PATCH /v1/tenants/{tenant_id}`. */
export { tenantsLayer } from "./Tenants.ts"
/** `/v1/users...`: tenant admins only. */
export { usersLayer } from "./Users.ts"
/** `/v1/webhooks...` and `/v1/event-types`. */
export { webhooksLayer } from "./Webhooks.ts"
/** `GET|POST /v1/workspaces`. */
export { workspacesLayer } from "./Workspaces.ts"
