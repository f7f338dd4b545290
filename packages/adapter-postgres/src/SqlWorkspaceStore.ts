/**
 * The WorkspaceStore over `SqlClient`.
 *
 * @since 0.1.0
 */
import { Tenant, Workspace, WorkspaceStore } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.ts"
import { failAs, isId } from "./StoreErrors.ts"

const WorkspaceRow = Schema.Struct({
  workspace_id: Schema.String,
  tenant_id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  created_at: Schema.Date
})

// The row has the workspace's shape; its values were validated on the way in.
const workspaces = Rows.reader(WorkspaceRow, (row) =>
  new Workspace.Workspace({
    ...row,
    workspace_id: row.workspace_id as Workspace.WorkspaceId,
    tenant_id: row.tenant_id as Tenant.TenantId
  }, { disableChecks: true }))

/** The WorkspaceStore on SQL. */
export const make: Effect.Effect<WorkspaceStore.WorkspaceStore["Service"], never, SqlClient.SqlClient> =
  Effect.map(SqlClient.SqlClient, (sql) => {
    const columns = sql.literal("workspace_id, tenant_id, name, description, created_at")
    return WorkspaceStore.WorkspaceStore.of({
      insert: (workspace) =>
        sql`INSERT INTO workspaces (workspace_id, tenant_id, name, description, created_at)
          VALUES (${workspace.workspace_id}, ${workspace.tenant_id}, ${workspace.name}, ${workspace.description},
            ${workspace.created_at})`.pipe(Effect.asVoid, failAs("WorkspaceStore.insert")),
      find: (tenantId, workspaceId) => {
        if (!isId(tenantId) || !isId(workspaceId)) return Effect.succeed(undefined)
        return sql`SELECT ${columns} FROM workspaces
          WHERE tenant_id = ${tenantId} AND workspace_id = ${workspaceId}`.pipe(workspaces.first("WorkspaceStore.find"))
      },
      list: (tenantId, query) => {
        if (!isId(tenantId)) return Effect.succeed([])
        // Names compare by code point (COLLATE "C"), as `applyInMemory` compares JS strings.
        const byName = query.sort.field === "name"
        const field = sql.literal(byName ? `name COLLATE "C"` : "created_at")
        const desc = query.sort.direction === "desc"
        const after = query.after
        // Strictly after (value, id) in "field <direction>, id asc" order; no row
        // comparison because the two keys run in different directions. The
        // redundant inclusive bound lets the index seek to the page instead of
        // filtering every earlier row.
        const afterClause = after === undefined ? sql.literal("") : (() => {
          const value = byName ? String(after.value) : new Date(after.value)
          return sql`AND ${field} ${sql.literal(desc ? "<=" : ">=")} ${value}
            AND (${field} ${sql.literal(desc ? "<" : ">")} ${value}
              OR (${field} = ${value} AND workspace_id > ${after.id}))`
        })()
        return sql`SELECT ${columns} FROM workspaces
          WHERE tenant_id = ${tenantId} AND created_at <= ${query.createdAtOrBefore} ${afterClause}
          ORDER BY ${field} ${sql.literal(desc ? "DESC" : "ASC")}, workspace_id ASC
          LIMIT ${query.take}`.pipe(workspaces.all("WorkspaceStore.list"))
      },
      remove: (tenantId, workspaceId) => {
        if (!isId(tenantId) || !isId(workspaceId)) return Effect.succeed(false)
        return sql`DELETE FROM workspaces WHERE tenant_id = ${tenantId} AND workspace_id = ${workspaceId}
          RETURNING workspace_id`.pipe(
          Effect.map((rows) => rows.length > 0),
          failAs("WorkspaceStore.remove")
        )
      }
    })
  })
