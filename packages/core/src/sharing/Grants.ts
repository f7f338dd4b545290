/**
 * Use cases on sharing grants (decision 0014): creating, listing,
 * changing, pausing and revoking grants to users (or invited addresses),
 * teams, executive roles, links and embeds, each change written with its
 * audit entry (never a secret) and its event in one transaction.
 *
 * Who may grant: a tenant admin, or a principal holding `share` on the
 * subject; nobody grants an action they do not hold.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Schema } from "effect"
import * as Base64Url from "effect/encoding/Base64Url"
import * as Access from "./Access.ts"
import * as AuditLog from "../audit/AuditLog.ts"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import { DirectoryStore } from "../directory/DirectoryStore.ts"
import { Forbidden, NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import { type EventPublisher, publish } from "../webhooks/EventPublisher.ts"
import { Action, type GrantId, Label, PrincipalType, type State, stateAt, type StoredGrant, SubjectType } from "./Grant.ts"
import { type GrantFilter, grantKey, GrantStore } from "./GrantStore.ts"
import type { GroupId } from "../directory/Group.ts"
import { randomBytes, UuidAnyCase, uuidv7 } from "../platform/Ids.ts"
import type { InvitationStore } from "./InvitationStore.ts"
import * as Invitations from "./Invitations.ts"
import * as LockedFilters from "./LockedFilters.ts"
import type { MailError, Mailer } from "../platform/Mailer.ts"
import { type InvalidSort, type NewestFirstRequest, type Page, paginateNewestFirst } from "../platform/Pagination.ts"
import { PasswordHasher } from "../auth/PasswordHasher.ts"
import { type Member, memberOfUser } from "../auth/Principal.ts"
import * as ShareTokens from "./ShareTokens.ts"
import * as Subjects from "./Subjects.ts"
import { Transactor } from "../platform/Transactor.ts"
import { Email, type UserId } from "../directory/User.ts"

/** A link's password: stored only as a hash. */
const Password = Schema.String.check(Schema.isMinCodePoints(8), Schema.isMaxCodePoints(256)).annotate({
  description: "A public link's password (8 to 256 characters); stored only as a salted hash"
})

/** What a client sends to create a grant (decision 0014). */
export const GrantCreate = Schema.Struct({
  subject_type: SubjectType,
  subject_id: UuidAnyCase,
  principal_type: PrincipalType,
  principal_id: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(100)).annotate({
    description: "The user, team or executive role; none for links and embeds"
  })),
  email: Schema.optionalKey(Email.annotate({
    description: "For a user grant instead of principal_id: a user of the tenant gets access at once, anyone else an invitation, and access once they accept it. " +
      "For a link: whom it is for; their address is tiled as the watermark."
  })),
  actions: Schema.Array(Action).check(
    Schema.isMinLength(1),
    Schema.makeFilter((actions) => new Set(actions).size === actions.length || "Each action is listed once")
  ),
  watermark: Schema.optionalKey(Schema.Boolean),
  expires_at: Schema.optionalKey(Schema.Date),
  password: Schema.optionalKey(Password),
  label: Schema.optionalKey(Schema.NullOr(Label).annotate({
    description: "A name for people, chiefly of links and embeds (\"Newsletter March\", \"Customer portal\"); none (null) by default"
  }))
})
/** What a client sends to create a grant. */
export type GrantCreate = typeof GrantCreate.Type

/** What a client sends to change a grant; `null` removes an expiry, a password or a label. */
export const GrantUpdate = Schema.Struct({
  actions: Schema.optionalKey(GrantCreate.fields.actions),
  watermark: Schema.optionalKey(Schema.Boolean),
  expires_at: Schema.optionalKey(Schema.NullOr(Schema.Date)),
  password: Schema.optionalKey(Schema.NullOr(Password)),
  label: Schema.optionalKey(Schema.NullOr(Label).annotate({ description: "A new label; null removes it" }))
})
/** What a client sends to change a grant. */
export type GrantUpdate = typeof GrantUpdate.Type

/** The grant request does not hold together (a past expiry, a principal that is not one). */
export class GrantInvalid extends TaggedFailure("GrantInvalid")<{
  readonly detail: string
}> {
  readonly code = "grant/invalid" as const
}

/** The only grants that reached the caller have expired (decision 0014: 403 `share/expired`). */
export class ShareExpired extends TaggedFailure("ShareExpired")<{
  readonly detail: string
}> {
  readonly code = "share/expired" as const
}

