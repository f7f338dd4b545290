/**
 * The handlers of every group of the API, one module per group: thin
 * translations between the contract of `@analytics/api` and the core's use cases.
 *
 * @since 0.1.0
 */
export { aiLayer } from "./Ai.ts"
export { alertsLayer } from "./Alerts.ts"
export { auditLogLayer } from "./AuditLog.ts"
export { commentsLayer } from "./Comments.ts"
export { dashboardsLayer } from "./Dashboards.ts"
export { datasetsLayer } from "./Datasets.ts"
export { executiveRolesLayer } from "./ExecutiveRoles.ts"
export { exportSchedulesLayer } from "./ExportSchedules.ts"
export { exportsLayer } from "./Exports.ts"
export { invitationAcceptanceLayer } from "./InvitationAcceptance.ts"
export { invitationsLayer } from "./Invitations.ts"
export { reportsLayer } from "./Reports.ts"
export { scimTokensLayer } from "./ScimTokens.ts"
export { sharingLayer } from "./Sharing.ts"
export { systemLayer } from "./System.ts"
export { teamsLayer } from "./Teams.ts"
export { tenantsLayer } from "./Tenants.ts"
export { usersLayer } from "./Users.ts"
export { webhooksLayer } from "./Webhooks.ts"
export { workspacesLayer } from "./Workspaces.ts"
