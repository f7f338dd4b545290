/**
 * The authorization policy: for every operation of the service, who may
 * call it. One table (`rules`) is the whole matrix; the HTTP layer asks it
 * before each operation and only turns a refusal into a problem, and the
 * matrix test walks it with every role. Docs: decision 0018.
 *
 * The roles, lowest first: the link or embed **viewer** (through its own
 * grant), the **member** of a tenant (what grants give them: view,
 * download, comment, edit, share), the tenant **admin** (every right inside
 * the tenant), the **SCIM** token (its identity provider's `/scim/v2`
 * only) and the **operator** (provisions tenants, nothing inside them).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { DirectoryStore } from "../directory/DirectoryStore.ts"
import { Forbidden, NotFound, type StoreError } from "../platform/Errors.ts"
import type { Action } from "./Grant.ts"
import * as Grants from "./Grants.ts"
import type { GrantStore } from "./GrantStore.ts"
import type { Member, Principal } from "../auth/Principal.ts"
import type * as Subjects from "./Subjects.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { scimRole } from "../auth/TenantTokens.ts"

/** Who may call an operation. */
export type Rule =
  /** No credential is asked: the request carries its own (an invitation's token) or serves public content. */
  | { readonly who: "anyone" }
  /** A public link's visitor or an embed's viewer, through its grant, holding `action` on the report. */
  | { readonly who: "viewer"; readonly action: Action }
  /** The operator token. */
  | { readonly who: "operator" }
  /** An identity provider's SCIM token, on its tenant's directory. */
  | { readonly who: "scim" }
  /** Any member of the tenant (never the operator or a SCIM token). */
  | { readonly who: "member" }
  /** A member holding `action` on the subject (by grant to them, their team or executive role); admins always. */
  | { readonly who: "granted"; readonly action: Action; readonly subject: Subjects.Located["type"] }
  /** The member who asked for or made the resource, and admins; anyone else is told it does not exist. */
  | { readonly who: "owner"; readonly resource: string }
  /** Tenant admins only. */
  | { readonly who: "admin" }

const anyone = { who: "anyone" } as const
const operator = { who: "operator" } as const
const scim = { who: "scim" } as const
const member = { who: "member" } as const
const admin = { who: "admin" } as const
const viewer = (action: Action) => ({ who: "viewer", action }) as const
const granted = (action: Action, subject: Subjects.Located["type"]) => ({ who: "granted", action, subject }) as const
const owner = (resource: string) => ({ who: "owner", resource }) as const

/**
 * The matrix: every operation (`group.endpoint` of the OpenAPI document,
 * plus the routes beside it: share pages, uploads, SCIM) and its rule.
 * Some use cases refine a rule with what only they know (a member grants
 * only actions they hold; a grant they did not make is a 404 to them): see
 * decision 0018.
 */
