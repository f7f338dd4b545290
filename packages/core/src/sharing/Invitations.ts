/**
 * Use cases on invitations: invite (or invite again), resend, revoke,
 * list, and accept (which makes the user). The e-mail goes through the
 * `Mailer` port; a failure to send leaves the invitation in place for a
 * resend.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import type { EventPublisher } from "../webhooks/EventPublisher.ts"
import * as ApiToken from "../tenancy/ApiToken.ts"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import * as DirectoryUseCases from "../directory/DirectoryUseCases.ts"
import { DirectoryStore } from "../directory/DirectoryStore.ts"
import { NotFound, orNotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { type Invitation, type InvitationAccept, type InvitationCreate, type InvitationId, statusAt, validityMillis } from "./Invitation.ts"
import { invitationKey, InvitationStore } from "./InvitationStore.ts"
import { type MailError, Mailer } from "../platform/Mailer.ts"
import { type InvalidSort, type NewestFirstRequest, type Page, paginateNewestFirst } from "../platform/Pagination.ts"
import { GrantStore } from "./GrantStore.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { TenantStore } from "../tenancy/TenantStore.ts"
import * as TenantTokens from "../auth/TenantTokens.ts"
import { Transactor } from "../platform/Transactor.ts"
import type { User } from "../directory/User.ts"

/** The invitation cannot be accepted (or resent): it was used, revoked or has expired. */
export class InvitationClosed extends TaggedFailure("InvitationClosed")<{
  readonly status: "accepted" | "revoked" | "expired"
}> {
  readonly code = "directory/invitation-closed" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `The invitation is ${this.status}`
  }
}

/** No invitation has this token. */
export class InvitationUnknown extends TaggedFailure("InvitationUnknown")<{}> {
  readonly code = "directory/invitation-not-found" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return "No invitation has this token; ask for a new one"
  }
}

/** How invitation e-mails point to the page that accepts them. */
export interface Links {
  /** The URL the invited person opens, carrying the token. */
  readonly acceptUrl: (token: string) => string
}

const notFound = (id: string) => new NotFound({ resource: "invitation", id })

/** A letter to an invited address: the greeting, `body`, and the line for whoever did not expect it. */
const letter = (invitation: Invitation, subject: string, body: ReadonlyArray<string>) => ({
  to: [invitation.email],
  subject,
  text: [
    `Hello${invitation.name === null ? "" : ` ${invitation.name}`},`,
    "",
    ...body,
    "",
    "If you did not expect this, ignore this message."
  ].join("\n")
})

/** The invitation e-mail. */
const mail = (invitation: Invitation, token: string, links: Links) =>
  letter(invitation, "You are invited to Analytics", [
    "You have been invited to see what is shared with you in Analytics.",
    `Accept the invitation here (valid until ${invitation.expires_at.toISOString()}):`,
    "",
    links.acceptUrl(token)
  ])

/** A fresh token and its hash. */
const newToken = Effect.gen(function*() {
  const token = yield* ApiToken.generate
  return { token, tokenHash: yield* ApiToken.hash(token) }
})

/**
 * Invites an address that is no user of the tenant (409 `EmailTaken` when it
 * is). A pending invitation of the same address is renewed (new token, new
 * expiry) rather than duplicated. The e-mail is sent after the invitation is stored.
 */
export const invite = (
  tenantId: TenantId,
  invitedBy: string,
  input: InvitationCreate,
  links: Links
): Effect.Effect<Invitation, DirectoryUseCases.EmailTaken | StoreError | MailError, InvitationStore | DirectoryStore | Mailer | Recording> =>
  Effect.gen(function*() {
    // Stored and audited together; mailed after, outside the transaction.
    const { invitation, token } = yield* AuditLog.recorded(
      tenantId,
      storeInvitation(tenantId, invitedBy, input),
      ({ invitation, renewed }) =>
        invitationEntry(renewed ? "invitation.renewed" : "invitation.created", invitation, AuditLog.actorOf({ userId: invitedBy }))
    )
    yield* (yield* Mailer).send(mail(invitation, token, links))
    return invitation
  })

/** The notice to an address already invited: something more waits for them, behind the invitation they hold. */
const joinedMail = (invitation: Invitation) =>
  letter(invitation, "Something more is shared with you in Analytics", [
    "Something more has been shared with you in Analytics.",
    `Accept the invitation you were sent on ${invitation.created_at.toISOString().slice(0, 10)} to see it (valid until ${invitation.expires_at.toISOString()}).`
  ])

/**
 * The invitation a grant to an address waits for: the address's pending
 * invitation as it is (its token keeps working: a grant never renews what
 * an admin sent), with a notice mailed; a new one otherwise (`invite`).
 */
