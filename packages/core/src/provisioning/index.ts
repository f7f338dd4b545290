/**
 * A user's lifecycle across domains: SCIM provisioning, an admin's change of
 * a user, and deprovisioning (what stops when a user is deactivated: their
 * sessions, tokens, webhooks and export schedules). It sits above exports,
 * whose schedule store a deprovisioning writes.
 *
 * @since 0.1.0
 */
export * as Deprovisioning from "./Deprovisioning.ts"
export * as ScimProvisioning from "./ScimProvisioning.ts"
export * as UserUpdates from "./UserUpdates.ts"
