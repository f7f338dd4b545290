/**
 * The WorkspaceStore over `SqlClient`.
 *
 * @since 0.1.0
 */
import { Tenant, Workspace, WorkspaceStore } from "@analytics/core"
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { failAs, isId } from "./StoreErrors.ts"

interface WorkspaceRow {
  readonly workspace_id: string
  readonly tenant_id: string
  readonly name: string
  readonly description: string | null
  readonly created_at: Date
}

const toWorkspace = (row: WorkspaceRow): Workspace.Workspace =>
  new Workspace.Workspace({
    workspace_id: row.workspace_id as Workspace.WorkspaceId,
    tenant_id: row.tenant_id as Tenant.TenantId,
    name: row.name,
    description: row.description,
    created_at: row.created_at
  }, { disableChecks: true })

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
        return sql<WorkspaceRow>`SELECT ${columns} FROM workspaces
          WHERE tenant_id = ${tenantId} AND workspace_id = ${workspaceId}`.pipe(
          Effect.map(([row]) => row === undefined ? undefined : toWorkspace(row)),
          failAs("WorkspaceStore.find")
        )
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
        return sql<WorkspaceRow>`SELECT ${columns} FROM workspaces
          WHERE tenant_id = ${tenantId} AND created_at <= ${query.createdAtOrBefore} ${afterClause}
          ORDER BY ${field} ${sql.literal(desc ? "DESC" : "ASC")}, workspace_id ASC
          LIMIT ${query.take}`.pipe(
          Effect.map((rows) => rows.map(toWorkspace)),
          failAs("WorkspaceStore.list")
        )
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