/** The grant was revoked or has expired: it is kept for the record and changes no more. */
export class GrantNotActive extends TaggedFailure("GrantNotActive")<{
  readonly state: "expired" | "revoked"
}> {
  readonly code = "grant/not-active" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `The grant is ${this.state}: it is kept for the record and changes no more`
  }
}

/** The actor as the audit log names them. */
const actorOf = (member: Member): AuditLog.Actor => ({ type: "user", id: member.userId })

const iso = (date: Date | null) => date === null ? null : date.toISOString()

/** A grant's payload as the audit log and events carry it: never a password or its hash, never a link's token. */
export const payloadOf = (grant: StoredGrant) => ({
  grant_id: grant.grant_id,
  subject_type: grant.subject_type,
  subject_id: grant.subject_id,
  principal_type: grant.principal_type,
  principal_id: grant.principal_id,
  recipient_email: grant.recipient_email,
  invitation_id: grant.invitation_id,
  actions: grant.actions,
  watermark: grant.watermark,
  expires_at: iso(grant.expires_at),
  revoked_at: iso(grant.revoked_at),
  password_protected: grant.password_hash !== null,
  paused: grant.paused,
  label: grant.label
})

/** What the use cases on grants read and write. */
export type Services =
  | GrantStore
  | DirectoryStore
  | Subjects.Services
  | AuditLog.AuditStore
  | EventPublisher
  | Transactor

/**
 * Checks the actor may grant `actions` on a subject: an admin, or a holder
 * of each of them and of `share` (delegation read as `Access` reads it).
 * Says whether what they hold is watermarked: then so is what they give.
 */
const mayGrant = (actor: Member, subject: Subjects.Located, actions: ReadonlyArray<Action>, now: Date) =>
  Effect.gen(function*() {
    if (isAdmin(actor)) return { watermark: false }
    const grants = yield* (yield* GrantStore).onSubjects(actor.tenantId, [subject, ...subject.within])
    let watermark = false
    for (const action of new Set<Action>(["share", ...actions])) {
      const decision = yield* Access.decideForUser(actor.tenantId, actor.userId, subject, action, grants, now)
      if (decision._tag === "Deny") {
        return yield* new Forbidden({
          detail: action === "share"
            ? `You do not hold share on this ${subject.type}`
            : `You cannot grant ${action}: you do not hold it on this ${subject.type}`
        })
      }
      watermark ||= decision.watermark
    }
    return { watermark }
  })

const isAdmin = (member: Member) => member.roles.includes("admin")

/** What an allowed action comes with: whether the viewer's own address is tiled over what they see and export. */
export interface Allowed {
  readonly watermark: boolean
}

/**
 * Checks a member may do `action` on a subject now: a tenant admin may;
 * anyone else through a grant that reaches them (as a user, or through the
 * teams and executive roles they hold at this moment) on the subject or its
 * workspace. Refused with `ShareExpired` when the grants that reached them
 * have expired, `Forbidden` otherwise. Says whether the grant that allows
 * it is watermarked (never for an admin; of several, one without wins).
 */
export const authorize = (
  member: Member,
  type: Subjects.Located["type"],
  id: string,
  action: Action
): Effect.Effect<Allowed, NotFound | Forbidden | ShareExpired | StoreError, GrantStore | DirectoryStore | Subjects.Services> =>
  Effect.gen(function*() {
    if (isAdmin(member)) return { watermark: false }
    const subject = yield* Subjects.locate(member.tenantId, type, id)
    const grants = yield* (yield* GrantStore).onSubjects(member.tenantId, [subject, ...subject.within])
    const now = new Date(yield* Clock.currentTimeMillis)
    const decision = yield* Access.decideForUser(member.tenantId, member.userId, subject, action, grants, now)
    if (decision._tag === "Allow") return { watermark: decision.watermark }
    if (decision.reason === "expired") return yield* new ShareExpired({ detail: `Your grant of ${action} on this ${type} has expired` })
    return yield* new Forbidden({
      detail: decision.reason === "action-not-granted"
        ? `Your grants on this ${type} do not include ${action}`
        : decision.reason === "revoked"
        ? `Your grant on this ${type} was revoked`
        : `Nothing grants you ${action} on this ${type}`
    })
  })

/**
 * Whether whoever acted (a schedule's maker, an export's requester) may
 * still do `action` on a subject now, as `authorize` decides for them: a
 * user of the directory as they are at this moment (never once
 * deprovisioned), a credential that is no user of it (a tenant token, which
 * only admins hold) always.
 */
