/**
 * Sharing grants (decision 0014), as access evaluation reads them: what is
 * shared, to which audience, for which actions, until when. Creating and
 * managing them is `Grants`; deciding access from them is `Access`.
 *
 * @since 0.1.0
 */
import { Schema, SchemaTransformation } from "effect"
import type { Actor } from "../audit/AuditLog.ts"
import { Uuid } from "../platform/Ids.ts"
import type { TenantId } from "../tenancy/Tenant.ts"

/** What a grant allows (decision 0014): open, export, comment, change the definition, re-share. */
export const Action = Schema.Literals(["view", "download", "comment", "edit", "share"])
/** An action. */
export type Action = typeof Action.Type

/** The kinds of thing that can be shared. */
export const SubjectType = Schema.Literals(["report", "dashboard", "dataset", "workspace"])
/** A kind of thing shared. */
export type SubjectType = typeof SubjectType.Type

/** The audiences of a grant. */
export const PrincipalType = Schema.Literals(["user", "team", "executive_role", "link", "embed"])
/** An audience. */
export type PrincipalType = typeof PrincipalType.Type

/** A grant as access evaluation needs it. */
export interface Grant {
  readonly grant_id: string
  readonly tenant_id: TenantId
  readonly subject_type: SubjectType
  readonly subject_id: string
  readonly principal_type: PrincipalType
  /** The user, team or executive role; `null` for links and embeds (the grant is the audience). */
  readonly principal_id: string | null
  readonly actions: ReadonlyArray<Action>
  readonly watermark: boolean
  readonly expires_at: Date | null
  readonly revoked_at: Date | null
}

/** The most code points a grant's label holds, once trimmed. */
export const maxLabelLength = 100

/**
 * A grant's label (decision 0014, "Labels and opens"): a name for people,
 * chiefly of links and embeds ("Newsletter March", "Customer portal").
 * Surrounding white space is removed, then 1 to 100 code points must
 * remain, none a control character.
 */
export const Label = Schema.String.annotate({
  description: `A name for people ("Newsletter March"): 1 to ${maxLabelLength} characters once surrounding white space is removed ` +
    "(it is stored trimmed), no control characters"
}).pipe(Schema.decodeTo(
  Schema.Trimmed.check(
    Schema.isMinLength(1, { message: "A label needs at least one character besides spaces" }),
    Schema.isMaxCodePoints(maxLabelLength, { message: `A label holds at most ${maxLabelLength} characters` }),
    Schema.isPattern(/^[^\p{Cc}]*$/u, { message: "A label holds no control characters (tabs, line breaks)" })
  ),
  SchemaTransformation.trim()
))

/** A grant's identifier. */
export const GrantId = Uuid.pipe(Schema.brand("GrantId"))
/** A grant's identifier. */
export type GrantId = typeof GrantId.Type

/** A grant as stored: what access evaluation reads, and what managing it needs. */
export interface StoredGrant extends Grant {
  readonly grant_id: GrantId
  /** The workspace the subject belongs to (a workspace grant's own), for its list of links. */
  readonly workspace_id: string
  /** A link's URL token (it is the link's identity, shown in `link_url`); `null` for other audiences. */
  readonly link_slug: string | null
  /** A link's password as an Argon2id hash; never the password. */
  readonly password_hash: string | null
  /** A paused link answers as if revoked until resumed. */
  readonly paused: boolean
  /** A grant to an e-mail that was no user waits for this invitation. */
  readonly invitation_id: string | null
  /**
   * Whom the grant was sent to: the invited address of a user grant that
   * waits for an invitation, or a link's recipient (tiled as its watermark).
   */
  readonly recipient_email: string | null
  /** A name for people (`Label`), or `null`. */
  readonly label: string | null
  /**
   * When a link's page or an embed's page was last opened (decision 0014,
   * "Labels and opens"); `null` before the first open, and always for other audiences.
   */
  readonly last_opened_at: Date | null
  /** How many times a link's or an embed's page was opened; `0` for other audiences. */
  readonly open_count: number
  readonly created_by: Actor
  readonly created_at: Date
  readonly updated_at: Date
}

/** The states of a grant (decision 0014). */
export const State = Schema.Literals(["active", "expired", "revoked"])
/** A grant's state. */
export type State = typeof State.Type

/** A grant's state at `now` (decision 0014): revoked, expired (kept for audit), or active. */
export const stateAt = (grant: Pick<Grant, "revoked_at" | "expires_at">, now: Date): State =>
  grant.revoked_at !== null ? "revoked" : grant.expires_at !== null && grant.expires_at.getTime() <= now.getTime() ? "expired" : "active"
