/**
 * Invitations (decision 0014): sharing with an e-mail address that is not
 * a user yet sends an invitation; accepting it makes the user. The token
 * travels only in the e-mail; the store keeps its SHA-256 hash.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Uuid } from "../platform/Ids.ts"
import { Name, type TenantId } from "../tenancy/Tenant.ts"
import { Email, type UserId } from "../directory/User.ts"

/** An invitation's identifier. */
export const InvitationId = Uuid.pipe(Schema.brand("InvitationId"))
/** An invitation's identifier. */
export type InvitationId = typeof InvitationId.Type

/** Where an invitation stands; `pending` past its expiry reads as `expired`. */
export const InvitationStatus = Schema.Literals(["pending", "accepted", "revoked", "expired"])
/** Where an invitation stands. */
export type InvitationStatus = typeof InvitationStatus.Type

/** How long an invitation can be accepted (a resend starts it again). */
export const validityMillis = 7 * 24 * 60 * 60 * 1000

/** An invitation as stored. */
export interface Invitation {
  readonly invitation_id: InvitationId
  readonly tenant_id: TenantId
  readonly email: string
  readonly name: string | null
  /** `pending`, `accepted` or `revoked` as stored; see `statusAt` for expiry. */
  readonly status: Exclude<InvitationStatus, "expired">
  readonly token_hash: string
  /** Who invited (the inviting principal's user id). */
  readonly invited_by: string
  readonly expires_at: Date
  /** The user made by accepting it. */
  readonly user_id: UserId | null
  readonly created_at: Date
  readonly updated_at: Date
}

/** The status an invitation has at `now`. */
export const statusAt = (invitation: Invitation, now: number): InvitationStatus =>
  invitation.status === "pending" && invitation.expires_at.getTime() <= now ? "expired" : invitation.status

/** What an admin sends to invite someone. */
export const InvitationCreate = Schema.Struct({
  email: Email,
  name: Schema.optionalKey(Name)
})
/** What an admin sends to invite someone. */
export type InvitationCreate = typeof InvitationCreate.Type

/** What the invited person sends to accept. */
export const InvitationAccept = Schema.Struct({
  token: Schema.String.check(Schema.isMinLength(1), Schema.isMaxCodePoints(512)),
  name: Schema.optionalKey(Name)
})
/** What the invited person sends to accept. */
export type InvitationAccept = typeof InvitationAccept.Type
