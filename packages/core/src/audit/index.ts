/**
 * The audit log: what was done, by whom, to what.
 *
 * @since 0.1.0
 */
export * as AuditLog from "./AuditLog.ts"
export * as AuditedChanges from "./AuditedChanges.ts"
