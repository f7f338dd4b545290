/**
 * Port: console sessions and sign-in links. Lookups by hash span tenants
 * (the cookie or the link is all its holder has); everything else names
 * its tenant.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { Session, SignInLink } from "./Session.ts"
import type { TenantId } from "../tenancy/Tenant.ts"

/** Sessions and sign-in links. */
export class SessionStore extends Context.Service<SessionStore, {
  readonly insert: (session: Session) => Effect.Effect<void, StoreError>
  /** The session whose cookie hashes to `tokenHash`, ended or not. */
  readonly findByHash: (tokenHash: string) => Effect.Effect<Session | undefined, StoreError>
  /** Records a use at `now` (the caller writes at most once a minute). */
  readonly touch: (tenantId: TenantId, sessionId: string, now: Date) => Effect.Effect<void, StoreError>
  /** Ends one session; `false` when it was ended already or is missing. */
  readonly end: (tenantId: TenantId, sessionId: string, now: Date) => Effect.Effect<boolean, StoreError>
  /** Ends every open session of a user (deprovisioning); the sessions ended, as they were (each is audited). */
  readonly endForUser: (tenantId: TenantId, userId: string, now: Date) => Effect.Effect<ReadonlyArray<Session>, StoreError>
  /**
   * Ends at most `limit` open sessions unused since before `idleSince` or
   * past their absolute expiry at `now`, across tenants; the sessions
   * ended, as they were (each is audited).
   */
  readonly endLapsed: (idleSince: Date, now: Date, limit: number) => Effect.Effect<ReadonlyArray<Session>, StoreError>
  readonly insertLink: (link: SignInLink) => Effect.Effect<void, StoreError>
  /** Spends every unused sign-in link of a user at `now` (they sign no one in from then on); how many. */
  readonly spendLinksOf: (tenantId: TenantId, userId: string, now: Date) => Effect.Effect<number, StoreError>
  /**
   * Spends a link: marks it used and returns it when it was unused and
   * unexpired at `now`, in one atomic step (two concurrent uses: one wins).
   */
  readonly useLink: (tokenHash: string, now: Date) => Effect.Effect<SignInLink | undefined, StoreError>
  /** Deletes sessions and links that expired or ended before `before`; how many rows. */
  readonly purgeExpired: (before: Date) => Effect.Effect<number, StoreError>
}>()("@analytics/core/SessionStore") {}
