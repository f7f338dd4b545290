/**
 * Port: a tenant's directory — users, groups (teams and executive roles)
 * and who is in which group. Every method is scoped by tenant: another
 * tenant's user or group is indistinguishable from a missing one. An e-mail
 * address is one user's per tenant.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { Group, GroupId, GroupKind, GroupSource, Memberships } from "./Group.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { User, UserId } from "./User.ts"

/** The keyset position of a user (lists sort by `created_at`). */
export const userKey = (user: User): Keyset => ({ value: user.created_at.getTime(), id: user.user_id })
/** The keyset position of a group (lists sort by `created_at`). */
export const groupKey = (group: Group): Keyset => ({ value: group.created_at.getTime(), id: group.group_id })

/** How a user is looked up besides its id. */
export type UserLookup =
  | { readonly email: string }
  | { readonly userName: string }
  | { readonly externalId: string }

/** How a group is looked up besides its id. */
export type GroupLookup = { readonly name: string } | { readonly externalId: string }

/** Whether a user matches a lookup (the reference every store follows). */
export const userMatches = (user: User, by: UserLookup): boolean =>
  "email" in by ? user.email === by.email
  : "userName" in by ? user.user_name !== null && user.user_name.toLowerCase() === by.userName.toLowerCase()
  : user.external_id === by.externalId

/**
 * Whether the tenant's SCIM token manages a user (decision 0012): one the
 * identity provider provisioned (made over SCIM, so with its `user_name`)
 * who is no tenant admin. Users made by hand or invited, and every admin,
 * are not the identity provider's: SCIM neither sees nor changes them.
 * The reference `listScimUsers` and `countScimUsers` follow.
 */
export const scimManages = (user: User): boolean => user.user_name !== null && !user.roles.includes("admin")

/** Whether a group matches a lookup. */
export const groupMatches = (group: Group, by: GroupLookup): boolean =>
  "name" in by ? group.name === by.name : group.external_id === by.externalId

/**
 * Whether `text` (already lower-cased) is in any of `fields`, compared
 * lower-case: `prefix` when one starts with it, `contains` when one holds
 * it elsewhere, `undefined` otherwise. What `searchUsers` and
 * `searchGroups` match and rank by, written once for the adapters that
 * search in memory.
 */
export const matchOf = (text: string, fields: ReadonlyArray<string>): "prefix" | "contains" | undefined => {
  const lower = fields.map((f) => f.toLowerCase())
  if (lower.some((f) => f.startsWith(text))) return "prefix"
  return lower.some((f) => f.includes(text)) ? "contains" : undefined
}

/** What writing a user did: written, or refused because another user of the tenant has the e-mail. */
export type UserWrite = "written" | "missing" | "email-taken"

/** Users, groups and memberships, scoped by tenant. */
export class DirectoryStore extends Context.Service<DirectoryStore, {
  /** Stores a new user; `email-taken` when the tenant has a user with its e-mail. */
  readonly insertUser: (user: User) => Effect.Effect<Exclude<UserWrite, "missing">, StoreError>
  readonly findUser: (tenantId: TenantId, userId: UserId) => Effect.Effect<User | undefined, StoreError>
  /** The tenant's user with this e-mail, identity provider user name (compared case-insensitively) or external id. */
  readonly findUserBy: (tenantId: TenantId, by: UserLookup) => Effect.Effect<User | undefined, StoreError>
  /** The active users with this (lower-cased) e-mail in every tenant, oldest first: who a sign-in link goes to. */
  readonly findActiveUsersByEmail: (email: string) => Effect.Effect<ReadonlyArray<User>, StoreError>
  /** One page, in `Pagination.applyInMemory` order. */
  readonly listUsers: (tenantId: TenantId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<User>, StoreError>
  /**
   * At most `take` active users of the tenant whose name or e-mail holds
   * `text` (lower-case; none when empty), compared case-insensitively:
   * those with one starting with it first, then by lower-cased name (code
   * point order) and id. A deprovisioned user is never found.
   */
  readonly searchUsers: (tenantId: TenantId, text: string, take: number) => Effect.Effect<ReadonlyArray<User>, StoreError>
  /** At most `take` groups of the tenant (either kind) whose name holds `text`, ranked as `searchUsers` ranks users. */
  readonly searchGroups: (tenantId: TenantId, text: string, take: number) => Effect.Effect<ReadonlyArray<Group>, StoreError>
  /** How many users the tenant has. */
  readonly countUsers: (tenantId: TenantId) => Effect.Effect<number, StoreError>
  /** One page of the users SCIM manages (`scimManages`), in `Pagination.applyInMemory` order. */
  readonly listScimUsers: (tenantId: TenantId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<User>, StoreError>
  /** How many users of the tenant SCIM manages (`scimManages`). */
  readonly countScimUsers: (tenantId: TenantId) => Effect.Effect<number, StoreError>
  /** Replaces a user's fields. */
  readonly updateUser: (user: User) => Effect.Effect<UserWrite, StoreError>
  readonly insertGroup: (group: Group) => Effect.Effect<void, StoreError>
  /** A group of this kind in the tenant. */
  readonly findGroup: (tenantId: TenantId, kind: GroupKind, groupId: GroupId) => Effect.Effect<Group | undefined, StoreError>
  /** One page of the tenant's groups of a kind, in `Pagination.applyInMemory` order. */
  readonly listGroups: (
    tenantId: TenantId,
    kind: GroupKind,
    query: PageQuery<"created_at">
  ) => Effect.Effect<ReadonlyArray<Group>, StoreError>
  /** How many groups of the kind (and source) the tenant has. */
  readonly countGroups: (tenantId: TenantId, kind: GroupKind, source: GroupSource) => Effect.Effect<number, StoreError>
  /**
   * The tenant's group of this kind and source with this name or external id
   * (the first made, if several): SCIM looks up only its own groups, whatever
   * teams an admin named alike.
   */
  readonly findGroupBy: (tenantId: TenantId, kind: GroupKind, source: GroupSource, by: GroupLookup) => Effect.Effect<Group | undefined, StoreError>
  /** Replaces a group's name and external id; `false` when there was none in this tenant. */
  readonly updateGroup: (group: Group) => Effect.Effect<boolean, StoreError>
  /** Deletes a group and its memberships; `false` when there was none in this tenant. */
  readonly removeGroup: (tenantId: TenantId, groupId: GroupId) => Effect.Effect<boolean, StoreError>
  /** Adds a user of the tenant to a group of the tenant; `false` when either is missing or it is a member already. */
  readonly addMember: (tenantId: TenantId, groupId: GroupId, userId: UserId) => Effect.Effect<boolean, StoreError>
  /** `false` when it was not a member. */
  readonly removeMember: (tenantId: TenantId, groupId: GroupId, userId: UserId) => Effect.Effect<boolean, StoreError>
  /** One page of a group's members, in `Pagination.applyInMemory` order of the users. */
  readonly listMembers: (
    tenantId: TenantId,
    groupId: GroupId,
    query: PageQuery<"created_at">
  ) => Effect.Effect<ReadonlyArray<User>, StoreError>
  /** The groups a user is in now, by kind: what access evaluation reads on each request. */
  readonly membershipsOf: (tenantId: TenantId, userId: UserId) => Effect.Effect<Memberships, StoreError>
}>()("@analytics/core/DirectoryStore") {}
