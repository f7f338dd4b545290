/**
 * The SessionStore in memory.
 *
 * @since 0.1.0
 */
import { type Session, SessionStore } from "@analytics/core"
import { Effect } from "effect"
import { restore, set, write } from "./Transactions.ts"

/** A fresh in-memory store of sessions and sign-in links. */
export const make = Effect.sync(() => {
  const sessions = new Map<string, Session.Session>()
  /** Session ids by cookie hash. */
  const byHash = new Map<string, string>()
  const links = new Map<string, Session.SignInLink>()
  const of = (tenantId: string, sessionId: string) => {
    const session = sessions.get(sessionId)
    return session !== undefined && session.tenant_id === tenantId ? session : undefined
  }
  const unchanged = () => {}
  /** Ends at most `limit` open sessions that `matches`; the sessions ended, as they were. */
  const endOpen = (matches: (session: Session.Session) => boolean, now: Date, limit: number) =>
    write(() => {
      const undos: Array<() => void> = []
      const ended: Array<Session.Session> = []
      for (const session of sessions.values()) {
        if (ended.length >= limit) break
        if (session.ended_at !== null || !matches(session)) continue
        ended.push(session)
        undos.push(set(sessions, session.session_id, { ...session, ended_at: now }))
      }
      return [ended, () => undos.reverse().forEach((undo) => undo())] as const
    })
  return SessionStore.SessionStore.of({
    insert: (session) =>
      write(() => {
        const undos = [set(sessions, session.session_id, session), set(byHash, session.token_hash, session.session_id)]
        return [undefined, () => undos.reverse().forEach((undo) => undo())]
      }),
    findByHash: (tokenHash) =>
      Effect.sync(() => {
        const id = byHash.get(tokenHash)
        return id === undefined ? undefined : sessions.get(id)
      }),
    touch: (tenantId, sessionId, now) =>
      write(() => {
        const session = of(tenantId, sessionId)
        if (session === undefined) return [undefined, unchanged]
        return [undefined, set(sessions, sessionId, { ...session, last_seen_at: now })]
      }),
    end: (tenantId, sessionId, now) =>
      write(() => {
        const session = of(tenantId, sessionId)
        if (session === undefined || session.ended_at !== null) return [false, unchanged]
        return [true, set(sessions, sessionId, { ...session, ended_at: now })]
      }),
    endForUser: (tenantId, userId, now) =>
      endOpen((session) => session.tenant_id === tenantId && session.user_id === userId, now, Infinity),
    endLapsed: (idleSince, now, limit) =>
      endOpen((session) => session.last_seen_at < idleSince || session.expires_at <= now, now, limit),
    insertLink: (link) => write(() => [undefined, set(links, link.token_hash, link)]),
    spendLinksOf: (tenantId, userId, now) =>
      write(() => {
        const undos: Array<() => void> = []
        for (const link of links.values()) {
          if (link.tenant_id !== tenantId || link.user_id !== userId || link.used_at !== null) continue
          undos.push(set(links, link.token_hash, { ...link, used_at: now }))
        }
        return [undos.length, () => undos.reverse().forEach((undo) => undo())] as const
      }),
    useLink: (tokenHash, now) =>
      write(() => {
        const link = links.get(tokenHash)
        if (link === undefined || link.used_at !== null || link.expires_at.getTime() <= now.getTime()) {
          return [undefined, unchanged]
        }
        const used = { ...link, used_at: now }
        return [used, set(links, tokenHash, used)]
      }),
    purgeExpired: (before) =>
      write(() => {
        const undos: Array<() => void> = []
        for (const session of [...sessions.values()]) {
          const over = session.expires_at < before || (session.ended_at !== null && session.ended_at < before)
          if (!over) continue
          undos.push(restore(sessions, session.session_id), restore(byHash, session.token_hash))
          sessions.delete(session.session_id)
          byHash.delete(session.token_hash)
        }
        for (const link of [...links.values()]) {
          if (link.expires_at >= before) continue
          undos.push(restore(links, link.token_hash))
          links.delete(link.token_hash)
        }
        return [undos.length, () => undos.reverse().forEach((undo) => undo())]
      })
  })
})
