/**
 * The DirectoryStore over `SqlClient` (PostgreSQL and PGlite). One e-mail
 * per tenant is the `UNIQUE (tenant_id, email)` constraint, so concurrent
 * creations cannot both win.
 *
 * @since 0.1.0
 */
import { DirectoryStore, Group, type Tenant, User } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as Rows from "./Rows.ts"
import { afterNewestFirst } from "./SqlKeyset.ts"
import { failAs, isId } from "./StoreErrors.ts"

const UserRow = Schema.Struct({
  user_id: Schema.String,
  tenant_id: Schema.String,
  email: Schema.String,
  name: Schema.String,
  status: User.UserStatus,
  roles: Schema.Array(User.ServiceRole),
  external_id: Schema.NullOr(Schema.String),
  user_name: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const users = Rows.reader(UserRow, (row): User.User => ({
  user_id: row.user_id as User.UserId,
  tenant_id: row.tenant_id as Tenant.TenantId,
  email: row.email,
  name: row.name,
  status: row.status,
  roles: row.roles,
  external_id: row.external_id,
  user_name: row.user_name,
  created_at: row.created_at,
  updated_at: row.updated_at
}))

const GroupKind = Schema.Literals(["team", "executive_role"])

const GroupRow = Schema.Struct({
  group_id: Schema.String,
  tenant_id: Schema.String,
  kind: GroupKind,
  name: Schema.String,
  source: Group.GroupSource,
  external_id: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const groups = Rows.reader(GroupRow, (row): Group.Group => ({
  ...row,
  group_id: row.group_id as Group.GroupId,
  tenant_id: row.tenant_id as Tenant.TenantId
}))

const memberships = Rows.reader(Schema.Struct({ group_id: Schema.String, kind: GroupKind }))

/** The DirectoryStore over the `SqlClient` in context. */
export const make = Effect.map(SqlClient.SqlClient, (sql) => {
  const userColumns = sql.literal("u.user_id, u.tenant_id, u.email, u.name, u.status, u.roles, u.external_id, u.user_name, u.created_at, u.updated_at")
  const groupColumns = sql.literal("group_id, tenant_id, kind, name, source, external_id, created_at, updated_at")
  /** Whether a failure is the unique e-mail constraint (another user of the tenant has the address). */
  const emailTaken = (error: SqlError) => error.reason._tag === "UniqueViolation" && error.reason.constraint === "users_tenant_id_email_key"

  return DirectoryStore.DirectoryStore.of({
    insertUser: (user) =>
      sql`INSERT INTO users (user_id, tenant_id, email, name, status, roles, external_id, user_name, created_at, updated_at)
        VALUES (${user.user_id}, ${user.tenant_id}, ${user.email}, ${user.name}, ${user.status}, ${user.roles},
          ${user.external_id}, ${user.user_name}, ${user.created_at}, ${user.updated_at})
        ON CONFLICT (tenant_id, email) DO NOTHING
        RETURNING user_id`.pipe(
        Effect.map((rows) => (rows.length > 0 ? "written" as const : "email-taken" as const)),
        failAs("DirectoryStore.insertUser")
      ),
    findUser: (tenantId, userId) => {
      if (!isId(tenantId) || !isId(userId)) return Effect.succeed(undefined)
      return sql`SELECT ${userColumns} FROM users u WHERE u.tenant_id = ${tenantId} AND u.user_id = ${userId}`.pipe(
        users.first("DirectoryStore.findUser")
      )
    },
    findActiveUsersByEmail: (email) =>
      sql`SELECT ${userColumns} FROM users u WHERE u.email = ${email} AND u.status = 'active'
        ORDER BY u.created_at, u.user_id`.pipe(
        users.all("DirectoryStore.findActiveUsersByEmail")
      ),
    findUserBy: (tenantId, by) => {
      if (!isId(tenantId)) return Effect.succeed(undefined)
      const condition = "email" in by ? sql`u.email = ${by.email}`
        : "userName" in by ? sql`lower(u.user_name) = lower(${by.userName})`
        : sql`u.external_id = ${by.externalId}`
      return sql`SELECT ${userColumns} FROM users u WHERE u.tenant_id = ${tenantId} AND ${condition}
        ORDER BY u.created_at, u.user_id LIMIT 1`.pipe(
        users.first("DirectoryStore.findUserBy")
      )
    },
    listUsers: (tenantId, query) => {
      if (!isId(tenantId)) return Effect.succeed([])
      return sql`SELECT ${userColumns} FROM users u
        WHERE u.tenant_id = ${tenantId} AND u.created_at <= ${query.createdAtOrBefore} ${afterNewestFirst(sql, query, "user_id", "u")}
        ORDER BY u.created_at DESC, u.user_id ASC LIMIT ${query.take}`.pipe(
        users.all("DirectoryStore.listUsers")
      )
    },
    // strpos, not LIKE: the text is matched as it is, `%` and `_` included. A tenant's rows are scanned
    // (through its index): a picker's search, bounded by `take`.
    searchUsers: (tenantId, text, take) => {
      if (!isId(tenantId) || text === "") return Effect.succeed([])
      return sql`SELECT ${userColumns} FROM users u
        WHERE u.tenant_id = ${tenantId} AND u.status = 'active'
          AND (strpos(lower(u.name), ${text}) > 0 OR strpos(lower(u.email), ${text}) > 0)
        ORDER BY CASE WHEN strpos(lower(u.name), ${text}) = 1 OR strpos(lower(u.email), ${text}) = 1 THEN 0 ELSE 1 END,
          lower(u.name) COLLATE "C", u.user_id
        LIMIT ${take}`.pipe(
        users.all("DirectoryStore.searchUsers")
      )
    },
    searchGroups: (tenantId, text, take) => {
      if (!isId(tenantId) || text === "") return Effect.succeed([])
      return sql`SELECT ${groupColumns} FROM groups
        WHERE tenant_id = ${tenantId} AND strpos(lower(name), ${text}) > 0
        ORDER BY CASE WHEN strpos(lower(name), ${text}) = 1 THEN 0 ELSE 1 END, lower(name) COLLATE "C", group_id
        LIMIT ${take}`.pipe(
        groups.all("DirectoryStore.searchGroups")
      )
    },
    countUsers: (tenantId) => {
      if (!isId(tenantId)) return Effect.succeed(0)
      return sql`SELECT count(*) AS count FROM users WHERE tenant_id = ${tenantId}`.pipe(
        Rows.count("DirectoryStore.countUsers")
      )
    },
    // As `DirectoryStore.scimManages`: made over SCIM (a user name), no admin.
    listScimUsers: (tenantId, query) => {
      if (!isId(tenantId)) return Effect.succeed([])
      return sql`SELECT ${userColumns} FROM users u
        WHERE u.tenant_id = ${tenantId} AND u.user_name IS NOT NULL AND NOT ('admin' = ANY (u.roles))
          AND u.created_at <= ${query.createdAtOrBefore} ${afterNewestFirst(sql, query, "user_id", "u")}
        ORDER BY u.created_at DESC, u.user_id ASC LIMIT ${query.take}`.pipe(
        users.all("DirectoryStore.listScimUsers")
      )
    },
    countScimUsers: (tenantId) => {
      if (!isId(tenantId)) return Effect.succeed(0)
      return sql`SELECT count(*) AS count FROM users
        WHERE tenant_id = ${tenantId} AND user_name IS NOT NULL AND NOT ('admin' = ANY (roles))`.pipe(
        Rows.count("DirectoryStore.countScimUsers")
      )
    },
    updateUser: (user) => {
      if (!isId(user.tenant_id) || !isId(user.user_id)) return Effect.succeed("missing" as const)
      return sql`UPDATE users SET email = ${user.email}, name = ${user.name}, status = ${user.status},
          roles = ${user.roles}, external_id = ${user.external_id}, user_name = ${user.user_name},
          updated_at = ${user.updated_at}
        WHERE tenant_id = ${user.tenant_id} AND user_id = ${user.user_id} RETURNING user_id`.pipe(
        Effect.map((rows): DirectoryStore.UserWrite => (rows.length > 0 ? "written" : "missing")),
        Effect.catchIf(emailTaken, () => Effect.succeed("email-taken" as const)),
        failAs("DirectoryStore.updateUser")
      )
    },
    insertGroup: (group) =>
      sql`INSERT INTO groups (${groupColumns}) VALUES (${group.group_id}, ${group.tenant_id}, ${group.kind}, ${group.name},
          ${group.source}, ${group.external_id}, ${group.created_at}, ${group.updated_at})`.pipe(
        Effect.asVoid,
        failAs("DirectoryStore.insertGroup")
      ),
    findGroup: (tenantId, kind, groupId) => {
      if (!isId(tenantId) || !isId(groupId)) return Effect.succeed(undefined)
      return sql`SELECT ${groupColumns} FROM groups g
        WHERE g.tenant_id = ${tenantId} AND g.kind = ${kind} AND g.group_id = ${groupId}`.pipe(
        groups.first("DirectoryStore.findGroup")
      )
    },
    listGroups: (tenantId, kind, query) => {
      if (!isId(tenantId)) return Effect.succeed([])
      return sql`SELECT ${groupColumns} FROM groups g
        WHERE g.tenant_id = ${tenantId} AND g.kind = ${kind} AND g.created_at <= ${query.createdAtOrBefore}
          ${afterNewestFirst(sql, query, "group_id", "g")}
        ORDER BY g.created_at DESC, g.group_id ASC LIMIT ${query.take}`.pipe(
        groups.all("DirectoryStore.listGroups")
      )
    },
    findGroupBy: (tenantId, kind, source, by) => {
      if (!isId(tenantId)) return Effect.succeed(undefined)
      const condition = "name" in by ? sql`g.name = ${by.name}` : sql`g.external_id = ${by.externalId}`
      return sql`SELECT ${groupColumns} FROM groups g WHERE g.tenant_id = ${tenantId} AND g.kind = ${kind}
        AND g.source = ${source} AND ${condition} ORDER BY g.created_at, g.group_id LIMIT 1`.pipe(
        groups.first("DirectoryStore.findGroupBy")
      )
    },
    countGroups: (tenantId, kind, source) => {
      if (!isId(tenantId)) return Effect.succeed(0)
      return sql`SELECT count(*) AS count FROM groups
        WHERE tenant_id = ${tenantId} AND kind = ${kind} AND source = ${source}`.pipe(
        Rows.count("DirectoryStore.countGroups")
      )
    },
    updateGroup: (group) => {
      if (!isId(group.tenant_id) || !isId(group.group_id)) return Effect.succeed(false)
      return sql`UPDATE groups SET name = ${group.name}, external_id = ${group.external_id}, updated_at = ${group.updated_at}
        WHERE tenant_id = ${group.tenant_id} AND group_id = ${group.group_id} RETURNING group_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("DirectoryStore.updateGroup")
      )
    },
    removeGroup: (tenantId, groupId) => {
      if (!isId(tenantId) || !isId(groupId)) return Effect.succeed(false)
      return sql`DELETE FROM groups WHERE tenant_id = ${tenantId} AND group_id = ${groupId} RETURNING group_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("DirectoryStore.removeGroup")
      )
    },
    addMember: (tenantId, groupId, userId) => {
      if (!isId(tenantId) || !isId(groupId) || !isId(userId)) return Effect.succeed(false)
      // Both must be the tenant's: the SELECT finds nothing otherwise.
      return sql`INSERT INTO group_members (group_id, user_id)
        SELECT g.group_id, u.user_id FROM groups g, users u
        WHERE g.tenant_id = ${tenantId} AND g.group_id = ${groupId} AND u.tenant_id = ${tenantId} AND u.user_id = ${userId}
        ON CONFLICT DO NOTHING RETURNING group_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("DirectoryStore.addMember")
      )
    },
    removeMember: (tenantId, groupId, userId) => {
      if (!isId(tenantId) || !isId(groupId) || !isId(userId)) return Effect.succeed(false)
      return sql`DELETE FROM group_members m USING groups g
        WHERE m.group_id = ${groupId} AND m.user_id = ${userId} AND g.group_id = m.group_id AND g.tenant_id = ${tenantId}
        RETURNING m.group_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("DirectoryStore.removeMember")
      )
    },
    listMembers: (tenantId, groupId, query) => {
      if (!isId(tenantId) || !isId(groupId)) return Effect.succeed([])
      return sql`SELECT ${userColumns} FROM group_members m JOIN users u ON u.user_id = m.user_id
        WHERE m.group_id = ${groupId} AND u.tenant_id = ${tenantId} AND u.created_at <= ${query.createdAtOrBefore}
          ${afterNewestFirst(sql, query, "user_id", "u")}
        ORDER BY u.created_at DESC, u.user_id ASC LIMIT ${query.take}`.pipe(
        users.all("DirectoryStore.listMembers")
      )
    },
    membershipsOf: (tenantId, userId) => {
      if (!isId(tenantId) || !isId(userId)) return Effect.succeed({ teams: [], roles: [] })
      return sql`SELECT g.group_id, g.kind
        FROM group_members m JOIN groups g ON g.group_id = m.group_id
        WHERE m.user_id = ${userId} AND g.tenant_id = ${tenantId}`.pipe(
        memberships.all("DirectoryStore.membershipsOf"),
        Effect.map((rows) => ({
          teams: rows.filter((row) => row.kind === "team").map((row) => row.group_id as Group.GroupId),
          roles: rows.filter((row) => row.kind === "executive_role").map((row) => row.group_id as Group.GroupId)
        }))
      )
    }
  })
})
