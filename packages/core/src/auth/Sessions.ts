/**
 * Use cases on console sessions (decision 0022): e-mail a one-time sign-in
 * link, open a session from a link, an admin's API token or an accepted
 * invitation, resolve a cookie to the member it signs in, and end it.
 *
 * A session is re-checked at every request: a link or invitation session
 * reads its directory user as they are now (deprovisioned or inactive:
 * refused, roles afresh); an API-token session looks its token up by hash
 * (revoked: refused; a personal token's user read afresh), so tokens with
 * no directory user (a tenant's provisioning token, a host's bootstrap
 * token) sign in too, and revoking the token ends their sessions.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Redacted } from "effect"
import * as ApiToken from "../tenancy/ApiToken.ts"
import * as AuditLog from "../audit/AuditLog.ts"
import type { EventPublisher } from "../webhooks/EventPublisher.ts"
import { Authenticator } from "./Authenticator.ts"
import { base64UrlEncode, hmacKey, sha256Hex } from "../platform/Crypto.ts"
import { DirectoryStore } from "../directory/DirectoryStore.ts"
import { Forbidden, type StoreError, Unauthenticated, TaggedFailure } from "../platform/Errors.ts"
import { Limiter, type RateLimitedWith } from "../limits/Limiter.ts"
import { Mailer } from "../platform/Mailer.ts"
import { Member } from "./Principal.ts"
import * as OperationLimits from "../limits/OperationLimits.ts"
import { randomBytes, uuidv7 } from "../platform/Ids.ts"
import {
  defaultLifetimes,
  endedAt,
  type Lifetimes,
  linkValidityMillis,
  type Session,
  type SignInLink,
  touchEveryMillis,
  type Via
} from "./Session.ts"
import { ServiceSecrets } from "../platform/ServiceSecrets.ts"
import { SessionStore } from "./SessionStore.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { TenantStore } from "../tenancy/TenantStore.ts"
import * as TenantTokens from "./TenantTokens.ts"
import { Transactor } from "../platform/Transactor.ts"
import type { User, UserId } from "../directory/User.ts"

/** The sign-in link is unknown, used or expired. */
export class SignInLinkInvalid extends TaggedFailure("SignInLinkInvalid")<{}> {
  /** The sentence its problem says. */
  get problemDetail(): string {
    return "This sign-in link is unknown, was used already or has expired. Ask for a new link"
  }
  readonly code = "auth/sign-in-link-invalid" as const
}

/** How sign-in e-mails point to the console page that opens the session. */
export interface Links {
  /** The URL the person opens, carrying the link token (in the fragment, so it reaches no log). */
  readonly signInUrl: (token: string) => string
}

/** A session, the member it signs in now, and how the console names them. */
export interface Resolved {
  readonly session: Session
  readonly member: Member
  /** The directory user's name; `null` for an API token with no directory user. */
  readonly name: string | null
}

/** A new session and its cookie value, this once (only its hash is stored). */
export interface Opened extends Resolved {
  readonly cookie: string
}

/**
 * What resolving sessions reads, and writes when it finds one that has
 * just ended (the end and its audit entry).
 */
export type Services = SessionStore | DirectoryStore | TenantStore | AuditLog.AuditStore | EventPublisher | Transactor

/** What opening and ending a session writes besides the session: its audit entry, in one transaction. */
export type Recording = SessionStore | AuditLog.AuditStore | EventPublisher | Transactor

/** Who signed in, as the audit log names them. */
const actorOf = (session: Session): AuditLog.Actor => ({
  type: session.via === "api-token" ? "api_token" : "user",
  id: session.user_id
})

/**
 * Why a session ended other than by signing out (`session.ended`): unused
 * past its idle lifetime, past its absolute one, its user deprovisioned,
 * the API token it was opened with revoked (or its user otherwise no
 * longer active), or its user's e-mail address changed.
 */
export type EndReason = "idle" | "expired" | "deprovisioned" | "credential_revoked" | "email_changed"

