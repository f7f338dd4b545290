/**
 * Changes to a tenant's people: directory changes, SCIM provisioning, and
 * deprovisioning (what stops when a user is deactivated).
 *
 * It imports only from the folders before it in core's index.
 *
 * @since 0.1.0
 */
export * as Deprovisioning from "./Deprovisioning.ts"
export * as Directory from "./Directory.ts"
export * as ScimProvisioning from "./ScimProvisioning.ts"
