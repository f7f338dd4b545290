/**
 * What the console is told about the caller's session (decision 0022): the
 * body `GET /api/session` answers, which the console's shell page also
 * inlines in its boot data so a page load needs no request to learn who is
 * signed in. Built from the caller the edge resolved (`ResolvedCaller`), so
 * the page and the endpoint recognise a cookie the same way.
 *
 * @since 0.1.0
 */
import type { Groups } from "@analytics/api"
import { type Errors, Session, type Sessions, TenantCache } from "@analytics/core"
import { Effect, Option } from "effect"
import { ResolvedCaller } from "./ResolvedCaller.ts"
import * as SessionCookie from "./SessionCookie.ts"

/** The info of a session opened here (a row of ours), with its CSRF token. */
export const ofSession = (
  resolved: Sessions.Resolved,
  csrfToken: string
): Effect.Effect<Groups.Session.SessionInfo, Errors.StoreError, TenantCache.TenantCache> =>
  Effect.gen(function*() {
    const lifetimes = yield* SessionCookie.SessionLifetimes
    const tenant = yield* (yield* TenantCache.TenantCache).get(resolved.member.tenantId)
    return {
      user: {
        user_id: resolved.member.userId,
        email: resolved.member.email,
        display_name: resolved.name,
        roles: resolved.member.roles
      },
      tenant: { tenant_id: resolved.member.tenantId, name: tenant?.name ?? "" },
      via: resolved.session.via,
      csrf_token: csrfToken,
      idle_expires_at: Session.idleExpiresAt(resolved.session, lifetimes).toISOString(),
      expires_at: resolved.session.expires_at.toISOString()
    }
  })

/**
 * The session of the request's caller: a session cookie's, or the
 * embedding app's sign-in (no row, no expiry of ours); `undefined` when
 * the caller is signed in neither way (no credential, an ended session, a
 * bearer token: tokens are no console session).
 */
export const current: Effect.Effect<Groups.Session.SessionInfo | undefined, Errors.StoreError, TenantCache.TenantCache> = Effect.gen(
  function*() {
    const resolved = yield* Effect.serviceOption(ResolvedCaller)
    if (Option.isNone(resolved)) return undefined
    const { caller, csrfToken, session, via } = resolved.value
    if (via === "session" && session !== undefined) return yield* ofSession(session, csrfToken ?? "")
    if (via !== "embedded" || caller.principal._tag !== "Member") return undefined
    const member = caller.principal
    return {
      user: { user_id: member.userId, email: member.email, display_name: null, roles: member.roles },
      tenant: { tenant_id: member.tenantId, name: caller.tenant?.name ?? "" },
      via: "embedded" as const,
      csrf_token: csrfToken ?? "",
      idle_expires_at: null,
      expires_at: null
    }
  }
)
