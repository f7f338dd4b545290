/**
 * The DirectoryStore over `SqlClient` (PostgreSQL and PGlite). One e-mail
 * per tenant is the `UNIQUE (tenant_id, email)` constraint, so concurrent
 * creations cannot both win.
 *
 * @since 0.1.0
 */
import { DirectoryStore, Errors, Ids, type Pagination, type Team, type Tenant, type User } from "@analytics/core"
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

const failAs = (operation: string) => <A, R>(effect: Effect.Effect<A, SqlError, R>) =>
  Effect.mapError(effect, (cause) => new Errors.StoreError({ operation, cause }))

const isId = Ids.isUuid

interface UserRow {
  readonly user_id: string
  readonly tenant_id: string
  readonly email: string
  readonly name: string
  readonly status: User.UserStatus
  readonly roles: ReadonlyArray<User.ServiceRole>
  readonly external_id: string | null
  readonly created_at: Date
  readonly updated_at: Date
}

const toUser = (row: UserRow): User.User => ({
  user_id: row.user_id as User.UserId,
  tenant_id: row.tenant_id as Tenant.TenantId,
  email: row.email,
  name: row.name,
  status: row.status,
  roles: row.roles,
  external_id: row.external_id,
  created_at: row.created_at,
  updated_at: row.updated_at
})

interface TeamRow {
  readonly team_id: string
  readonly tenant_id: string
  readonly name: string
  readonly source: Team.TeamSource
  readonly external_id: string | null
  readonly created_at: Date
  readonly updated_at: Date
}

const toTeam = (row: TeamRow): Team.Team => ({ ...row, team_id: row.team_id as Team.TeamId, tenant_id: row.tenant_id as Tenant.TenantId })