export const actorMay = (
  tenantId: Member["tenantId"],
  actor: AuditLog.Actor,
  type: Subjects.Located["type"],
  id: string,
  action: Action
): Effect.Effect<boolean, StoreError, GrantStore | DirectoryStore | Subjects.Services> =>
  Effect.gen(function*() {
    if (actor.type !== "user") return true
    const user = yield* (yield* DirectoryStore).findUser(tenantId, actor.id as UserId)
    if (user === undefined) return true
    if (user.status !== "active") return false
    return yield* authorize(memberOfUser(user), type, id, action).pipe(
      Effect.as(true),
      Effect.catchTags({ Forbidden: () => Effect.succeed(false), ShareExpired: () => Effect.succeed(false), NotFound: () => Effect.succeed(false) })
    )
  })

/** Whom a grant goes to: a principal of the tenant, an invited address, or nobody (links and embeds). */
interface Audience {
  readonly principalId: string | null
  readonly recipientEmail: string | null
  /** A user grant to an address that is no user yet: invite it. */
  readonly invite: boolean
}

/** Checks the principal exists in the tenant (users, teams, executive roles) or is absent (links, embeds). */
const audienceOf = (actor: Member, input: GrantCreate) =>
  Effect.gen(function*(): Effect.fn.Return<Audience, GrantInvalid | StoreError, DirectoryStore> {
    const directory = yield* DirectoryStore
    const id = input.principal_id
    const type = input.principal_type
    if (input.password !== undefined && type !== "link") return yield* new GrantInvalid({ detail: "password: only a link has a password" })
    if (input.email !== undefined && type !== "user" && type !== "link") {
      return yield* new GrantInvalid({ detail: `email: a ${type.replace("_", " ")} grant is addressed by principal_id` })
    }
    switch (type) {
      case "link":
      case "embed":
        if (id !== undefined) return yield* new GrantInvalid({ detail: `principal_id: a ${type} grant names none` })
        return { principalId: null, recipientEmail: input.email ?? null, invite: false }
      case "user": {
        if ((id === undefined) === (input.email === undefined)) {
          return yield* new GrantInvalid({ detail: "A user grant names either principal_id (a user) or email (anyone; non-users are invited)" })
        }
        const user = id !== undefined
          ? yield* directory.findUser(actor.tenantId, id as UserId)
          : yield* directory.findUserBy(actor.tenantId, { email: input.email! })
        if (user !== undefined) {
          if (user.status !== "active") return yield* new GrantInvalid({ detail: `The user ${user.user_id} is deprovisioned` })
          return { principalId: user.user_id, recipientEmail: null, invite: false }
        }
        if (id !== undefined) return yield* new GrantInvalid({ detail: `principal_id: no user ${id} in this tenant` })
        return { principalId: null, recipientEmail: input.email!, invite: true }
      }
      case "team":
      case "executive_role":
        if (id === undefined || (yield* directory.findGroup(actor.tenantId, type, id as GroupId)) === undefined) {
          return yield* new GrantInvalid({ detail: `principal_id: no ${type.replace("_", " ")} ${id ?? "(missing)"} in this tenant` })
        }
        return { principalId: id, recipientEmail: null, invite: false }
    }
  })

const checkExpiry = (expiresAt: Date | null | undefined, now: Date) =>
  expiresAt !== undefined && expiresAt !== null && expiresAt.getTime() <= now.getTime()
    ? Effect.fail(new GrantInvalid({ detail: "expires_at must be in the future" }))
    : Effect.void

/**
 * The names a grant's entry writes down as they are now (decision 0025): what
 * is shared and with whom, so the entry still reads right once either is
 * renamed or deleted. `null` for what has no name (a link, an embed) or is
 * gone.
 */
const namesOf = (grant: StoredGrant) =>
  Effect.gen(function*() {
    const subject = yield* Subjects.locate(grant.tenant_id, grant.subject_type, grant.subject_id).pipe(
      Effect.map((located) => located.name),
      Effect.catchTag("NotFound", () => Effect.succeed(null))
    )
    const directory = yield* DirectoryStore
    const id = grant.principal_id
    const principal = grant.principal_type === "user"
      ? id === null ? grant.recipient_email : (yield* directory.findUser(grant.tenant_id, id as UserId))?.name ?? null
      : (grant.principal_type === "team" || grant.principal_type === "executive_role") && id !== null
      ? (yield* directory.findGroup(grant.tenant_id, grant.principal_type, id as GroupId))?.name ?? null
      : null
    return { subject_name: subject, principal_name: principal }
  })

