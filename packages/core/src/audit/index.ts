/**
 * The audit log: what was done, by whom, to what.
 *
 * It imports only from the folders before it in core's index.
 *
 * @since 0.1.0
 */
export * as AuditLog from "./AuditLog.ts"
export * as AuditedChanges from "./AuditedChanges.ts"
