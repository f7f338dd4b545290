/**
 * The audit log in memory: append-only, like every other.
 *
 * @since 0.1.0
 */
import { AuditLog, Pagination } from "@analytics/core"
import { Effect } from "effect"
import { write } from "./Transactions.ts"

/** A fresh in-memory audit log. */
export const make = Effect.sync(() => {
  const entries: Array<AuditLog.AuditEntry> = []
  return AuditLog.AuditStore.of({
    append: (entry) =>
      write(() => {
        entries.push(entry)
        // Rolled back with the transaction it was written in.
        return [undefined, () => void entries.splice(entries.indexOf(entry), 1)]
      }),
    list: (tenantId, filter, query) =>
      Effect.sync(() =>
        Pagination.applyInMemory(
          entries.filter((e) => e.tenant_id === tenantId && AuditLog.matches(e, filter)),
          query,
          AuditLog.auditKey,
          (e) => e.created_at
        )
      )
  })
})
