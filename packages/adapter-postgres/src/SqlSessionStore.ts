/**
 * The SessionStore over `SqlClient` (PostgreSQL and PGlite). A link is
 * spent by one conditional `UPDATE`, so two concurrent uses cannot both win.
 *
 * @since 0.1.0
 */
import { type Session, SessionStore, type Tenant } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.ts"
import { failAs, isId } from "./StoreErrors.ts"

const SessionRow = Schema.Struct({
  session_id: Schema.String,
  tenant_id: Schema.String,
  user_id: Schema.String,
  token_hash: Schema.String,
  via: Schema.Literals(["link", "api-token", "invitation"]),
  api_token_hash: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  last_seen_at: Schema.Date,
  expires_at: Schema.Date,
  ended_at: Schema.NullOr(Schema.Date)
})

const LinkRow = Schema.Struct({
  link_id: Schema.String,
  tenant_id: Schema.String,
  user_id: Schema.String,
  token_hash: Schema.String,
  created_at: Schema.Date,
  expires_at: Schema.Date,
  used_at: Schema.NullOr(Schema.Date)
})

const sessions = Rows.reader(SessionRow, (row): Session.Session => ({ ...row, tenant_id: row.tenant_id as Tenant.TenantId }))
/** Sessions as they were before the statement that ended them (RETURNING gives them as updated). */
const endedSessions = Rows.reader(SessionRow, (row): Session.Session => ({ ...row, tenant_id: row.tenant_id as Tenant.TenantId, ended_at: null }))
const links = Rows.reader(LinkRow, (row): Session.SignInLink => ({ ...row, tenant_id: row.tenant_id as Tenant.TenantId }))
/** The SessionStore over the `SqlClient` in context. */
export const make = Effect.map(SqlClient.SqlClient, (sql) => {
  const columns = sql.literal(
    "session_id, tenant_id, user_id, token_hash, via, api_token_hash, created_at, last_seen_at, expires_at, ended_at"
  )
  const linkColumns = sql.literal("link_id, tenant_id, user_id, token_hash, created_at, expires_at, used_at")
  return SessionStore.SessionStore.of({
    insert: (s) =>
      sql`INSERT INTO sessions (${columns}) VALUES (${s.session_id}, ${s.tenant_id}, ${s.user_id}, ${s.token_hash}, ${s.via},
          ${s.api_token_hash}, ${s.created_at}, ${s.last_seen_at}, ${s.expires_at}, ${s.ended_at})`.pipe(
        Effect.asVoid,
        failAs("SessionStore.insert")
      ),
    findByHash: (tokenHash) =>
      sql`SELECT ${columns} FROM sessions WHERE token_hash = ${tokenHash}`.pipe(sessions.first("SessionStore.findByHash")),
    touch: (tenantId, sessionId, now) => {
      if (!isId(tenantId) || !isId(sessionId)) return Effect.void
      // Never backwards: a slower request's older time does not undo a newer one.
      return sql`UPDATE sessions SET last_seen_at = ${now}
        WHERE tenant_id = ${tenantId} AND session_id = ${sessionId} AND last_seen_at < ${now}`.pipe(
        Effect.asVoid,
        failAs("SessionStore.touch")
      )
    },
    end: (tenantId, sessionId, now) => {
      if (!isId(tenantId) || !isId(sessionId)) return Effect.succeed(false)
      return sql`UPDATE sessions SET ended_at = ${now}
        WHERE tenant_id = ${tenantId} AND session_id = ${sessionId} AND ended_at IS NULL RETURNING session_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("SessionStore.end")
      )
    },
    endForUser: (tenantId, userId, now) => {
      if (!isId(tenantId)) return Effect.succeed([])
      // RETURNING gives the rows as updated: the open sessions as they were, but for ended_at.
      return sql`UPDATE sessions SET ended_at = ${now}
        WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND ended_at IS NULL RETURNING ${columns}`.pipe(
        endedSessions.all("SessionStore.endForUser")
      )
    },
    endLapsed: (idleSince, now, limit) =>
      // As endForUser: the rows as they were, but for ended_at; `ended_at IS NULL` again, so a session a request ended meanwhile is not ended twice.
      sql`UPDATE sessions SET ended_at = ${now}
        WHERE session_id IN (
          SELECT session_id FROM sessions
          WHERE ended_at IS NULL AND (last_seen_at < ${idleSince} OR expires_at <= ${now})
          LIMIT ${limit}
        ) AND ended_at IS NULL
        RETURNING ${columns}`.pipe(endedSessions.all("SessionStore.endLapsed")),
    insertLink: (l) =>
      sql`INSERT INTO sign_in_links (${linkColumns}) VALUES (${l.link_id}, ${l.tenant_id}, ${l.user_id}, ${l.token_hash},
          ${l.created_at}, ${l.expires_at}, ${l.used_at})`.pipe(Effect.asVoid, failAs("SessionStore.insertLink")),
    spendLinksOf: (tenantId, userId, now) => {
      if (!isId(tenantId) || !isId(userId)) return Effect.succeed(0)
      return sql`UPDATE sign_in_links SET used_at = ${now}
        WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND used_at IS NULL RETURNING link_id`.pipe(
        Effect.map((rows) => rows.length),
        failAs("SessionStore.spendLinksOf")
      )
    },
    useLink: (tokenHash, now) =>
      sql`UPDATE sign_in_links SET used_at = ${now}
        WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${now}
        RETURNING ${linkColumns}`.pipe(links.first("SessionStore.useLink")),
    purgeExpired: (before) =>
      sql`WITH s AS (
          DELETE FROM sessions WHERE expires_at < ${before} OR ended_at < ${before} RETURNING 1
        ), l AS (
          DELETE FROM sign_in_links WHERE expires_at < ${before} RETURNING 1
        ) SELECT (SELECT count(*) FROM s) + (SELECT count(*) FROM l) AS count`.pipe(
        Rows.count("SessionStore.purgeExpired")
      )
  })
})
