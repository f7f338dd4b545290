/**
 * The caller the edge already resolved for this request, so authentication
 * does not resolve the same credential a second time (rate limiting must
 * know the tenant before the route runs; authentication runs inside it).
 *
 * @since 0.1.0
 */
import type { Caller, Sessions } from "@analytics/core"
import { Context } from "effect"

/** How the caller was recognised: a bearer token, the console's session cookie, or the embedding app's own sign-in. */
export type Via = "token" | "session" | "embedded"

/** A credential and what it resolved to, provided to the rest of the request by the edge. */
export class ResolvedCaller extends Context.Service<ResolvedCaller, {
  /** The bearer token or the session cookie's value (`""` when embedded). */
  readonly credential: string
  readonly caller: Caller.Caller
  readonly via: Via
  /** The session, when `via` is `session`. */
  readonly session?: Sessions.Resolved | undefined
  /** The token unsafe requests must carry in `X-CSRF-Token`, when `via` is `session` or `embedded`. */
  readonly csrfToken?: string | undefined
  /** When embedded, the previous day's token, still accepted (a page loaded before midnight UTC). */
  readonly previousCsrfToken?: string | undefined
}>()("@analytics/adapter-http/ResolvedCaller") {}