export const inviteOrJoin = (
  tenantId: TenantId,
  invitedBy: string,
  input: InvitationCreate,
  links: Links
): Effect.Effect<Invitation, DirectoryUseCases.EmailTaken | StoreError | MailError, InvitationStore | DirectoryStore | Mailer | Recording> =>
  Effect.gen(function*() {
    const pending = yield* (yield* InvitationStore).findPending(tenantId, input.email)
    if (pending === undefined || statusAt(pending, yield* Clock.currentTimeMillis) !== "pending") {
      return yield* invite(tenantId, invitedBy, input, links)
    }
    yield* (yield* Mailer).send(joinedMail(pending))
    return pending
  })

/** What recording a change of invitations writes besides the change. */
export type Recording = AuditLog.AuditStore | EventPublisher | Transactor

/** The audit entry of a change of an invitation (`invitation.created`, `.renewed`, `.resent`, `.revoked`, `.accepted`). */
const invitationEntry = (action: string, invitation: Invitation, by: AuditLog.Actor): AuditLog.Recorded => ({
  workspace_id: null,
  action,
  actor: by,
  target: { type: "invitation", id: invitation.invitation_id },
  detail: {
    invitation_id: invitation.invitation_id,
    email: invitation.email,
    name: invitation.name,
    expires_at: invitation.expires_at.toISOString(),
    user_id: invitation.user_id
  }
})

/** Stores a new invitation, or renews the pending one of the address; its token, this once. */
const storeInvitation = (
  tenantId: TenantId,
  invitedBy: string,
  input: InvitationCreate
): Effect.Effect<{ readonly invitation: Invitation; readonly token: string; readonly renewed: boolean }, DirectoryUseCases.EmailTaken | StoreError, InvitationStore | DirectoryStore> =>
  Effect.gen(function*() {
    if ((yield* (yield* DirectoryStore).findUserBy(tenantId, { email: input.email })) !== undefined) {
      return yield* new DirectoryUseCases.EmailTaken({ email: input.email })
    }
    const store = yield* InvitationStore
    const now = yield* Clock.currentTimeMillis
    const { token, tokenHash } = yield* newToken
    const pending = yield* store.findPending(tenantId, input.email)
    let invitation: Invitation
    if (pending !== undefined && statusAt(pending, now) === "pending") {
      invitation = { ...pending, name: input.name ?? pending.name, token_hash: tokenHash, expires_at: new Date(now + validityMillis), updated_at: new Date(now) }
      // Changed meanwhile (accepted, revoked, renewed by a concurrent invite): decide again on what it is now.
      if (!(yield* store.update(invitation, pending.updated_at))) return yield* storeInvitation(tenantId, invitedBy, input)
      return { invitation, token, renewed: true }
    } else {
      invitation = {
        invitation_id: (yield* uuidv7) as InvitationId,
        tenant_id: tenantId,
        email: input.email,
        name: input.name ?? null,
        status: "pending",
        token_hash: tokenHash,
        invited_by: invitedBy,
        expires_at: new Date(now + validityMillis),
        user_id: null,
        created_at: new Date(now),
        updated_at: new Date(now)
      }
      yield* store.insert(invitation)
    }
    return { invitation, token, renewed: false }
  })

/** An invitation of the tenant, or `NotFound`. */
export const get = (tenantId: TenantId, id: string): Effect.Effect<Invitation, NotFound | StoreError, InvitationStore> =>
  Effect.flatMap(InvitationStore, (store) => store.find(tenantId, id as InvitationId)).pipe(
    orNotFound("invitation", id)
  )

/** Sends a pending (or expired) invitation again with a new token and a new expiry; the old token stops working. */
export const resend = (
  tenantId: TenantId,
  id: string,
  links: Links,
  by: AuditLog.Actor
): Effect.Effect<Invitation, NotFound | InvitationClosed | StoreError | MailError, InvitationStore | Mailer | Recording> =>
  Effect.gen(function*() {
    const { renewed, token } = yield* AuditLog.recorded(tenantId, Effect.gen(function*() {
      const current = yield* get(tenantId, id)
      if (current.status !== "pending") return yield* new InvitationClosed({ status: current.status })
      const now = yield* Clock.currentTimeMillis
      const { token, tokenHash } = yield* newToken
      const renewed: Invitation = { ...current, token_hash: tokenHash, expires_at: new Date(now + validityMillis), updated_at: new Date(now) }
      if (!(yield* (yield* InvitationStore).update(renewed, current.updated_at))) return yield* notFound(id)
      return { renewed, token }
    }), ({ renewed }) => invitationEntry("invitation.resent", renewed, by))
    yield* (yield* Mailer).send(mail(renewed, token, links))
    return renewed
  })

