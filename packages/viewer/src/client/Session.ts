/**
 * Who is signed in: the `SessionInfo` every sign-in answers and
 * `GET /api/session` returns, kept in memory only (the session itself is
 * an HttpOnly cookie the script never sees). Listeners hear each change.
 *
 * @since 0.1.0
 */
import type { Groups, Json } from "@analytics/api"

/** The session as the service describes it (docs/guides/console.md). */
export type SessionInfo = Json<typeof Groups.Session.SessionInfo>

let current: SessionInfo | null = null
const listeners = new Set<(session: SessionInfo | null) => void>()

/** The session, or `null` when signed out or not known yet. */
export const currentSession = (): SessionInfo | null => current

/** Records a new session (or none) and tells the listeners. */
export const setSession = (session: SessionInfo | null): void => {
  current = session
  for (const listener of listeners) listener(session)
}

/** Calls `listener` at each change; returns how to stop. */
export const onSessionChange = (listener: (session: SessionInfo | null) => void): (() => void) => {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** Whether the signed-in user is a tenant admin. */
export const isAdmin = (session: SessionInfo | null): boolean => session?.user.roles.includes("admin") === true

/** The name to show for the signed-in user. */
export const displayName = (session: SessionInfo): string => session.user.display_name ?? session.user.email ?? session.tenant.name
