/**
 * Teams of a tenant's directory (spec 2.6 rule 4): made by an admin, or
 * synced from the identity provider's groups over SCIM. A grant to a team
 * reaches whoever is a member when access is decided, never a copy.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Uuid } from "./Ids.ts"
import { Name, type TenantId } from "./Tenant.ts"

/** A team's identifier. */
export const TeamId = Uuid.pipe(Schema.brand("TeamId"))
/** A team's identifier. */
export type TeamId = typeof TeamId.Type

/** Where a team comes from: made here (`manual`) or an identity provider's group (`scim`, managed there only). */
export const TeamSource = Schema.Literals(["manual", "scim"])
/** Where a team comes from. */
export type TeamSource = typeof TeamSource.Type

/** A team as stored. */
export interface Team {
  readonly team_id: TeamId
  readonly tenant_id: TenantId
  readonly name: string
  readonly source: TeamSource
  /** The identity provider's id for the group; `null` for manual teams. */
  readonly external_id: string | null
  readonly created_at: Date
  readonly updated_at: Date
}

/** What an admin sends to create or rename a team. */
export const TeamInput = Schema.Struct({ name: Name })
/** What an admin sends to create or rename a team. */
export type TeamInput = typeof TeamInput.Type
