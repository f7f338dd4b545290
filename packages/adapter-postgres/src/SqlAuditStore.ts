/**
 * The audit log over `SqlClient` (PostgreSQL and PGlite): an INSERT-only
 * table (nothing here updates or deletes), its detail as jsonb.
 *
 * @since 0.1.0
 */
import { AuditLog, type Tenant } from "@analytics/core"
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { afterNewestFirst } from "./SqlKeyset.ts"
import { failAs, isId } from "./StoreErrors.ts"

interface EntryRow {
  readonly entry_id: string
  readonly tenant_id: string
  readonly workspace_id: string | null
  readonly action: string
  readonly actor_type: AuditLog.Actor["type"]
  readonly actor_id: string
  readonly target_type: string
  readonly target_id: string
  readonly detail: Record<string, unknown>
  readonly created_at: Date
}

const toEntry = (row: EntryRow): AuditLog.AuditEntry => ({
  entry_id: row.entry_id,
  tenant_id: row.tenant_id as Tenant.TenantId,
  workspace_id: row.workspace_id,
  action: row.action,
  actor: { type: row.actor_type, id: row.actor_id },
  target: { type: row.target_type, id: row.target_id },
  detail: row.detail,
  created_at: row.created_at
})

/** The audit log over the `SqlClient` in context. */
export const make = Effect.map(SqlClient.SqlClient, (sql) =>
  AuditLog.AuditStore.of({
    append: (e) =>
      sql`INSERT INTO audit_log (entry_id, tenant_id, workspace_id, action, actor_type, actor_id, target_type, target_id, detail, created_at)
        VALUES (${e.entry_id}, ${e.tenant_id}, ${e.workspace_id}, ${e.action}, ${e.actor.type}, ${e.actor.id}, ${e.target.type},
          ${e.target.id}, ${JSON.stringify(e.detail)}::jsonb, ${e.created_at})`.pipe(Effect.asVoid, failAs("AuditStore.append")),
    list: (tenantId, filter, query) => {
      if (!isId(tenantId)) return Effect.succeed([])
      const conditions = [
        sql`tenant_id = ${tenantId}`,
        sql`created_at <= ${query.createdAtOrBefore}`,
        ...(filter.action === undefined ? [] : [sql`action = ${filter.action}`]),
        ...(filter.targetType === undefined ? [] : [sql`target_type = ${filter.targetType}`]),
        ...(filter.targetId === undefined ? [] : [sql`target_id = ${filter.targetId}`]),
        ...(filter.actorId === undefined ? [] : [sql`actor_id = ${filter.actorId}`]),
        ...(filter.since === undefined ? [] : [sql`created_at >= ${filter.since}`]),
        ...(filter.before === undefined ? [] : [sql`created_at < ${filter.before}`])
      ]
      return sql<EntryRow>`SELECT * FROM audit_log WHERE ${sql.and(conditions)} ${afterNewestFirst(sql, query, "entry_id")}
        ORDER BY created_at DESC, entry_id ASC LIMIT ${query.take}`.pipe(
        Effect.map((rows) => rows.map(toEntry)),
        failAs("AuditStore.list")
      )
    }
  }))