/** Writes a change of a grant, its audit entry and its event (if any) in one transaction. */
const commit = (
  actor: Member,
  grant: StoredGrant,
  change: { readonly audit: string; readonly event?: "sharing.grant.created" | "sharing.grant.revoked"; readonly insert?: true }
) =>
  Effect.flatMap(Transactor, (transactor) =>
    transactor.transaction(Effect.gen(function*() {
      const store = yield* GrantStore
      if (change.insert) yield* store.insert(grant)
      else yield* store.update(grant)
      yield* AuditLog.record(grant.tenant_id, {
        workspace_id: grant.workspace_id,
        action: change.audit,
        actor: actorOf(actor),
        target: { type: "grant", id: grant.grant_id },
        detail: { ...payloadOf(grant), ...(yield* namesOf(grant)) }
      })
      if (change.event !== undefined) {
        // The webhook contract's fields (Events' catalog): no password, pause or label.
        const { label: ___, password_protected: _, paused: __, ...data } = payloadOf(grant)
        yield* publish(actor.tenantId, change.event, grant.workspace_id, { ...data, actor: actorOf(actor) }).pipe(
          Effect.catchTag("SchemaError", Effect.die)
        )
      }
    })))

/**
 * Creates a grant; the audit entry and `sharing.grant.created` are written
 * with it. A user grant to an address that is no user of the tenant sends
 * an invitation and waits for it: the grant applies once it is accepted
 * (decision 0014).
 */
export const create = (
  actor: Member,
  input: GrantCreate,
  invitationLinks: Invitations.Links
): Effect.Effect<
  StoredGrant,
  NotFound | Forbidden | GrantInvalid | StoreError | MailError,
  Services | PasswordHasher | InvitationStore | Mailer
> =>
  Effect.gen(function*() {
    const now = new Date(yield* Clock.currentTimeMillis)
    const subject = yield* Subjects.locate(actor.tenantId, input.subject_type, input.subject_id)
    yield* checkExpiry(input.expires_at, now)
    const audience = yield* audienceOf(actor, input)
    const held = yield* mayGrant(actor, subject, input.actions, now)
    // Inviting makes a member of the tenant: the admins' decision (POST /v1/invitations), never a delegate's.
    if (audience.invite && !isAdmin(actor)) {
      return yield* new Forbidden({
        detail: `${audience.recipientEmail} is not a user of this tenant, and only a tenant admin can invite someone new: ` +
          "ask an admin to invite them, or share it by link"
      })
    }
    const invitation = audience.invite
      ? yield* Invitations.inviteOrJoin(actor.tenantId, actor.userId, { email: audience.recipientEmail! }, invitationLinks).pipe(
        // Became a user in between: grant it as such next time; refuse clearly now.
        Effect.catchTag("EmailTaken", () => Effect.fail(new GrantInvalid({ detail: "email: that address just became a user; send the grant again" })))
      )
      : undefined
    const grant: StoredGrant = {
      grant_id: (yield* uuidv7) as GrantId,
      tenant_id: actor.tenantId,
      workspace_id: subject.workspaceId,
      subject_type: input.subject_type,
      subject_id: input.subject_id,
      principal_type: input.principal_type,
      principal_id: audience.principalId,
      actions: input.actions,
      watermark: (input.watermark ?? false) || held.watermark,
      expires_at: input.expires_at ?? null,
      revoked_at: null,
      // 192 random bits: a link's URL cannot be guessed.
      link_slug: input.principal_type === "link" ? Base64Url.encode(yield* randomBytes(24)) : null,
      password_hash: input.password === undefined ? null : yield* (yield* PasswordHasher).hash(input.password),
      paused: false,
      invitation_id: invitation?.invitation_id ?? null,
      recipient_email: audience.recipientEmail,
      label: input.label ?? null,
      last_opened_at: null,
      open_count: 0,
      created_by: actorOf(actor),
      created_at: now,
      updated_at: now
    }
    yield* commit(actor, grant, { audit: "grant.created", event: "sharing.grant.created", insert: true })
    return grant
  })

/**
 * A grant of the actor's tenant they may manage: an admin any, others the
 * grants they made (decision 0018). Another tenant's grant, and one the
 * actor did not make, is `NotFound`: holding `share` on its subject lets
 * one share it, not manage what others shared.
 */
