/**
 * The SessionStore over `SqlClient` (PostgreSQL and PGlite). A link is
 * spent by one conditional `UPDATE`, so two concurrent uses cannot both win.
 *
 * @since 0.1.0
 */
import { type Session, SessionStore, type Tenant } from "@analytics/core"
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { failAs, isId } from "./StoreErrors.ts"

interface SessionRow {
  readonly session_id: string
  readonly tenant_id: string
  readonly user_id: string
  readonly token_hash: string
  readonly via: Session.Via
  readonly api_token_hash: string | null
  readonly created_at: Date
  readonly last_seen_at: Date
  readonly expires_at: Date
  readonly ended_at: Date | null
}

interface LinkRow {
  readonly link_id: string
  readonly tenant_id: string
  readonly user_id: string
  readonly token_hash: string
  readonly created_at: Date
  readonly expires_at: Date
  readonly used_at: Date | null
}

const toSession = (row: SessionRow): Session.Session => ({ ...row, tenant_id: row.tenant_id as Tenant.TenantId })
const toLink = (row: LinkRow): Session.SignInLink => ({ ...row, tenant_id: row.tenant_id as Tenant.TenantId })

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
      sql<SessionRow>`SELECT ${columns} FROM sessions WHERE token_hash = ${tokenHash}`.pipe(
        Effect.map(([row]) => row === undefined ? undefined : toSession(row)),
        failAs("SessionStore.findByHash")
      ),
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
      return sql<SessionRow>`UPDATE sessions SET ended_at = ${now}
        WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND ended_at IS NULL RETURNING ${columns}`.pipe(
        Effect.map((rows) => rows.map((row) => ({ ...toSession(row), ended_at: null }))),
        failAs("SessionStore.endForUser")
      )
    },
    endLapsed: (idleSince, now, limit) =>
      // As endForUser: the rows as they were, but for ended_at; `ended_at IS NULL` again, so a session a request ended meanwhile is not ended twice.
      sql<SessionRow>`UPDATE sessions SET ended_at = ${now}
        WHERE session_id IN (
          SELECT session_id FROM sessions
          WHERE ended_at IS NULL AND (last_seen_at < ${idleSince} OR expires_at <= ${now})
          LIMIT ${limit}
        ) AND ended_at IS NULL
        RETURNING ${columns}`.pipe(
        Effect.map((rows) => rows.map((row) => ({ ...toSession(row), ended_at: null }))),
        failAs("SessionStore.endLapsed")
      ),
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
      sql<LinkRow>`UPDATE sign_in_links SET used_at = ${now}
        WHERE token_hash = ${tokenHash} AND used_at IS NULL AND expires_at > ${now}
        RETURNING ${linkColumns}`.pipe(
        Effect.map(([row]) => row === undefined ? undefined : toLink(row)),
        failAs("SessionStore.useLink")
      ),
    purgeExpired: (before) =>
      sql<{ readonly purged: number | bigint }>`WITH s AS (
          DELETE FROM sessions WHERE expires_at < ${before} OR ended_at < ${before} RETURNING 1
        ), l AS (
          DELETE FROM sign_in_links WHERE expires_at < ${before} RETURNING 1
        ) SELECT (SELECT count(*) FROM s) + (SELECT count(*) FROM l) AS purged`.pipe(
        Effect.map(([row]) => Number(row?.purged ?? 0)),
        failAs("SessionStore.purgeExpired")
      )
  })
})
