/**
 * Use cases on sharing grants (issue 7, first slice): creating and
 * revoking grants to users, teams, executive roles, links and embeds, with
 * the audit entry and the event written in the transaction of the change.
 * Link passwords, invitations of non-users and the HTTP endpoints follow.
 *
 * Who may grant: a tenant admin, or a principal holding `share` on the
 * subject; nobody grants an action they do not hold.
 *
 * @since 0.1.0
 */
import { Clock, Data, Effect, Schema } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Access from "./Access.ts"
import * as AuditLog from "./AuditLog.ts"
import { DirectoryStore } from "./DirectoryStore.ts"
import { Forbidden, NotFound, type StoreError } from "./Errors.ts"
import { type EventPublisher, publish } from "./EventPublisher.ts"
import { Action, type GrantId, PrincipalType, type StoredGrant, SubjectType } from "./Grant.ts"
import { GrantStore } from "./GrantStore.ts"
import type { GroupId } from "./Group.ts"
import { randomBytes, Uuid, uuidv7 } from "./Ids.ts"
import type { Member } from "./Principal.ts"
import * as Subjects from "./Subjects.ts"
import { Transactor } from "./Transactor.ts"
import type { UserId } from "./User.ts"

/** What a client sends to create a grant (spec 2.6). */
export const GrantCreate = Schema.Struct({
  subject_type: SubjectType,
  subject_id: Uuid,
  principal_type: PrincipalType,
  principal_id: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(100)).annotate({
    description: "The user, team or executive role; none for links and embeds"
  })),
  actions: Schema.Array(Action).check(
    Schema.isMinLength(1),
    Schema.makeFilter((actions) => new Set(actions).size === actions.length || "Each action is listed once")
  ),
  watermark: Schema.optionalKey(Schema.Boolean),
  expires_at: Schema.optionalKey(Schema.Date)
})
/** What a client sends to create a grant. */
export type GrantCreate = typeof GrantCreate.Type

/** The grant request does not hold together (a past expiry, a principal that is not one). */
export class GrantInvalid extends Data.TaggedError("GrantInvalid")<{
  readonly detail: string
}> {}

/** The actor as the audit log names them. */
const actorOf = (member: Member): AuditLog.Actor => ({ type: "user", id: member.userId })

/** A grant's payload as the audit log and events carry it: never a password or its hash, never a link's token. */
export const payloadOf = (grant: StoredGrant) => ({
  grant_id: grant.grant_id,
  subject_type: grant.subject_type,
  subject_id: grant.subject_id,
  principal_type: grant.principal_type,
  principal_id: grant.principal_id,
  actions: grant.actions,
  watermark: grant.watermark,
  expires_at: grant.expires_at === null ? null : grant.expires_at.toISOString(),
  revoked_at: grant.revoked_at === null ? null : grant.revoked_at.toISOString(),
  password_protected: grant.password_hash !== null,
  paused: grant.paused
})

/** Checks the actor may grant `actions` on a subject: an admin, or a holder of each of them and of `share`. */
const mayGrant = (actor: Member, subject: Subjects.Located, actions: ReadonlyArray<Action>, now: Date) =>
  Effect.gen(function*() {
    if (actor.roles.includes("admin")) return
    const grants = yield* (yield* GrantStore).onSubjects(actor.tenantId, [subject, ...subject.within])
    for (const action of new Set<Action>(["share", ...actions])) {
      const decision = yield* Access.decideForUser(actor.tenantId, actor.userId, subject, action, grants, now)
      if (decision._tag === "Deny") {
        return yield* new Forbidden({
          detail: action === "share"
            ? `You do not hold share on this ${subject.type}`
            : `You cannot grant ${action}: you do not hold it on this ${subject.type}`
        })
      }
    }
  })

/** Checks the principal exists in the tenant (users, teams, executive roles) or is absent (links, embeds). */
const checkPrincipal = (actor: Member, input: GrantCreate) =>
  Effect.gen(function*() {
    const directory = yield* DirectoryStore
    const id = input.principal_id
    switch (input.principal_type) {
      case "link":
      case "embed":
        if (id !== undefined) return yield* new GrantInvalid({ detail: `A ${input.principal_type} grant names no principal_id` })
        return null
      case "user":
        if (id === undefined || (yield* directory.findUser(actor.tenantId, id as UserId)) === undefined) {
          return yield* new GrantInvalid({ detail: `principal_id: no user ${id ?? "(missing)"} in this tenant` })
        }
        return id
      case "team":
      case "executive_role":
        if (id === undefined || (yield* directory.findGroup(actor.tenantId, input.principal_type, id as GroupId)) === undefined) {
          return yield* new GrantInvalid({ detail: `principal_id: no ${input.principal_type.replace("_", " ")} ${id ?? "(missing)"} in this tenant` })
        }
        return id
    }
  })