export const get = (actor: Member, grantId: string): Effect.Effect<StoredGrant, NotFound | StoreError, GrantStore> =>
  Effect.gen(function*() {
    const grant = yield* (yield* GrantStore).find(actor.tenantId, grantId as GrantId)
    if (grant !== undefined && (isAdmin(actor) || grant.created_by.id === actor.userId)) return grant
    return yield* new NotFound({ resource: "grant", id: grantId })
  })

/** Which grants a list shows: the store's filter, with the state at the time of asking. */
export interface ListFilter extends Omit<GrantFilter, "state" | "createdById"> {
  readonly state?: State | undefined
}

/** A page of the tenant's grants, newest first: every one for an admin, the actor's own for anyone else. */
export const list = (
  actor: Member,
  filter: ListFilter,
  request: NewestFirstRequest
): Effect.Effect<Page<StoredGrant>, StoreError | CursorError | InvalidSort, GrantStore | CursorCodec> =>
  Effect.gen(function*() {
    const store = yield* GrantStore
    const now = new Date(yield* Clock.currentTimeMillis)
    const { state, ...rest } = filter
    const narrowed: GrantFilter = {
      ...rest,
      // A subject's id in either case names the same subject (UUIDs compare case-insensitively).
      ...(rest.subjectId === undefined ? {} : { subjectId: rest.subjectId.toLowerCase() }),
      ...(state === undefined ? {} : { state: { is: state, at: now } }),
      ...(isAdmin(actor) ? {} : { createdById: actor.userId })
    }
    return yield* paginateNewestFirst(request, (query) => store.list(actor.tenantId, narrowed, query), grantKey)
  })

/** An active grant the actor may manage, with its subject; a revoked or expired one changes no more. */
const manageable = (actor: Member, grantId: string) =>
  Effect.gen(function*() {
    const grant = yield* get(actor, grantId)
    const now = new Date(yield* Clock.currentTimeMillis)
    const state = stateAt(grant, now)
    if (state !== "active") return yield* new GrantNotActive({ state })
    const subject = yield* Subjects.locate(actor.tenantId, grant.subject_type, grant.subject_id)
    return { grant, subject, now }
  })

/**
 * Changes an active grant's actions, expiry, watermark, label or password
 * (a link's only). The actor must still hold what the grant will allow;
 * the audit entry (`grant.updated`) carries the grant as it becomes, its
 * label included.
 */
export const update = (
  actor: Member,
  grantId: string,
  input: GrantUpdate
): Effect.Effect<StoredGrant, NotFound | Forbidden | GrantInvalid | GrantNotActive | StoreError, Services | PasswordHasher> =>
  Effect.gen(function*() {
    const { grant, now, subject } = yield* manageable(actor, grantId)
    if (input.password !== undefined && grant.principal_type !== "link") {
      return yield* new GrantInvalid({ detail: "password: only a link has a password" })
    }
    yield* checkExpiry(input.expires_at, now)
    const actions = input.actions ?? grant.actions
    const held = yield* mayGrant(actor, subject, actions, now)
    const updated: StoredGrant = {
      ...grant,
      actions,
      watermark: (input.watermark ?? grant.watermark) || held.watermark,
      expires_at: input.expires_at === undefined ? grant.expires_at : input.expires_at,
      password_hash: input.password === undefined
        ? grant.password_hash
        : input.password === null
        ? null
        : yield* (yield* PasswordHasher).hash(input.password),
      label: input.label === undefined ? grant.label : input.label,
      updated_at: now
    }
    yield* commit(actor, updated, { audit: "grant.updated" })
    return updated
  })

/**
 * Pauses a link (it answers as revoked, and its URL stays the same) or
 * resumes it. Only links pause; a paused link stays paused until resumed.
 */
export const setPaused = (
  actor: Member,
  grantId: string,
  paused: boolean
): Effect.Effect<StoredGrant, NotFound | Forbidden | GrantInvalid | GrantNotActive | StoreError, Services> =>
  Effect.gen(function*() {
    const { grant, now, subject } = yield* manageable(actor, grantId)
    if (grant.principal_type !== "link") return yield* new GrantInvalid({ detail: "Only a link can be paused" })
    if (grant.paused === paused) return grant
    // Pausing only takes away; resuming hands the link out again, which needs what it gives.
    if (!paused) yield* mayGrant(actor, subject, grant.actions, now)
    const changed: StoredGrant = { ...grant, paused, updated_at: now }
    yield* commit(actor, changed, { audit: paused ? "grant.paused" : "grant.resumed" })
    return changed
  })

