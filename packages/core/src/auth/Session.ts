/**
 * Console sessions (decision 0022): a signed-in browser holds a random
 * cookie; the store keeps only its SHA-256 hash. A session is one more way
 * to produce a `Member`: it is re-checked at every request (the directory
 * user as they are now, or the API token it signed in with), so sign-out,
 * deprovisioning and revocation end it at once.
 *
 * @since 0.1.0
 */
import type { TenantId } from "../tenancy/Tenant.ts"

/** How a session was opened: an e-mailed link, a tenant admin's API token, or an accepted invitation. */
export type Via = "link" | "api-token" | "invitation"

/** A session as stored. */
export interface Session {
  readonly session_id: string
  readonly tenant_id: TenantId
  /** The directory user, or (for an API-token session) the token's holder. */
  readonly user_id: string
  /** SHA-256 hex of the cookie value. */
  readonly token_hash: string
  readonly via: Via
  /**
   * For `api-token` sessions, the hash of the token signed in with: each
   * request checks it is still issued, so revoking the token ends them.
   */
  readonly api_token_hash: string | null
  readonly created_at: Date
  /** Written at most once a minute (`touchEveryMillis`): idle expiry counts from it. */
  readonly last_seen_at: Date
  /** The absolute expiry. */
  readonly expires_at: Date
  readonly ended_at: Date | null
}

/** A one-time sign-in link as stored: the token travels only in the e-mail. */
export interface SignInLink {
  readonly link_id: string
  readonly tenant_id: TenantId
  readonly user_id: string
  /** SHA-256 hex of the link's token. */
  readonly token_hash: string
  readonly created_at: Date
  readonly expires_at: Date
  readonly used_at: Date | null
}

/** How long a sign-in link can be used. */
export const linkValidityMillis = 15 * 60_000

/** A session's lifetimes. */
export interface Lifetimes {
  /** Ends when unused this long. */
  readonly idleMillis: number
  /** Ends this long after sign-in, used or not. */
  readonly absoluteMillis: number
}

/** Idle 60 minutes, absolute 12 hours. */
export const defaultLifetimes: Lifetimes = { idleMillis: 60 * 60_000, absoluteMillis: 12 * 60 * 60_000 }

/** Lifetimes as a deployment configures them (minutes idle, hours absolute), each by default as `defaultLifetimes`. */
export const lifetimesOf = (
  options: { readonly idleMinutes?: number | undefined; readonly absoluteHours?: number | undefined } | undefined
): Lifetimes => ({
  idleMillis: (options?.idleMinutes ?? defaultLifetimes.idleMillis / 60_000) * 60_000,
  absoluteMillis: (options?.absoluteHours ?? defaultLifetimes.absoluteMillis / 3_600_000) * 3_600_000
})

/** `last_seen_at` is written at most this often, so most requests only read. */
export const touchEveryMillis = 60_000

/** When the session stops being valid if unused from now on (never after the absolute expiry). */
export const idleExpiresAt = (session: Session, lifetimes: Lifetimes): Date =>
  new Date(Math.min(session.last_seen_at.getTime() + lifetimes.idleMillis, session.expires_at.getTime()))

/** Why a session no longer signs anyone in, or `undefined` when it still does at `now`. */
export const endedAt = (session: Session, lifetimes: Lifetimes, now: number): "ended" | "expired" | "idle" | undefined =>
  session.ended_at !== null ? "ended"
  : now >= session.expires_at.getTime() ? "expired"
  : now >= session.last_seen_at.getTime() + lifetimes.idleMillis ? "idle"
  : undefined
