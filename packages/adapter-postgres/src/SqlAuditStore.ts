/**
 * The audit log over `SqlClient` (PostgreSQL and PGlite): an INSERT-only
 * table (nothing here updates or deletes), its detail as jsonb.
 *
 * @since 0.1.0
 */
import { AuditLog, type Tenant } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.ts"
import { afterNewestFirst } from "./SqlKeyset.ts"
import { failAs, isId } from "./StoreErrors.ts"

const EntryRow = Schema.Struct({
  entry_id: Schema.String,
  tenant_id: Schema.String,
  workspace_id: Schema.NullOr(Schema.String),
  action: Schema.String,
  actor_type: AuditLog.Actor.fields.type,
  actor_id: Schema.String,
  target_type: Schema.String,
  target_id: Schema.String,
  detail: Rows.Jsonb(Schema.Record(Schema.String, Schema.Unknown)),
  created_at: Schema.Date
})

const entries = Rows.reader(EntryRow, (row): AuditLog.AuditEntry => ({
  entry_id: row.entry_id,
  tenant_id: row.tenant_id as Tenant.TenantId,
  workspace_id: row.workspace_id,
  action: row.action,
  actor: { type: row.actor_type, id: row.actor_id },
  target: { type: row.target_type, id: row.target_id },
  detail: row.detail,
  created_at: row.created_at
}))

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
      return sql`SELECT * FROM audit_log WHERE ${sql.and(conditions)} ${afterNewestFirst(sql, query, "entry_id")}
        ORDER BY created_at DESC, entry_id ASC LIMIT ${query.take}`.pipe(entries.all("AuditStore.list"))
    }
  }))