export const rules = {
  "health": anyone,
  "publicConfig": anyone,
  "tenants.create": operator,
  "tenants.changePlan": operator,
  "workspaces.list": member,
  "workspaces.create": admin,
  // As the list: any member sees every workspace's name, so reading one by id reveals nothing more.
  "workspaces.get": member,
  "webhooks.eventTypes": member,
  "webhooks.create": admin,
  "webhooks.list": admin,
  "webhooks.get": admin,
  "webhooks.update": admin,
  "webhooks.remove": admin,
  "webhooks.rotateSecret": admin,
  // Whoever holds the secret can sign as the service: admins only, each read audited (decision 0010).
  "webhooks.secret": admin,
  "webhooks.successRate": admin,
  "webhooks.test": admin,
  "webhooks.deliveries": admin,
  "webhooks.delivery": admin,
  "webhooks.redeliver": admin,
  "webhooks.recover": admin,
  "users.list": admin,
  "users.create": admin,
  "users.get": admin,
  "users.update": admin,
  "users.issueToken": admin,
  "users.listTokens": admin,
  "users.revokeToken": admin,
  "teams.list": admin,
  "teams.create": admin,
  "teams.get": admin,
  "teams.rename": admin,
  "teams.delete": admin,
  "teams.listMembers": admin,
  "teams.addMember": admin,
  "teams.removeMember": admin,
  "executiveRoles.list": admin,
  "executiveRoles.create": admin,
  "executiveRoles.get": admin,
  "executiveRoles.rename": admin,
  "executiveRoles.delete": admin,
  "executiveRoles.listMembers": admin,
  "executiveRoles.addMember": admin,
  "executiveRoles.removeMember": admin,
  "invitations.list": admin,
  "invitations.create": admin,
  "invitations.resend": admin,
  "invitations.revoke": admin,
  "invitationAcceptance.accept": anyone,
  // Console sign-in (decision 0022): the cookie, a link, a token or an invitation is the credential, checked by the use case.
  "session.requestSignInLink": anyone,
  "session.signInWithLink": anyone,
  "session.signInWithToken": anyone,
  "session.signInWithInvitation": anyone,
  "session.current": anyone,
  "session.signOut": anyone,
  "scimTokens.create": admin,
  "scimTokens.list": admin,
  "scimTokens.revoke": admin,
  // The share pages' look is the organisation's (decision 0014).
  "branding.get": admin,
  "branding.update": admin,
  "datasets.list": member,
  "datasets.create": admin,
  "datasets.get": member,
  "datasets.update": admin,
  "datasets.delete": admin,
  "datasets.refresh": admin,
  // Who refreshed, and why a refresh failed: the admins' who run refreshes.
  "datasets.refreshes": admin,
  "datasets.upload": admin,
  "datasets.query": member,
  "datasets.sql": member,
  "reports.list": member,
  "reports.create": admin,
  "reports.get": member,
  "reports.update": granted("edit", "report"),
  "reports.delete": admin,
  "reports.visualData": member,
  // The whole report as its viewer's data: only for whom a grant gives view (admins always).
  "reports.view": granted("view", "report"),
  "dashboards.list": member,
  "dashboards.create": admin,
  "dashboards.get": member,
  "dashboards.update": admin,
  "dashboards.delete": admin,
  "dashboards.tileData": member,
  "dashboards.view": granted("view", "dashboard"),
  "alerts.list": member,
  "alerts.create": admin,
  "alerts.get": member,
  "alerts.update": admin,
  "alerts.delete": admin,
  "alerts.check": admin,
  "alerts.history": member,
  "auditLog.list": admin,
  "auditLog.csv": admin,
  "sharing.create": granted("share", "report"),
  "sharing.list": member,
  "sharing.get": owner("grant"),
  "sharing.update": owner("grant"),
  "sharing.revoke": owner("grant"),
  "sharing.pause": owner("grant"),
  "sharing.resume": owner("grant"),
  "sharing.embedToken": owner("grant"),
  // What an embed would show, asked while making one: whoever may share the report (decision 0014).
  "sharing.embedPreview": granted("share", "report"),
  "sharing.links": admin,
  // The share dialog's picker: any member may share what they hold, so any member names whom to; it shows id, name and address only.
  "sharing.people": member,
  "exports.export": granted("download", "report"),
  "exports.job": owner("job"),
  "exports.result": owner("job"),
  "exports.cancel": owner("job"),
  "exportSchedules.list": admin,
  "exportSchedules.create": granted("download", "report"),
  "exportSchedules.get": owner("schedule"),
  "exportSchedules.update": owner("schedule"),
  "exportSchedules.delete": owner("schedule"),
  "exportSchedules.sendNow": owner("schedule"),
  "exportSchedules.runs": owner("schedule"),
  "comments.list": member,
  "comments.create": granted("comment", "report"),
  "comments.update": owner("comment"),
  "comments.delete": owner("comment"),
  "ai.ask": member,
  "shares.view": viewer("view"),
  "shares.export": viewer("download"),
  "shares.download": viewer("download"),
  "scim.directory": scim
} as const satisfies Record<string, Rule>

/** An operation of the service: a key of the matrix. */
export type Operation = keyof typeof rules

/** The operations a tenant member's credential may reach (rules other than anyone, viewer, operator and SCIM). */
export type MemberOperation = {
  [K in Operation]: (typeof rules)[K]["who"] extends "member" | "granted" | "owner" | "admin" ? K : never
}[Operation]

