/**
 * Users of a tenant's directory (decision 0012): the people grants are made to,
 * created by a tenant admin, invited by e-mail or provisioned over SCIM.
 *
 * @since 0.1.0
 */
import { Schema, SchemaTransformation } from "effect"
import { Uuid } from "../platform/Ids.ts"
import { Name, type TenantId } from "../tenancy/Tenant.ts"

/** A user's identifier. */
export const UserId = Uuid.pipe(Schema.brand("UserId"))
/** A user's identifier. */
export type UserId = typeof UserId.Type

/**
 * An e-mail address as users are told apart: trimmed and lower-cased
 * (addresses are compared case-insensitively in practice), at most 320
 * characters, one `@` with something on each side and a dot in the domain.
 */
export const Email = Schema.String.pipe(
  Schema.decodeTo(
    Schema.String.check(
      Schema.isMaxCodePoints(320),
      Schema.isPattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: "Expected an e-mail address" })
    ),
    SchemaTransformation.transform({
      decode: (input: string) => input.trim().toLowerCase(),
      encode: (email: string) => email
    })
  )
).annotate({ description: "An e-mail address; compared case-insensitively (stored lower-cased)" })

/** `active`, or `deprovisioned` (by an admin or the identity provider): a deprovisioned user has no access. */
export const UserStatus = Schema.Literals(["active", "deprovisioned"])
/** A user's status. */
export type UserStatus = typeof UserStatus.Type

/** What a user may do in the service's API: `admin` manages the tenant (directory, webhooks, grants); `member` uses it. */
export const ServiceRole = Schema.Literals(["admin", "member"])
/** A service role. */
export type ServiceRole = typeof ServiceRole.Type

/** A user as stored. */
export interface User {
  readonly user_id: UserId
  readonly tenant_id: TenantId
  readonly email: string
  readonly name: string
  readonly status: UserStatus
  readonly roles: ReadonlyArray<ServiceRole>
  /** The identity provider's id for the user (SCIM `externalId`); `null` for users made here. */
  readonly external_id: string | null
  /** The identity provider's user name (SCIM `userName`, not always the e-mail); `null` for users made here. */
  readonly user_name: string | null
  readonly created_at: Date
  readonly updated_at: Date
}

/** Service roles: at least one, no repeats. */
const Roles = Schema.Array(ServiceRole).check(
  Schema.isMinLength(1),
  Schema.makeFilter((roles) => new Set(roles).size === roles.length || "Each role is listed once")
)

/** What an admin sends to create a user. */
export const UserCreate = Schema.Struct({
  email: Email,
  name: Name,
  roles: Schema.optionalKey(Roles.annotate({ description: "Service roles; [\"member\"] when omitted" }))
})
/** What an admin sends to create a user. */
export type UserCreate = typeof UserCreate.Type

/** What an admin may change. */
export const UserUpdate = Schema.Struct({
  name: Schema.optionalKey(Name),
  roles: Schema.optionalKey(Roles),
  status: Schema.optionalKey(UserStatus)
})
/** What an admin may change. */
export type UserUpdate = typeof UserUpdate.Type