/**
 * Revokes an active grant from the next request on (decision 0014); the record
 * stays. An admin or its maker may revoke it. Only an active grant is revoked: an expired one stays expired
 * (its principal keeps hearing `share/expired`) and a revoked one stays as
 * it was; both are `GrantNotActive` (decision 0014).
 */
export const revoke = (
  actor: Member,
  grantId: string
): Effect.Effect<StoredGrant, NotFound | Forbidden | GrantNotActive | StoreError, Services> =>
  Effect.gen(function*() {
    const grant = yield* get(actor, grantId)
    const now = new Date(yield* Clock.currentTimeMillis)
    const state = stateAt(grant, now)
    if (state !== "active") return yield* new GrantNotActive({ state })
    const revoked: StoredGrant = { ...grant, revoked_at: now, updated_at: now }
    yield* commit(actor, revoked, { audit: "grant.revoked", event: "sharing.grant.revoked" })
    return revoked
  })

/** What an embedding app asks of a new embed token. */
export const EmbedTokenRequest = Schema.Struct({
  lifetime_seconds: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: ShareTokens.embedLifetimeSeconds })).annotate({
    description: `How long the token lives; at most (and by default) ${ShareTokens.embedLifetimeSeconds} seconds, and never past the grant's expiry`
  })),
  params: Schema.optionalKey(ShareTokens.LockedParams.annotate({
    description: "Locked filters: each dimension named is filtered to the one value given, and the viewer cannot change it"
  })),
  attributes: Schema.optionalKey(ShareTokens.ViewerAttributes.annotate({
    description: "The viewer's attributes, which row-level security policies for the role `embed` read (`region`…); `email` is also the watermark"
  })),
  origin: Schema.optionalKey(ShareTokens.EmbedOrigin.annotate({
    description: "The embedding page's origin (`https://app.example.com`): the only page that may frame the embed, and the one it asks for a fresh token " +
      "before this one expires and tells of its events (postMessage; docs/guides/embedding.md). Without it any page may frame the embed, which renews nothing"
  }))
})
/** What an embedding app asks of a new embed token. */
export type EmbedTokenRequest = typeof EmbedTokenRequest.Type

/**
 * A signed embed token for an active embed grant (decision 0014). Its
 * lifetime can only be shortened: at most `ShareTokens.embedLifetimeSeconds`
 * and never past the grant's expiry.
 */
export const embedToken = (
  actor: Member,
  grantId: string,
  request: EmbedTokenRequest
): Effect.Effect<
  { readonly token: string; readonly expires_at: Date },
  NotFound | Forbidden | GrantInvalid | GrantNotActive | StoreError,
  Services | ShareTokens.ShareTokens | LockedFilters.Services
> =>
  Effect.gen(function*() {
    const { grant, now, subject } = yield* manageable(actor, grantId)
    if (grant.principal_type !== "embed") return yield* new GrantInvalid({ detail: "Only an embed grant has embed tokens" })
    // A token hands the embed out again: its maker must still hold what it gives.
    yield* mayGrant(actor, subject, grant.actions, now)
    // A locked value the data does not have only shows an empty embed (decision 0014).
    const refused = yield* LockedFilters.check(actor, subject, request.params ?? {})
    if (refused !== undefined) return yield* new GrantInvalid({ detail: refused })
    return yield* signEmbed(grant, now.getTime(), request)
  })

/** Signs an embed token for `grant` from `now`. */
const signEmbed = (grant: StoredGrant, now: number, request: EmbedTokenRequest) =>
  Effect.gen(function*() {
    const untilExpiry = grant.expires_at === null ? Infinity : Math.floor((grant.expires_at.getTime() - now) / 1000)
    const lifetime = Math.max(1, Math.min(request.lifetime_seconds ?? ShareTokens.embedLifetimeSeconds, untilExpiry))
    const token = yield* (yield* ShareTokens.ShareTokens).signEmbed({
      grantId: grant.grant_id,
      tenantId: grant.tenant_id,
      resource: { type: grant.subject_type, id: grant.subject_id },
      params: request.params ?? {},
      attributes: request.attributes ?? {},
      origin: request.origin
    }, now, lifetime)
    return { token, expires_at: new Date(Math.floor(now / 1000) * 1000 + lifetime * 1000) }
  })

/** The first embed token of a new embed grant, with the defaults. */
export const firstEmbedToken = (grant: StoredGrant) => signEmbed(grant, grant.created_at.getTime(), {})
