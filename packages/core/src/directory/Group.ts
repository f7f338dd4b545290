/**
 * Groups of a tenant's directory: named sets of users that grants are made
 * to (decision 0014). Two kinds, one shape:
 *
 * - **teams**, made by an admin or synced from the identity provider's
 *   groups over SCIM (those change only there);
 * - **executive roles** (CFO, VP Sales), assigned to users by an admin.
 *
 * A grant to a group reaches whoever is in it when access is decided,
 * never a copy made at grant time.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Uuid } from "../platform/Ids.ts"
import { Name, type TenantId } from "../tenancy/Tenant.ts"

/** A group's identifier (a team's or an executive role's). */
export const GroupId = Uuid.pipe(Schema.brand("GroupId"))
/** A group's identifier. */
export type GroupId = typeof GroupId.Type

/** The kinds of group. */
export type GroupKind = "team" | "executive_role"

/** Where a group comes from: made here (`manual`) or an identity provider's group (`scim`, managed there only). */
export const GroupSource = Schema.Literals(["manual", "scim"])
/** Where a group comes from. */
export type GroupSource = typeof GroupSource.Type

/** A group as stored. */
export interface Group {
  readonly group_id: GroupId
  readonly tenant_id: TenantId
  readonly kind: GroupKind
  readonly name: string
  readonly source: GroupSource
  /** The identity provider's id for the group; `null` for groups made here. */
  readonly external_id: string | null
  readonly created_at: Date
  readonly updated_at: Date
}

/** What an admin sends to create or rename a group. */
export const GroupInput = Schema.Struct({ name: Name })
/** What an admin sends to create or rename a group. */
export type GroupInput = typeof GroupInput.Type

/** The groups a user is in, by kind: what access evaluation reads. */
export interface Memberships {
  readonly teams: ReadonlyArray<GroupId>
  readonly roles: ReadonlyArray<GroupId>
}
