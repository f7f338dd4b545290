/**
 * The endpoint groups of the API, one module each: the group, the JSON
 * shapes its endpoints answer, its path parameters.
 *
 * @since 0.1.0
 */
/** Questions about datasets, answered from their semantic layer (decision 0016). */
export * as Ai from "./Ai.ts"
/** Alerts on datasets' measures. */
export * as Alerts from "./Alerts.ts"
/** The audit log: read only, for tenant admins. */
export * as AuditLog from "./AuditLog.ts"
/** The tenant's branding of its share pages. */
export * as Branding from "./Branding.ts"
/** Threaded comments on reports (decision 0019). */
export * as Comments from "./Comments.ts"
/** Dashboards: visuals pinned from reports. */
export * as Dashboards from "./Dashboards.ts"
/** Datasets of the tenant's workspaces and their semantic queries. */
export * as Datasets from "./Datasets.ts"
/** Executive roles (decision 0014): grants to a role reach whoever holds it. */
export * as ExecutiveRoles from "./ExecutiveRoles.ts"
/** Scheduled exports (decision 0015). */
export * as ExportSchedules from "./ExportSchedules.ts"
/** Export jobs (decision 0015). */
export * as Exports from "./Exports.ts"
/** The endpoints shared by teams and executive roles (decision 0014). */
export * as GroupEndpoints from "./GroupEndpoints.ts"
/** Accepting an invitation: its token is the credential. */
export * as InvitationAcceptance from "./InvitationAcceptance.ts"
/** Invitations by e-mail (decision 0014). */
export * as Invitations from "./Invitations.ts"
/** Reports: named pages of visuals over datasets. */
export * as Reports from "./Reports.ts"
/** Console sign-in and sessions (decision 0022). */
export * as Session from "./Session.ts"
/** Tokens for the tenant's identity provider to provision over SCIM. */
export * as ScimTokens from "./ScimTokens.ts"
/** Sharing grants and links (decision 0014). */
export * as Sharing from "./Sharing.ts"
/** Liveness and public configuration: the endpoints that need no token. */
export * as System from "./System.ts"
/** Teams (decision 0014): made here or synced over SCIM. */
export * as Teams from "./Teams.ts"
/** Provisioning tenants: the operator's endpoints. */
export * as Tenants from "./Tenants.ts"
/** The tenant's users and their personal tokens. */
export * as Users from "./Users.ts"
/** Webhooks, their deliveries and the event catalog, and the OpenAPI document's `webhooks` section. */
export * as Webhooks from "./Webhooks.ts"
/** The workspaces of the caller's tenant. */
export * as Workspaces from "./Workspaces.ts"