/** The audit entry of a session that ended other than by sign-out (`reason` says why). */
export const endedEntry = (session: Session, reason: EndReason, by: AuditLog.Actor): AuditLog.Recorded => ({
  workspace_id: null,
  action: "session.ended",
  actor: by,
  target: { type: "session", id: session.session_id },
  detail: { session_id: session.session_id, via: session.via, user_id: session.user_id, reason }
})

/** The audit entry of a session's start or end (`session.signed_in`, `session.signed_out`). */
const audit = (session: Session, action: "session.signed_in" | "session.signed_out") =>
  AuditLog.record(session.tenant_id, {
    workspace_id: null,
    action,
    actor: actorOf(session),
    target: { type: "session", id: session.session_id },
    detail: { session_id: session.session_id, via: session.via, user_id: session.user_id }
  })

const signedOut = new Unauthenticated({ detail: "You are not signed in, or your session has ended: sign in again" })

/** A random 256-bit secret, base64url (43 characters). */
const newSecret = Effect.map(randomBytes(32), base64UrlEncode)

/**
 * The CSRF token of a session: derived from its cookie, so it is never
 * stored and is the same after a reload, yet not computable from the
 * stored hash nor from anything a cross-site page can read.
 */
export const csrfToken = (cookie: string): Effect.Effect<string> => sha256Hex(`analytics-csrf:${cookie}`)

/** Whether two strings are equal, in time independent of where they differ. */
export const constantTimeEquals = (a: string, b: string): boolean => {
  if (a.length !== b.length) return false
  let difference = 0
  for (let i = 0; i < a.length; i++) difference |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return difference === 0
}

/** The e-mail with a tenant's sign-in link. */
const linkMail = (email: string, tenantName: string, url: string, expiresAt: Date) => ({
  to: [email],
  subject: `Sign in to Analytics (${tenantName})`,
  text: [
    "Hello,",
    "",
    `Someone asked to sign in to Analytics for ${tenantName} with this address.`,
    `Open this link to sign in (it works once, until ${expiresAt.toISOString()}):`,
    "",
    url,
    "",
    "If you did not ask for it, ignore this message: nobody can sign in without the link."
  ].join("\n")
})

/**
 * E-mails a one-time sign-in link to each tenant where `email` is an active
 * user. The caller answers the same whatever happened (no account
 * enumeration), so a mail failure is logged, not returned. Counted per
 * address and per client address (`OperationLimits.signInLinks`).
 */
export const requestLink = (
  email: string,
  clientIp: string,
  links: Links
): Effect.Effect<
  void,
  RateLimitedWith<"rate-limit/sign-in-links-exceeded"> | StoreError,
  SessionStore | DirectoryStore | TenantStore | Mailer | Limiter
> =>
  Effect.gen(function*() {
    // The rate-limit store keys on a hash: no e-mail address is kept there.
    yield* (yield* Limiter).enforce(OperationLimits.signInLinks(yield* sha256Hex(email), clientIp))
    const users = yield* (yield* DirectoryStore).findActiveUsersByEmail(email)
    const store = yield* SessionStore
    const tenants = yield* TenantStore
    const mailer = yield* Mailer
    for (const user of users) {
      const tenant = yield* tenants.findTenant(user.tenant_id)
      if (tenant === undefined) continue
      const token = yield* newSecret
      const now = yield* Clock.currentTimeMillis
      const link: SignInLink = {
        link_id: yield* uuidv7,
        tenant_id: user.tenant_id,
        user_id: user.user_id,
        token_hash: yield* sha256Hex(token),
        created_at: new Date(now),
        expires_at: new Date(now + linkValidityMillis),
        used_at: null
      }
      yield* store.insertLink(link)
      yield* mailer.send(linkMail(user.email, tenant.name, links.signInUrl(token), link.expires_at)).pipe(
        Effect.catchTag("MailError", (error) =>
          Effect.logWarning("A sign-in link could not be e-mailed").pipe(
            Effect.annotateLogs({ tenant_id: user.tenant_id, user_id: user.user_id, error: error.message })
          ))
      )
    }
  })

