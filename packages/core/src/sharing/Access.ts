/**
 * Access evaluation (decision 0012): the one place where "may this audience do
 * this to that, now?" is decided, from the grants on the subject and on
 * what contains it. Every endpoint that serves shared content asks here.
 *
 * Membership is read when deciding, never copied into grants (decision
 * 0014): the caller passes the user's teams and executive roles as
 * they are now, so a change of membership applies from the next request.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { DirectoryStore } from "../directory/DirectoryStore.ts"
import type { StoreError } from "../platform/Errors.ts"
import type { Action, Grant, SubjectType } from "./Grant.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { UserId, UserStatus } from "../directory/User.ts"

/** Who asks, as they are now. */
export type Audience =
  | {
    readonly _tag: "User"
    readonly userId: string
    readonly status: UserStatus
    /** The teams the user is in now. */
    readonly teams: ReadonlyArray<string>
    /** The executive roles the user holds now. */
    readonly roles: ReadonlyArray<string>
  }
  /** A public link or an embed: the grant it was issued for is the audience. */
  | { readonly _tag: "Link" | "Embed"; readonly grantId: string }

/** What is asked about: the thing, and what contains it (a report's workspace), whose grants cover it too. */
export interface Subject {
  readonly type: SubjectType
  readonly id: string
  readonly within?: ReadonlyArray<{ readonly type: SubjectType; readonly id: string }> | undefined
}

/** Why access is refused. */
export type DenyReason =
  /** No grant on the subject reaches this audience. */
  | "no-grant"
  /** The grants that reached it have expired (decision 0014: 403 `share/expired`). */
  | "expired"
  /** The grants that reached it were revoked. */
  | "revoked"
  /** Grants reach it, but none allows this action. */
  | "action-not-granted"
  /** The user was deprovisioned: no access at all. */
  | "deprovisioned"

/** The decision, with the grant that allowed it or the reason it was refused. */
export type Decision =
  | { readonly _tag: "Allow"; readonly grant: Grant; readonly watermark: boolean }
  | { readonly _tag: "Deny"; readonly reason: DenyReason }

const deny = (reason: DenyReason): Decision => ({ _tag: "Deny", reason })

/** Whether a grant's audience includes this one. */
const reaches = (grant: Grant, audience: Audience): boolean => {
  switch (audience._tag) {
    case "User":
      return (grant.principal_type === "user" && grant.principal_id === audience.userId) ||
        (grant.principal_type === "team" && grant.principal_id !== null && audience.teams.includes(grant.principal_id)) ||
        (grant.principal_type === "executive_role" && grant.principal_id !== null && audience.roles.includes(grant.principal_id))
    case "Link":
      return grant.principal_type === "link" && grant.grant_id === audience.grantId
    case "Embed":
      return grant.principal_type === "embed" && grant.grant_id === audience.grantId
  }
}

/** Whether a grant is on the subject or on something containing it. */
const covers = (grant: Grant, subject: Subject): boolean =>
  (grant.subject_type === subject.type && grant.subject_id === subject.id) ||
  (subject.within ?? []).some((outer) => grant.subject_type === outer.type && grant.subject_id === outer.id)

/**
 * Decides whether `audience` may do `action` to `subject` at `now`, given
 * the tenant's grants (those not on the subject are ignored).
 *
 * Allowed when a grant reaching the audience, not revoked, not expired
 * (`expires_at` is exclusive: expired from that instant on), covers the
 * subject and lists the action; when several do, one without a watermark
 * wins (the most permissive). Refused otherwise, saying why: a grant that
 * reached it but does not list the action, else an expired one, else a
 * revoked one, else none.
 */
export const decide = (
  audience: Audience,
  subject: Subject,
  action: Action,
  grants: ReadonlyArray<Grant>,
  now: Date
): Decision => {
  if (audience._tag === "User" && audience.status !== "active") return deny("deprovisioned")
  let allowed: Grant | undefined
  let activeWithoutAction = false
  let expired = false
  let revoked = false
  for (const grant of grants) {
    if (!covers(grant, subject) || !reaches(grant, audience)) continue
    if (grant.revoked_at !== null && grant.revoked_at <= now) {
      revoked = true
      continue
    }
    if (grant.expires_at !== null && grant.expires_at <= now) {
      expired = true
      continue
    }
    if (!grant.actions.includes(action)) {
      activeWithoutAction = true
      continue
    }
    if (allowed === undefined || (allowed.watermark && !grant.watermark)) allowed = grant
  }
  if (allowed !== undefined) return { _tag: "Allow", grant: allowed, watermark: allowed.watermark }
  if (activeWithoutAction) return deny("action-not-granted")
  if (expired) return deny("expired")
  if (revoked) return deny("revoked")
  return deny("no-grant")
}

/**
 * Decides for a user of the directory as they are at this moment: their
 * status and their teams and executive roles are read from the store on
 * every call (never cached), so a deprovisioning or a change of membership
 * applies from the next request. A user the directory does not know gets
 * nothing.
 */
export const decideForUser = (
  tenantId: TenantId,
  userId: string,
  subject: Subject,
  action: Action,
  grants: ReadonlyArray<Grant>,
  now: Date
): Effect.Effect<Decision, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const store = yield* DirectoryStore
    const user = yield* store.findUser(tenantId, userId as UserId)
    if (user === undefined) return deny("no-grant")
    const { roles, teams } = yield* store.membershipsOf(tenantId, user.user_id)
    return decide({ _tag: "User", userId: user.user_id, status: user.status, teams, roles }, subject, action, grants, now)
  })
