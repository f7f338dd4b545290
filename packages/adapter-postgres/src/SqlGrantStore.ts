/**
 * The GrantStore over `SqlClient` (PostgreSQL and PGlite).
 *
 * @since 0.1.0
 */
import { type AuditLog, type Grant, GrantStore, type Tenant } from "@analytics/core"
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { afterNewestFirst } from "./SqlKeyset.ts"
import { failAs, isId } from "./StoreErrors.ts"

interface GrantRow {
  readonly grant_id: string
  readonly tenant_id: string
  readonly workspace_id: string
  readonly subject_type: Grant.SubjectType
  readonly subject_id: string
  readonly principal_type: Grant.PrincipalType
  readonly principal_id: string | null
  readonly actions: ReadonlyArray<Grant.Action>
  readonly watermark: boolean
  readonly expires_at: Date | null
  readonly revoked_at: Date | null
  readonly link_slug: string | null
  readonly password_hash: string | null
  readonly paused: boolean
  readonly invitation_id: string | null
  readonly recipient_email: string | null
  readonly label: string | null
  readonly last_opened_at: Date | null
  readonly open_count: number
  readonly created_by_type: AuditLog.Actor["type"]
  readonly created_by_id: string
  readonly created_at: Date
  readonly updated_at: Date
}

// Rows were validated on the way in.
const toGrant = ({ created_by_id, created_by_type, ...row }: GrantRow): Grant.StoredGrant => ({
  ...row,
  grant_id: row.grant_id as Grant.GrantId,
  tenant_id: row.tenant_id as Tenant.TenantId,
  created_by: { type: created_by_type, id: created_by_id }
})

const toRow = ({ created_by, ...grant }: Grant.StoredGrant) => ({ ...grant, created_by_type: created_by.type, created_by_id: created_by.id })

/** The GrantStore over the `SqlClient` in context. */
export const make = Effect.map(SqlClient.SqlClient, (sql) => {
  const fail = (operation: string) => failAs(`GrantStore.${operation}`)
  /** The SQL of `Grant.stateAt(grant, at) === state`. */
  const stateIs = (state: Grant.State, at: Date) =>
    state === "revoked"
      ? sql`revoked_at IS NOT NULL`
      : state === "expired"
      ? sql`(revoked_at IS NULL AND expires_at <= ${at})`
      : sql`(revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${at}))`
  const select = (condition: ReturnType<typeof sql.and>) => sql<GrantRow>`SELECT * FROM grants WHERE ${condition}`
  return GrantStore.GrantStore.of({
    insert: (grant) => sql`INSERT INTO grants ${sql.insert(toRow(grant))}`.pipe(Effect.asVoid, fail("insert")),
    find: (tenantId, grantId) => {
      if (!isId(tenantId) || !isId(grantId)) return Effect.succeed(undefined)
      return select(sql.and([sql`tenant_id = ${tenantId}`, sql`grant_id = ${grantId}`])).pipe(
        Effect.map(([row]) => row === undefined ? undefined : toGrant(row)),
        fail("find")
      )
    },
    findBySlug: (slug) =>
      select(sql.and([sql`link_slug = ${slug}`])).pipe(Effect.map(([row]) => row === undefined ? undefined : toGrant(row)), fail("findBySlug")),
    list: (tenantId, filter, query) => {
      if (!isId(tenantId)) return Effect.succeed([])
      const conditions = [
        sql`tenant_id = ${tenantId}`,
        sql`created_at <= ${query.createdAtOrBefore}`,
        ...(filter.subjectType === undefined ? [] : [sql`subject_type = ${filter.subjectType}`]),
        ...(filter.subjectId === undefined ? [] : [sql`subject_id = ${filter.subjectId}`]),
        ...(filter.principalType === undefined ? [] : [sql`principal_type = ${filter.principalType}`]),
        ...(filter.principalTypes === undefined ? [] : [sql.or(filter.principalTypes.map((t) => sql`principal_type = ${t}`))]),
        ...(filter.principalId === undefined ? [] : [sql`principal_id = ${filter.principalId}`]),
        ...(filter.workspaceId === undefined ? [] : [sql`workspace_id = ${filter.workspaceId}`]),
        ...(filter.createdById === undefined ? [] : [sql`created_by_id = ${filter.createdById}`]),
        ...(filter.state === undefined ? [] : [stateIs(filter.state.is, filter.state.at)])
      ]
      return sql<GrantRow>`SELECT * FROM grants WHERE ${sql.and(conditions)} ${afterNewestFirst(sql, query, "grant_id")}
        ORDER BY created_at DESC, grant_id ASC LIMIT ${query.take}`.pipe(Effect.map((rows) => rows.map(toGrant)), fail("list"))
    },
    onSubjects: (tenantId, subjects) => {
      if (!isId(tenantId) || subjects.length === 0) return Effect.succeed([])
      const either = sql.or(subjects.map((s) => sql`(subject_type = ${s.type} AND subject_id = ${s.id})`))
      return select(sql.and([sql`tenant_id = ${tenantId}`, either])).pipe(Effect.map((rows) => rows.map(toGrant)), fail("onSubjects"))
    },
    update: (grant) => {
      if (!isId(grant.tenant_id) || !isId(grant.grant_id)) return Effect.succeed(false)
      // The opens stay as recordOpen counted them.
      return sql`UPDATE grants SET ${sql.update(toRow(grant), ["grant_id", "tenant_id", "created_at", "open_count", "last_opened_at"])}
        WHERE tenant_id = ${grant.tenant_id} AND grant_id = ${grant.grant_id} RETURNING grant_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        fail("update")
      )
    },
    recordOpen: (tenantId, grantId, at) => {
      if (!isId(tenantId) || !isId(grantId)) return Effect.void
      return sql`UPDATE grants SET open_count = open_count + 1, last_opened_at = ${at}
        WHERE tenant_id = ${tenantId} AND grant_id = ${grantId}`.pipe(Effect.asVoid, fail("recordOpen"))
    },
    activateInvitation: (tenantId, invitationId, userId, at) => {
      if (!isId(tenantId) || !isId(invitationId)) return Effect.succeed(0)
      return sql`UPDATE grants SET principal_id = ${userId}, updated_at = ${at}
        WHERE tenant_id = ${tenantId} AND invitation_id = ${invitationId} AND principal_id IS NULL RETURNING grant_id`.pipe(
        Effect.map((rows) => rows.length),
        fail("activateInvitation")
      )
    }
  })
})