/** The member a directory user is now, or `undefined` when they are missing or not active. */
const activeUser = (tenantId: TenantId, userId: string) =>
  Effect.map(
    Effect.flatMap(DirectoryStore, (directory) => directory.findUser(tenantId, userId as UserId)),
    (user) => user === undefined || user.status !== "active" ? undefined : user
  )

const memberOf = (user: User) =>
  new Member({ tenantId: user.tenant_id, userId: user.user_id, email: user.email, roles: user.roles, channel: "session" })

/** Stores a new session for a member. */
const open = (
  member: Member,
  name: string | null,
  via: Via,
  apiTokenHash: string | null,
  lifetimes: Lifetimes
): Effect.Effect<Opened, StoreError, Recording> =>
  Effect.gen(function*() {
    const cookie = yield* newSecret
    const now = yield* Clock.currentTimeMillis
    const session: Session = {
      session_id: yield* uuidv7,
      tenant_id: member.tenantId,
      user_id: member.userId,
      token_hash: yield* sha256Hex(cookie),
      via,
      api_token_hash: apiTokenHash,
      created_at: new Date(now),
      last_seen_at: new Date(now),
      expires_at: new Date(now + lifetimes.absoluteMillis),
      ended_at: null
    }
    const store = yield* SessionStore
    yield* (yield* Transactor).transaction(Effect.andThen(store.insert(session), audit(session, "session.signed_in")))
    return { session, member, name, cookie }
  })

/** Opens a session from an e-mailed link: the link is spent (once, atomically) and its user must still be active. */
export const openWithLink = (
  linkToken: string,
  lifetimes: Lifetimes = defaultLifetimes
): Effect.Effect<Opened, SignInLinkInvalid | StoreError, Recording | DirectoryStore> =>
  Effect.gen(function*() {
    if (linkToken.length === 0 || linkToken.length > 512) return yield* new SignInLinkInvalid()
    const now = yield* Clock.currentTimeMillis
    const link = yield* (yield* SessionStore).useLink(yield* sha256Hex(linkToken), new Date(now))
    if (link === undefined) return yield* new SignInLinkInvalid()
    const user = yield* activeUser(link.tenant_id, link.user_id)
    if (user === undefined) return yield* new SignInLinkInvalid()
    return yield* open(memberOf(user), user.name, "link", null, lifetimes)
  })

/** Opens a session for a user just made active (an accepted invitation). */
export const openForUser = (
  user: User,
  via: Via,
  lifetimes: Lifetimes = defaultLifetimes
): Effect.Effect<Opened, StoreError, Recording> => open(memberOf(user), user.name, via, null, lifetimes)

/**
 * Opens a session with an API token: only a tenant admin's token issued by
 * this service (the operator's, a member's, or one the store does not hold
 * is refused: `Forbidden`); an invalid one is `Unauthenticated`.
 */
export const openWithToken = (
  credential: Redacted.Redacted<string>,
  lifetimes: Lifetimes = defaultLifetimes
): Effect.Effect<Opened, Unauthenticated | Forbidden | StoreError, Authenticator | Services | Recording> =>
  Effect.gen(function*() {
    const principal = yield* (yield* Authenticator).authenticate(credential)
    if (principal._tag === "Operator") {
      return yield* new Forbidden({ detail: "The operator token provisions tenants; it does not sign in to the console" })
    }
    if (!principal.roles.includes("admin")) {
      return yield* new Forbidden({ detail: "Only a tenant admin's API token signs in; ask for a sign-in link by e-mail" })
    }
    const tokenHash = yield* ApiToken.hash(Redacted.value(credential))
    if ((yield* (yield* TenantStore).findTokenByHash(tokenHash)) === undefined) {
      return yield* new Forbidden({ detail: "Only an API token issued by this service signs in to the console" })
    }
    const user = yield* activeUser(principal.tenantId, principal.userId)
    return yield* open(new Member({ ...principal, channel: "session" }), user?.name ?? null, "api-token", tokenHash, lifetimes)
  })

