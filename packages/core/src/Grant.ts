/**
 * Sharing grants (spec 2.6), as access evaluation reads them: what is
 * shared, to which audience, for which actions, until when. Creating and
 * listing grants is issue 7's; deciding access from them is `Access`.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import type { TenantId } from "./Tenant.ts"

/** What a grant allows (spec 2.6): open, export, comment, change the definition, re-share. */
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
