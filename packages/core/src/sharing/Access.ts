/**
 * Access evaluation (decision 0012): the one place where "may this audience do
 * this to that, now?" is decided, from the grants on the subject and on
 * what contains it. Every endpoint that serves shared content asks here.
 *
 * Membership is read when deciding, never copied into grants (decision
 * 0014): the caller passes the user's teams and executive roles as
 * they are now, so a change of membership applies from the next request.
 *
 * Delegation is read the same way: a grant made by a member who is no
 * admin gives at most what its maker holds at this moment (`share` and the
 * action, through grants of their own), so a delegate never hands out, nor
 * keeps handed out, more than they hold (decision 0018).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { DirectoryStore } from "../directory/DirectoryStore.ts"
import type { Actor } from "../audit/AuditLog.ts"
import type { StoreError } from "../platform/Errors.ts"
import type { Action, Grant, SubjectType } from "./Grant.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { User, UserId, UserStatus } from "../directory/User.ts"

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
  /** The grants that reached it were made by members who no longer hold what they gave. */
  | "maker-lacks"

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

/** A grant with who made it: what deciding through delegation reads. */
export interface MadeGrant extends Grant {
  readonly created_by: Actor
}

/**
 * A grant's maker as they are now: an **admin** (a user holding the admin
 * role, or a tenant token, which only admins hold: what they grant stands),
 * a **delegate** (a member, who gives at most what they hold), or **gone**
 * (a delegate deprovisioned since: what they gave reaches nothing).
 */
export type Maker =
  | { readonly _tag: "Admin" }
  | { readonly _tag: "Delegate"; readonly user: User }
  | { readonly _tag: "Gone" }

/** Who made a grant, a schedule or a link, as they are now (read from the directory, never cached). */
export const makerOf = (tenantId: TenantId, actor: Actor): Effect.Effect<Maker, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    // The service itself, or a credential that is no user of the directory: only admins hold those.
    if (actor.type !== "user") return { _tag: "Admin" }
    const user = yield* (yield* DirectoryStore).findUser(tenantId, actor.id as UserId)
    if (user === undefined || user.roles.includes("admin")) return { _tag: "Admin" }
    return user.status === "active" ? { _tag: "Delegate", user } : { _tag: "Gone" }
  })

/** What a maker holds of what a grant gives: the actions, and whether what they hold is watermarked (then so is all they hand out). */
export interface Held {
  readonly actions: ReadonlyArray<Action>
  readonly watermark: boolean
}

/**
 * Which of `actions` a delegate holds on the subject now, with `share`
 * (which handing anything out needs); all of them for an admin, none once
 * gone. Their own grants are read the same way, up the chain of makers
 * (`seen`: the delegates already on it, so a cycle of delegates holds nothing).
 */
export const heldByMaker = (
  tenantId: TenantId,
  maker: Maker,
  subject: Subject,
  actions: ReadonlyArray<Action>,
  grants: ReadonlyArray<MadeGrant>,
  now: Date,
  seen: ReadonlySet<string> = new Set()
): Effect.Effect<Held, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    if (maker._tag !== "Delegate") return { actions: maker._tag === "Admin" ? actions : [], watermark: false }
    const user = maker.user
    const nothing: Held = { actions: [], watermark: false }
    if (seen.has(user.user_id)) return nothing
    const within = new Set([...seen, user.user_id])
    const { roles, teams } = yield* (yield* DirectoryStore).membershipsOf(tenantId, user.user_id)
    const audience: Audience = { _tag: "User", userId: user.user_id, status: user.status, teams, roles }
    const share = yield* decideThrough(tenantId, audience, subject, "share", grants, now, within)
    if (share._tag === "Deny") return nothing
    let watermark = share.watermark
    const held: Array<Action> = []
    for (const action of actions) {
      const decision = action === "share" ? share : yield* decideThrough(tenantId, audience, subject, action, grants, now, within)
      if (decision._tag === "Deny") continue
      held.push(action)
      watermark ||= decision.watermark
    }
    return { actions: held, watermark }
  })

/**
 * `decide`, then each allowing grant's maker asked whether they still hold
 * what it gives; a grant whose maker does not is passed over for the next,
 * and one whose maker holds it watermarked allows it watermarked.
 */
const decideThrough = (
  tenantId: TenantId,
  audience: Audience,
  subject: Subject,
  action: Action,
  grants: ReadonlyArray<MadeGrant>,
  now: Date,
  seen: ReadonlySet<string>
): Effect.Effect<Decision, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    let remaining = grants
    let passedOver = false
    let watermarked: Decision | undefined
    while (true) {
      const decision = decide(audience, subject, action, remaining, now)
      if (decision._tag === "Deny") {
        return watermarked ?? (passedOver && decision.reason === "no-grant" ? deny("maker-lacks") : decision)
      }
      const grant = decision.grant as MadeGrant
      const maker = yield* makerOf(tenantId, grant.created_by)
      const others = grants.filter((g) => g.grant_id !== grant.grant_id)
      const held = yield* heldByMaker(tenantId, maker, subject, [action], others, now, seen)
      remaining = remaining.filter((g) => g.grant_id !== grant.grant_id)
      if (!held.actions.includes(action)) passedOver = true
      else if (!decision.watermark && !held.watermark) return decision
      // Allowed with a watermark: kept unless another grant allows it without.
      else watermarked ??= { ...decision, watermark: true }
    }
  })

/**
 * Decides for a user of the directory as they are at this moment: their
 * status and their teams and executive roles are read from the store on
 * every call (never cached), so a deprovisioning or a change of membership
 * applies from the next request; and so is each grant's maker (see
 * `heldByMaker`). A user the directory does not know gets nothing.
 */
export const decideForUser = (
  tenantId: TenantId,
  userId: string,
  subject: Subject,
  action: Action,
  grants: ReadonlyArray<MadeGrant>,
  now: Date
): Effect.Effect<Decision, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const store = yield* DirectoryStore
    const user = yield* store.findUser(tenantId, userId as UserId)
    if (user === undefined) return deny("no-grant")
    const { roles, teams } = yield* store.membershipsOf(tenantId, user.user_id)
    return yield* decideThrough(tenantId, { _tag: "User", userId: user.user_id, status: user.status, teams, roles }, subject, action, grants, now, new Set([user.user_id]))
  })