/** Creates a grant; the audit entry and `sharing.grant.created` are written with it. */
export const create = (
  actor: Member,
  input: GrantCreate
): Effect.Effect<
  StoredGrant,
  NotFound | Forbidden | GrantInvalid | StoreError,
  GrantStore | DirectoryStore | Subjects.Services | AuditLog.AuditStore | EventPublisher | Transactor
> =>
  Effect.gen(function*() {
    const now = new Date(yield* Clock.currentTimeMillis)
    const subject = yield* Subjects.locate(actor.tenantId, input.subject_type, input.subject_id)
    if (input.expires_at !== undefined && input.expires_at.getTime() <= now.getTime()) {
      return yield* new GrantInvalid({ detail: "expires_at must be in the future" })
    }
    const principalId = yield* checkPrincipal(actor, input)
    yield* mayGrant(actor, subject, input.actions, now)
    const grant: StoredGrant = {
      grant_id: (yield* uuidv7) as GrantId,
      tenant_id: actor.tenantId,
      workspace_id: subject.workspaceId,
      subject_type: input.subject_type,
      subject_id: input.subject_id,
      principal_type: input.principal_type,
      principal_id: principalId,
      actions: input.actions,
      watermark: input.watermark ?? false,
      expires_at: input.expires_at ?? null,
      revoked_at: null,
      // 192 random bits: a link's URL cannot be guessed.
      link_slug: input.principal_type === "link" ? Base64Url.encode(yield* randomBytes(24)) : null,
      password_hash: null,
      paused: false,
      invitation_id: null,
      created_by: actorOf(actor),
      created_at: now,
      updated_at: now
    }
    yield* (yield* Transactor).transaction(Effect.gen(function*() {
      yield* (yield* GrantStore).insert(grant)
      yield* recordChange(grant, "grant.created", actor)
      yield* publish(actor.tenantId, "sharing.grant.created", grant.workspace_id, {
        ...eventGrant(grant),
        actions: grant.actions,
        watermark: grant.watermark,
        expires_at: grant.expires_at === null ? null : grant.expires_at.toISOString(),
        actor: actorOf(actor)
      }).pipe(Effect.catchTag("SchemaError", Effect.die))
    }))
    return grant
  })

const eventGrant = (grant: StoredGrant) => ({
  grant_id: grant.grant_id,
  subject_type: grant.subject_type,
  subject_id: grant.subject_id,
  principal_type: grant.principal_type,
  principal_id: grant.principal_id
})

const recordChange = (grant: StoredGrant, action: string, actor: Member) =>
  AuditLog.record(grant.tenant_id, {
    workspace_id: grant.workspace_id,
    action,
    actor: actorOf(actor),
    target: { type: "grant", id: grant.grant_id },
    detail: payloadOf(grant)
  })

/**
 * Revokes a grant from the next request on (spec 3.2); the record stays. An
 * admin, its creator, or a holder of `share` on its subject may revoke it.
 * Revoking a revoked grant changes nothing.
 */
export const revoke = (
  actor: Member,
  grantId: string
): Effect.Effect<
  StoredGrant,
  NotFound | Forbidden | StoreError,
  GrantStore | DirectoryStore | Subjects.Services | AuditLog.AuditStore | EventPublisher | Transactor
> =>
  Effect.gen(function*() {
    const store = yield* GrantStore
    const grant = yield* store.find(actor.tenantId, grantId as GrantId)
    if (grant === undefined) return yield* new NotFound({ resource: "grant", id: grantId })
    if (grant.revoked_at !== null) return grant
    const now = new Date(yield* Clock.currentTimeMillis)
    if (grant.created_by.id !== actor.userId) {
      const subject = yield* Subjects.locate(actor.tenantId, grant.subject_type, grant.subject_id)
      yield* mayGrant(actor, subject, [], now)
    }
    const revoked: StoredGrant = { ...grant, revoked_at: now, updated_at: now }
    yield* (yield* Transactor).transaction(Effect.gen(function*() {
      yield* store.update(revoked)
      yield* recordChange(revoked, "grant.revoked", actor)
      yield* publish(actor.tenantId, "sharing.grant.revoked", revoked.workspace_id, { ...eventGrant(revoked), actor: actorOf(actor) }).pipe(
        Effect.catchTag("SchemaError", Effect.die)
      )
    }))
    return revoked
  })
