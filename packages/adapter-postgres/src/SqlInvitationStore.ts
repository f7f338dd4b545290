/**
 * The InvitationStore over `SqlClient` (PostgreSQL and PGlite). Updates
 * are conditional on `updated_at`, so two acceptances of one token cannot
 * both win.
 *
 * @since 0.1.0
 */
import { type Invitation, InvitationStore, type Tenant, type User } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.ts"
import { afterNewestFirst } from "./SqlKeyset.ts"
import { failAs, isId } from "./StoreErrors.ts"

const InvitationRow = Schema.Struct({
  invitation_id: Schema.String,
  tenant_id: Schema.String,
  email: Schema.String,
  name: Schema.NullOr(Schema.String),
  status: Schema.Literals(["pending", "accepted", "revoked"]),
  token_hash: Schema.String,
  invited_by: Schema.String,
  expires_at: Schema.Date,
  user_id: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
})

const invitations = Rows.reader(InvitationRow, (row): Invitation.Invitation => ({
  ...row,
  invitation_id: row.invitation_id as Invitation.InvitationId,
  tenant_id: row.tenant_id as Tenant.TenantId,
  user_id: row.user_id as User.UserId | null
}))

/** The InvitationStore over the `SqlClient` in context. */
export const make = Effect.map(SqlClient.SqlClient, (sql) => {
  const columns = sql.literal(
    "invitation_id, tenant_id, email, name, status, token_hash, invited_by, expires_at, user_id, created_at, updated_at"
  )
  return InvitationStore.InvitationStore.of({
    insert: (i) =>
      sql`INSERT INTO invitations (${columns}) VALUES (${i.invitation_id}, ${i.tenant_id}, ${i.email}, ${i.name}, ${i.status},
          ${i.token_hash}, ${i.invited_by}, ${i.expires_at}, ${i.user_id}, ${i.created_at}, ${i.updated_at})`.pipe(
        Effect.asVoid,
        failAs("InvitationStore.insert")
      ),
    find: (tenantId, id) => {
      if (!isId(tenantId) || !isId(id)) return Effect.succeed(undefined)
      return sql`SELECT ${columns} FROM invitations WHERE tenant_id = ${tenantId} AND invitation_id = ${id}`.pipe(
        invitations.first("InvitationStore.find")
      )
    },
    findByTokenHash: (tokenHash) =>
      sql`SELECT ${columns} FROM invitations WHERE token_hash = ${tokenHash}`.pipe(invitations.first("InvitationStore.findByTokenHash")),
    findPending: (tenantId, email) => {
      if (!isId(tenantId)) return Effect.succeed(undefined)
      return sql`SELECT ${columns} FROM invitations WHERE tenant_id = ${tenantId} AND email = ${email} AND status = 'pending'
        ORDER BY created_at DESC LIMIT 1`.pipe(invitations.first("InvitationStore.findPending"))
    },
    list: (tenantId, query) => {
      if (!isId(tenantId)) return Effect.succeed([])
      return sql`SELECT ${columns} FROM invitations
        WHERE tenant_id = ${tenantId} AND created_at <= ${query.createdAtOrBefore}
          ${afterNewestFirst(sql, query, "invitation_id")}
        ORDER BY created_at DESC, invitation_id ASC LIMIT ${query.take}`.pipe(invitations.all("InvitationStore.list"))
    },
    update: (i, expected) => {
      if (!isId(i.tenant_id) || !isId(i.invitation_id)) return Effect.succeed(false)
      return sql`UPDATE invitations SET name = ${i.name}, status = ${i.status}, token_hash = ${i.token_hash},
          expires_at = ${i.expires_at}, user_id = ${i.user_id}, updated_at = ${i.updated_at}
        WHERE tenant_id = ${i.tenant_id} AND invitation_id = ${i.invitation_id} AND updated_at = ${expected}
        RETURNING invitation_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("InvitationStore.update")
      )
    }
  })
})
