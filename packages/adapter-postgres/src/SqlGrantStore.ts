/**
 * The GrantStore over `SqlClient` (PostgreSQL and PGlite).
 *
 * @since 0.1.0
 */
import { AuditLog, Grant, GrantStore, type Tenant } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.ts"
import { afterNewestFirst } from "./SqlKeyset.ts"
import { failAs, isId } from "./StoreErrors.ts"

const GrantRow = Schema.Struct({
  grant_id: Schema.String,
  tenant_id: Schema.String,
  workspace_id: Schema.String,
  subject_type: Grant.SubjectType,
  subject_id: Schema.String,
  principal_type: Grant.PrincipalType,
  principal_id: Schema.NullOr(Schema.String),
  actions: Schema.Array(Grant.Action),
  watermark: Schema.Boolean,
  expires_at: Schema.NullOr(Schema.Date),
  revoked_at: Schema.NullOr(Schema.Date),
  link_slug: Schema.NullOr(Schema.String),
  password_hash: Schema.NullOr(Schema.String),
  paused: Schema.Boolean,
  invitation_id: Schema.NullOr(Schema.String),
  recipient_email: Schema.NullOr(Schema.String),
  label: Schema.NullOr(Schema.String),
  last_opened_at: Schema.NullOr(Schema.Date),
  open_count: Schema.Number,
  created_by_type: AuditLog.Actor.fields.type,
  created_by_id: Schema.String,
  created_at: Schema.Date,
  updated_at: Schema.Date
})

// The row has the grant's shape; its values were validated on the way in.
const grants = Rows.reader(GrantRow, ({ created_by_id, created_by_type, ...row }): Grant.StoredGrant => ({
  ...row,
  grant_id: row.grant_id as Grant.GrantId,
  tenant_id: row.tenant_id as Tenant.TenantId,
  created_by: { type: created_by_type, id: created_by_id }
}))

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
  const select = (condition: ReturnType<typeof sql.and>) => sql`SELECT * FROM grants WHERE ${condition}`
  return GrantStore.GrantStore.of({
    insert: (grant) => sql`INSERT INTO grants ${sql.insert(toRow(grant))}`.pipe(Effect.asVoid, fail("insert")),
    find: (tenantId, grantId) => {
      if (!isId(tenantId) || !isId(grantId)) return Effect.succeed(undefined)
      return select(sql.and([sql`tenant_id = ${tenantId}`, sql`grant_id = ${grantId}`])).pipe(grants.first("GrantStore.find"))
    },
    findBySlug: (slug) =>
      select(sql.and([sql`link_slug = ${slug}`])).pipe(grants.first("GrantStore.findBySlug")),
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
      return sql`SELECT * FROM grants WHERE ${sql.and(conditions)} ${afterNewestFirst(sql, query, "grant_id")}
        ORDER BY created_at DESC, grant_id ASC LIMIT ${query.take}`.pipe(grants.all("GrantStore.list"))
    },
    onSubjects: (tenantId, subjects) => {
      if (!isId(tenantId) || subjects.length === 0) return Effect.succeed([])
      const either = sql.or(subjects.map((s) => sql`(subject_type = ${s.type} AND subject_id = ${s.id})`))
      return select(sql.and([sql`tenant_id = ${tenantId}`, either])).pipe(grants.all("GrantStore.onSubjects"))
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