/** The member an API-token session acts as now: its token still issued (and a personal token's user active). */
const tokenMember = (session: Session) =>
  Effect.gen(function*() {
    const record = yield* (yield* TenantStore).findTokenByHash(session.api_token_hash ?? "")
    if (record === undefined || record.tenantId !== session.tenant_id) return undefined
    if (record.roles.includes(TenantTokens.userRole)) {
      const user = yield* activeUser(record.tenantId, record.userId)
      return user === undefined ? undefined : { member: memberOf(user), name: user.name as string | null }
    }
    const member = new Member({ tenantId: record.tenantId, userId: record.userId, email: record.email, roles: record.roles, channel: "session" })
    return { member, name: null }
  })

/**
 * The session a cookie names and the member it signs in now, or
 * `Unauthenticated` when it is unknown, ended, idle too long, past its
 * absolute expiry, or its user (or token) no longer acts. A use is written
 * at most once a minute.
 */
export const resolve = (
  cookie: string,
  lifetimes: Lifetimes = defaultLifetimes
): Effect.Effect<Resolved, Unauthenticated | StoreError, Services> =>
  Effect.gen(function*() {
    if (cookie.length === 0 || cookie.length > 512) return yield* signedOut
    const store = yield* SessionStore
    const found = yield* store.findByHash(yield* sha256Hex(cookie))
    if (found === undefined) return yield* signedOut
    const now = yield* Clock.currentTimeMillis
    const ended = endedAt(found, lifetimes, now)
    if (ended === "ended") return yield* signedOut
    // Past a lifetime: ended now, once (of concurrent requests one ends it), with its entry.
    if (ended !== undefined) return yield* Effect.andThen(endOnce(found, ended, now), signedOut)
    const acting = found.via === "api-token"
      ? yield* tokenMember(found)
      : yield* Effect.map(activeUser(found.tenant_id, found.user_id), (user) =>
        user === undefined ? undefined : { member: memberOf(user), name: user.name as string | null })
    if (acting === undefined) return yield* Effect.andThen(endOnce(found, "credential_revoked", now), signedOut)
    let session = found
    if (now - found.last_seen_at.getTime() >= touchEveryMillis) {
      yield* store.touch(found.tenant_id, found.session_id, new Date(now))
      session = { ...found, last_seen_at: new Date(now) }
    }
    return { session, ...acting }
  })

/** Ends a session found still open, recording why, unless another request ended it first. */
const endOnce = (session: Session, reason: EndReason, now: number) =>
  Effect.flatMap(Transactor, (transactor) =>
    transactor.transaction(Effect.gen(function*() {
      if (yield* (yield* SessionStore).end(session.tenant_id, session.session_id, new Date(now))) {
        yield* AuditLog.record(session.tenant_id, endedEntry(session, reason, AuditLog.system))
      }
    })))

/**
 * Ends every open session of a user whose e-mail address changed (each
 * audited, reason `email_changed`, by `by`) and spends their unused
 * sign-in links: a session or link belongs to the identity that signed in
 * with the old address, and whoever holds the new one signs in afresh. Run
 * it in the transaction that changes the address. How many sessions ended.
 */
export const endForEmailChange = (
  tenantId: TenantId,
  userId: string,
  by: AuditLog.Actor
): Effect.Effect<number, StoreError, Recording> =>
  Effect.gen(function*() {
    const store = yield* SessionStore
    const now = new Date(yield* Clock.currentTimeMillis)
    yield* store.spendLinksOf(tenantId, userId, now)
    const ended = yield* store.endForUser(tenantId, userId, now)
    for (const session of ended) yield* AuditLog.record(tenantId, endedEntry(session, "email_changed", by))
    return ended.length
  })