/** Revokes a pending invitation: its token stops working. */
export const revoke = (
  tenantId: TenantId,
  id: string,
  by: AuditLog.Actor
): Effect.Effect<Invitation, NotFound | InvitationClosed | StoreError, InvitationStore | Recording> =>
  AuditLog.recorded(tenantId, Effect.gen(function*() {
    const current = yield* get(tenantId, id)
    if (current.status !== "pending") return yield* new InvitationClosed({ status: current.status })
    const revoked: Invitation = { ...current, status: "revoked", updated_at: new Date(yield* Clock.currentTimeMillis) }
    if (!(yield* (yield* InvitationStore).update(revoked, current.updated_at))) return yield* notFound(id)
    return revoked
  }), (revoked) => invitationEntry("invitation.revoked", revoked, by))

/** One page of the tenant's invitations, newest first. */
export const list = (
  tenantId: TenantId,
  request: NewestFirstRequest
): Effect.Effect<Page<Invitation>, StoreError | CursorError | InvalidSort, InvitationStore | CursorCodec> =>
  Effect.flatMap(InvitationStore, (store) =>
    paginateNewestFirst(request, (query) => store.list(tenantId, query), invitationKey))

/**
 * Accepts an invitation by its token: makes the user (active, a member)
 * with a personal API token (shown this once) and marks the invitation
 * accepted, in one transaction. A token is good once. The grants that
 * waited for the invitation (decision 0014) go to the new user with it.
 */
export const accept = (
  input: InvitationAccept
): Effect.Effect<
  { readonly user: User; readonly invitation: Invitation; readonly token: TenantTokens.Issued },
  InvitationUnknown | InvitationClosed | DirectoryUseCases.EmailTaken | StoreError,
  InvitationStore | DirectoryStore | TenantStore | GrantStore | Recording
> =>
  Effect.flatMap(Transactor, (transactor) =>
    acceptThen(input, (user) =>
      // A user made this instant is active: issuing cannot refuse.
      Effect.map(TenantTokens.issueForUser(user).pipe(Effect.catchTag("UserDeprovisioned", Effect.die)), (token) => ({ token })), transactor))

/**
 * Accepts an invitation as `accept` does, but issues no API token: the
 * console signs the new user in with a session instead (decision 0022).
 */
export const acceptWithoutToken = (
  input: InvitationAccept
): Effect.Effect<
  { readonly user: User; readonly invitation: Invitation },
  InvitationUnknown | InvitationClosed | DirectoryUseCases.EmailTaken | StoreError,
  InvitationStore | DirectoryStore | GrantStore | Recording
> => Effect.flatMap(Transactor, (transactor) => acceptThen(input, () => Effect.succeed({}), transactor))

/** Accepts an invitation and runs `then` for the new user in the same transaction. */
const acceptThen = <B extends object, R>(
  input: InvitationAccept,
  then: (user: User) => Effect.Effect<B, StoreError, R>,
  transactor: Transactor["Service"]
): Effect.Effect<
  { readonly user: User; readonly invitation: Invitation } & B,
  InvitationUnknown | InvitationClosed | DirectoryUseCases.EmailTaken | StoreError,
  InvitationStore | DirectoryStore | GrantStore | AuditLog.AuditStore | EventPublisher | Transactor | R
> =>
  Effect.gen(function*() {
    const store = yield* InvitationStore
    const invitation = yield* store.findByTokenHash(yield* ApiToken.hash(input.token))
    if (invitation === undefined) return yield* new InvitationUnknown()
    const now = yield* Clock.currentTimeMillis
    const status = statusAt(invitation, now)
    if (status !== "pending") return yield* new InvitationClosed({ status })
    return yield* transactor.transaction(Effect.gen(function*() {
      // The user is made by whoever invited them; the acceptance is the new user's.
      const user = yield* DirectoryUseCases.createUser(invitation.tenant_id, {
        email: invitation.email,
        name: input.name ?? invitation.name ?? invitation.email.split("@")[0]
      }, AuditLog.actorOf({ userId: invitation.invited_by }))
      const accepted: Invitation = { ...invitation, status: "accepted", user_id: user.user_id, updated_at: new Date(now) }
      // Accepted twice at once: the second finds it changed.
      if (!(yield* store.update(accepted, invitation.updated_at))) return yield* new InvitationClosed({ status: "accepted" })
      yield* AuditLog.record(invitation.tenant_id, invitationEntry("invitation.accepted", accepted, AuditLog.actorOf({ userId: user.user_id })))
      yield* (yield* GrantStore).activateInvitation(invitation.tenant_id, invitation.invitation_id, user.user_id, new Date(now))
      return { user, invitation: accepted, ...(yield* then(user)) }
    }))
  })