/** The operations only the operator may call. */
export type OperatorOperation = {
  [K in Operation]: (typeof rules)[K]["who"] extends "operator" ? K : never
}[Operation]

/** Whether the member is an admin of their tenant. */
export const isAdmin = (caller: Member): boolean => caller.roles.includes("admin")

/** Whether the principal is a SCIM token's (which serves `/scim/v2` only). */
export const isScim = (caller: Principal): boolean =>
  caller._tag === "Member" && caller.roles.length === 1 && caller.roles[0] === scimRole

const refuse = (detail: string) => Effect.fail(new Forbidden({ detail }))

/**
 * Checks the caller may reach the operation at all: its role. Answers the
 * member it acts as. A `granted` or `owner` rule needs the resource as well:
 * `onSubject` and `onOwned` finish the check once it is read.
 */
export const authorize = (caller: Principal, operation: MemberOperation): Effect.Effect<Member, Forbidden> => {
  if (caller._tag !== "Member") return refuse("The operator token may only provision tenants")
  if (isScim(caller)) return refuse("A SCIM token serves /scim/v2 only")
  const rule: Rule = rules[operation]
  if (rule.who === "admin" && !isAdmin(caller)) return refuse(`Only a tenant admin may call ${operation}`)
  return Effect.succeed(caller)
}

/** Checks the caller is the operator. */
export const authorizeOperator = (caller: Principal, operation: OperatorOperation): Effect.Effect<void, Forbidden> =>
  caller._tag === "Operator" ? Effect.void : refuse(`Only the operator token may call ${operation}`)

/** Checks the caller is a SCIM token's, and answers its tenant. */
export const authorizeScim = (caller: Principal): Effect.Effect<TenantId, Forbidden> =>
  isScim(caller) && caller._tag === "Member" ? Effect.succeed(caller.tenantId) : refuse("Only a SCIM token may provision the directory")

/**
 * Finishes a `granted` rule: an admin may; a member through a live grant
 * giving the rule's action on the subject or its workspace (read at this
 * moment: membership, expiry, revocation). Refused with `share/expired`
 * when their grants expired, `auth/forbidden` otherwise. Says whether the
 * grant is watermarked.
 */
export const onSubject = (
  caller: Member,
  operation: MemberOperation,
  subjectId: string
): Effect.Effect<Grants.Allowed, NotFound | Forbidden | Grants.ShareExpired | StoreError, GrantStore | DirectoryStore | Subjects.Services> => {
  const rule: Rule = rules[operation]
  return rule.who === "granted" ? Grants.authorize(caller, rule.subject, subjectId, rule.action) : Effect.succeed({ watermark: false })
}

/**
 * Reads a record an `owner` rule guards: `NotFound` when `found` has none
 * or, for a member, when it acts for someone else (`requestedBy`: a user,
 * or something that is nobody's own, as a share's or a schedule's job).
 */
export const owned = <A>(
  caller: Member,
  operation: MemberOperation,
  resource: { readonly type: string; readonly id: string },
  requestedBy: (record: A) => { readonly type: string; readonly id: string }
) =>
<E, R>(found: Effect.Effect<A | undefined, E, R>): Effect.Effect<A, E | NotFound, R> =>
  Effect.flatMap(found, (record) => {
    if (record === undefined) return Effect.fail(new NotFound({ resource: resource.type, id: resource.id }))
    const by = requestedBy(record)
    return Effect.as(onOwned(caller, operation, { ...resource, ownerId: by.type === "user" ? by.id : null }), record)
  })

/**
 * Finishes an `owner` rule: an admin may; a member only on what they asked
 * for or made (`ownerId`). Anyone else is answered `NotFound`, as for an id
 * that does not exist, so ids of others' resources reveal nothing.
 */
export const onOwned = (
  caller: Member,
  operation: MemberOperation,
  resource: { readonly type: string; readonly id: string; readonly ownerId: string | null }
): Effect.Effect<void, NotFound> => {
  const rule: Rule = rules[operation]
  return rule.who !== "owner" || isAdmin(caller) || (resource.ownerId !== null && resource.ownerId === caller.userId)
    ? Effect.void
    : Effect.fail(new NotFound({ resource: resource.type, id: resource.id }))
}