/** Ends the session a cookie names (sign-out); the session ended, or `undefined` when there was none open. */
export const end = (cookie: string): Effect.Effect<Session | undefined, StoreError, Recording> =>
  Effect.gen(function*() {
    if (cookie.length === 0 || cookie.length > 512) return undefined
    const store = yield* SessionStore
    const found = yield* store.findByHash(yield* sha256Hex(cookie))
    if (found === undefined || found.ended_at !== null) return undefined
    const now = new Date(yield* Clock.currentTimeMillis)
    return yield* (yield* Transactor).transaction(Effect.gen(function*() {
      if (!(yield* store.end(found.tenant_id, found.session_id, now))) return undefined
      yield* audit(found, "session.signed_out")
      return found
    }))
  })

/** How many lapsed sessions one transaction ends. */
const lapsedBatch = 100

/**
 * Ends the open sessions past their idle or absolute lifetime, each with
 * its `session.ended` entry (reason `idle` or `expired`) in the same
 * transaction, as a request presenting one would; how many. Without it, a
 * session never used again would be purged unaudited.
 */
export const endLapsed = (lifetimes: Lifetimes = defaultLifetimes): Effect.Effect<number, StoreError, Recording> =>
  Effect.gen(function*() {
    const store = yield* SessionStore
    const transactor = yield* Transactor
    const now = yield* Clock.currentTimeMillis
    let total = 0
    while (true) {
      const ended = yield* transactor.transaction(Effect.gen(function*() {
        const lapsed = yield* store.endLapsed(new Date(now - lifetimes.idleMillis), new Date(now), lapsedBatch)
        for (const session of lapsed) {
          const reason = endedAt(session, lifetimes, now) === "expired" ? "expired" : "idle"
          yield* AuditLog.record(session.tenant_id, endedEntry(session, reason, AuditLog.system))
        }
        return lapsed.length
      }))
      total += ended
      if (ended < lapsedBatch) return total
    }
  })

/**
 * Ends the lapsed sessions (`endLapsed`, audited), then deletes sessions
 * and sign-in links that can no longer sign anyone in (past their absolute
 * expiry, ended, or expired links); how many rows were deleted.
 */
export const purgeExpired = (lifetimes: Lifetimes = defaultLifetimes): Effect.Effect<number, StoreError, Recording> =>
  Effect.gen(function*() {
    yield* endLapsed(lifetimes)
    return yield* (yield* SessionStore).purgeExpired(new Date(yield* Clock.currentTimeMillis))
  })

/** Milliseconds in a day: the embedded CSRF token changes each UTC day. */
const dayMillis = 86_400_000

/**
 * Makes the embedded channel's CSRF tokens: with no session row to hold a
 * token, it is `HMAC(secret, tenant:user:day)` under a service secret, so
 * every process computes the same one and a page that cannot read it cannot
 * forge it. `at(tenantId, userId, now)` gives the current day's token and
 * the previous day's (a page loaded before midnight UTC keeps working).
 */
export const embeddedCsrf: Effect.Effect<
  {
    readonly at: (tenantId: TenantId, userId: string, now: number) => Effect.Effect<{ readonly current: string; readonly previous: string }>
  },
  StoreError,
  ServiceSecrets
> = Effect.gen(function*() {
  const secret = yield* (yield* ServiceSecrets).getOrCreate("console-csrf-hmac", Effect.map(randomBytes(32), base64UrlEncode))
  const key = yield* hmacKey(new TextEncoder().encode(secret))
  const token = (tenantId: TenantId, userId: string, day: number) =>
    Effect.map(key.sign(`${tenantId}:${userId}:${day}`), base64UrlEncode)
  return {
    at: (tenantId, userId, now) =>
      Effect.gen(function*() {
        const day = Math.floor(now / dayMillis)
        return { current: yield* token(tenantId, userId, day), previous: yield* token(tenantId, userId, day - 1) }
      })
  }
})