/** The DirectoryStore over the `SqlClient` in context. */
export const make = Effect.map(SqlClient.SqlClient, (sql) => {
  const userColumns = sql.literal("u.user_id, u.tenant_id, u.email, u.name, u.status, u.roles, u.external_id, u.created_at, u.updated_at")
  const teamColumns = sql.literal("team_id, tenant_id, name, source, external_id, created_at, updated_at")
  /** Strictly after a keyset position in "created_at DESC, id ASC" order. */
  const after = (query: Pagination.PageQuery<"created_at">, table: "u" | "t", idColumn: "user_id" | "team_id") => {
    if (query.after === undefined) return sql.literal("")
    const at = new Date(query.after.value)
    const created = sql.literal(`${table}.created_at`)
    const id = sql.literal(`${table}.${idColumn}`)
    return sql`AND ${created} <= ${at} AND (${created} < ${at} OR (${created} = ${at} AND ${id} > ${query.after.id}))`
  }
  /** Whether a failure is the unique e-mail constraint (another user of the tenant has the address). */
  const emailTaken = (error: SqlError) => error.reason._tag === "UniqueViolation" && error.reason.constraint === "users_tenant_id_email_key"

  return DirectoryStore.DirectoryStore.of({
    insertUser: (user) =>
      sql`INSERT INTO users (user_id, tenant_id, email, name, status, roles, external_id, created_at, updated_at)
        VALUES (${user.user_id}, ${user.tenant_id}, ${user.email}, ${user.name}, ${user.status}, ${user.roles},
          ${user.external_id}, ${user.created_at}, ${user.updated_at})
        ON CONFLICT (tenant_id, email) DO NOTHING
        RETURNING user_id`.pipe(
        Effect.map((rows) => (rows.length > 0 ? "written" as const : "email-taken" as const)),
        failAs("DirectoryStore.insertUser")
      ),
    findUser: (tenantId, userId) => {
      if (!isId(tenantId) || !isId(userId)) return Effect.succeed(undefined)
      return sql<UserRow>`SELECT ${userColumns} FROM users u WHERE u.tenant_id = ${tenantId} AND u.user_id = ${userId}`.pipe(
        Effect.map(([row]) => row === undefined ? undefined : toUser(row)),
        failAs("DirectoryStore.findUser")
      )
    },
    findUserByEmail: (tenantId, email) => {
      if (!isId(tenantId)) return Effect.succeed(undefined)
      return sql<UserRow>`SELECT ${userColumns} FROM users u WHERE u.tenant_id = ${tenantId} AND u.email = ${email}`.pipe(
        Effect.map(([row]) => row === undefined ? undefined : toUser(row)),
        failAs("DirectoryStore.findUserByEmail")
      )
    },
    listUsers: (tenantId, query) => {
      if (!isId(tenantId)) return Effect.succeed([])
      return sql<UserRow>`SELECT ${userColumns} FROM users u
        WHERE u.tenant_id = ${tenantId} AND u.created_at <= ${query.createdAtOrBefore} ${after(query, "u", "user_id")}
        ORDER BY u.created_at DESC, u.user_id ASC LIMIT ${query.take}`.pipe(
        Effect.map((rows) => rows.map(toUser)),
        failAs("DirectoryStore.listUsers")
      )
    },
    updateUser: (user) => {
      if (!isId(user.tenant_id) || !isId(user.user_id)) return Effect.succeed("missing" as const)
      return sql`UPDATE users SET email = ${user.email}, name = ${user.name}, status = ${user.status},
          roles = ${user.roles}, external_id = ${user.external_id}, updated_at = ${user.updated_at}
        WHERE tenant_id = ${user.tenant_id} AND user_id = ${user.user_id} RETURNING user_id`.pipe(
        Effect.map((rows): DirectoryStore.UserWrite => (rows.length > 0 ? "written" : "missing")),
        Effect.catchIf(emailTaken, () => Effect.succeed("email-taken" as const)),
        failAs("DirectoryStore.updateUser")
      )
    },
    insertTeam: (team) =>
      sql`INSERT INTO teams (${teamColumns}) VALUES (${team.team_id}, ${team.tenant_id}, ${team.name}, ${team.source},
          ${team.external_id}, ${team.created_at}, ${team.updated_at})`.pipe(Effect.asVoid, failAs("DirectoryStore.insertTeam")),
    findTeam: (tenantId, teamId) => {
      if (!isId(tenantId) || !isId(teamId)) return Effect.succeed(undefined)
      return sql<TeamRow>`SELECT ${teamColumns} FROM teams WHERE tenant_id = ${tenantId} AND team_id = ${teamId}`.pipe(
        Effect.map(([row]) => row === undefined ? undefined : toTeam(row)),
        failAs("DirectoryStore.findTeam")
      )
    },
    listTeams: (tenantId, query) => {
      if (!isId(tenantId)) return Effect.succeed([])
      return sql<TeamRow>`SELECT ${teamColumns} FROM teams t
        WHERE t.tenant_id = ${tenantId} AND t.created_at <= ${query.createdAtOrBefore} ${after(query, "t", "team_id")}
        ORDER BY t.created_at DESC, t.team_id ASC LIMIT ${query.take}`.pipe(
        Effect.map((rows) => rows.map(toTeam)),
        failAs("DirectoryStore.listTeams")
      )
    },
    updateTeam: (team) => {
      if (!isId(team.tenant_id) || !isId(team.team_id)) return Effect.succeed(false)
      return sql`UPDATE teams SET name = ${team.name}, external_id = ${team.external_id}, updated_at = ${team.updated_at}
        WHERE tenant_id = ${team.tenant_id} AND team_id = ${team.team_id} RETURNING team_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("DirectoryStore.updateTeam")
      )
    },
    removeTeam: (tenantId, teamId) => {
      if (!isId(tenantId) || !isId(teamId)) return Effect.succeed(false)
      return sql`DELETE FROM teams WHERE tenant_id = ${tenantId} AND team_id = ${teamId} RETURNING team_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("DirectoryStore.removeTeam")
      )
    },
    addMember: (tenantId, teamId, userId) => {
      if (!isId(tenantId) || !isId(teamId) || !isId(userId)) return Effect.succeed(false)
      // Both must be the tenant's: the SELECT finds nothing otherwise.
      return sql`INSERT INTO team_members (team_id, user_id)
        SELECT t.team_id, u.user_id FROM teams t, users u
        WHERE t.tenant_id = ${tenantId} AND t.team_id = ${teamId} AND u.tenant_id = ${tenantId} AND u.user_id = ${userId}
        ON CONFLICT DO NOTHING RETURNING team_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("DirectoryStore.addMember")
      )
    },
    removeMember: (tenantId, teamId, userId) => {
      if (!isId(tenantId) || !isId(teamId) || !isId(userId)) return Effect.succeed(false)
      return sql`DELETE FROM team_members m USING teams t
        WHERE m.team_id = ${teamId} AND m.user_id = ${userId} AND t.team_id = m.team_id AND t.tenant_id = ${tenantId}
        RETURNING m.team_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("DirectoryStore.removeMember")
      )
    },
    listMembers: (tenantId, teamId, query) => {
      if (!isId(tenantId) || !isId(teamId)) return Effect.succeed([])
      return sql<UserRow>`SELECT ${userColumns} FROM team_members m JOIN users u ON u.user_id = m.user_id
        WHERE m.team_id = ${teamId} AND u.tenant_id = ${tenantId} AND u.created_at <= ${query.createdAtOrBefore}
          ${after(query, "u", "user_id")}
        ORDER BY u.created_at DESC, u.user_id ASC LIMIT ${query.take}`.pipe(
        Effect.map((rows) => rows.map(toUser)),
        failAs("DirectoryStore.listMembers")
      )
    },
    teamsOf: (tenantId, userId) => {
      if (!isId(tenantId) || !isId(userId)) return Effect.succeed([])
      return sql<{ readonly team_id: string }>`SELECT m.team_id FROM team_members m JOIN teams t ON t.team_id = m.team_id
        WHERE m.user_id = ${userId} AND t.tenant_id = ${tenantId}`.pipe(
        Effect.map((rows) => rows.map((row) => row.team_id as Team.TeamId)),
        failAs("DirectoryStore.teamsOf")
      )
    }
  })
})
