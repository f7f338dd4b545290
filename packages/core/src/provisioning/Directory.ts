/**
 * Use cases on a tenant's directory: users, groups (teams and executive
 * roles) and memberships, for tenant admins (the HTTP adapter checks the
 * role; these check the rest).
 *
 * @since 0.1.0
 */
import { Clock, Data, Effect } from "effect"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import * as Deprovisioning from "./Deprovisioning.ts"
import { DirectoryStore, groupKey, userKey } from "../directory/DirectoryStore.ts"
import { NotFound, orNotFound, type StoreError } from "../platform/Errors.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { type InvalidSort, type NewestFirstRequest, type Page, paginateNewestFirst } from "../platform/Pagination.ts"
import type { Group, GroupId, GroupInput, GroupKind } from "../directory/Group.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { Transactor } from "../platform/Transactor.ts"
import type { User, UserCreate, UserId, UserUpdate } from "../directory/User.ts"

/** Another user of the tenant has this e-mail address. */
export class EmailTaken extends Data.TaggedError("EmailTaken")<{
  readonly email: string
}> {}

/** The group is an identity provider's: it changes there (over SCIM), not here. */
export class ManagedByIdentityProvider extends Data.TaggedError("ManagedByIdentityProvider")<{
  readonly groupId: GroupId
}> {}

const userNotFound = (userId: string) => new NotFound({ resource: "user", id: userId })

/** A user of the tenant, or `NotFound`. */
export const getUser = (tenantId: TenantId, userId: string): Effect.Effect<User, NotFound | StoreError, DirectoryStore> =>
  Effect.flatMap(DirectoryStore, (store) => store.findUser(tenantId, userId as UserId)).pipe(
    orNotFound("user", userId)
  )

/** Creates an active user (a member unless roles are given). */
export const createUser = (
  tenantId: TenantId,
  input: UserCreate & { readonly externalId?: string | null | undefined; readonly userName?: string | null | undefined }
): Effect.Effect<User, EmailTaken | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const now = new Date(yield* Clock.currentTimeMillis)
    const user: User = {
      user_id: (yield* uuidv7) as UserId,
      tenant_id: tenantId,
      email: input.email,
      name: input.name,
      status: "active",
      roles: input.roles ?? ["member"],
      external_id: input.externalId ?? null,
      user_name: input.userName ?? null,
      created_at: now,
      updated_at: now
    }
    const written = yield* (yield* DirectoryStore).insertUser(user)
    if (written === "email-taken") return yield* new EmailTaken({ email: input.email })
    return user
  })

/** One page of the tenant's users, newest first. */
export const listUsers = (
  tenantId: TenantId,
  request: NewestFirstRequest
): Effect.Effect<Page<User>, StoreError | CursorError | InvalidSort, DirectoryStore | CursorCodec> =>
  Effect.flatMap(DirectoryStore, (store) => paginateNewestFirst(request, (query) => store.listUsers(tenantId, query), userKey))

/**
 * Changes a user's name, service roles or status. Deprovisioning removes all
 * access from the next request and, in the same transaction, stops what
 * acted for them (`Deprovisioning.stopActingFor`).
 */
export const updateUser = (
  tenantId: TenantId,
  userId: string,
  change: UserUpdate
): Effect.Effect<User, NotFound | StoreError, DirectoryStore | Transactor | Deprovisioning.Services> =>
  Effect.flatMap(Transactor, (transactor) =>
    transactor.transaction(Effect.gen(function*() {
      const current = yield* getUser(tenantId, userId)
      const updated: User = {
        ...current,
        name: change.name ?? current.name,
        roles: change.roles ?? current.roles,
        status: change.status ?? current.status,
        updated_at: new Date(yield* Clock.currentTimeMillis)
      }
      const written = yield* (yield* DirectoryStore).updateUser(updated)
      // The e-mail does not change here, so only a concurrent delete can make it missing.
      if (written !== "written") return yield* userNotFound(userId)
      if (current.status === "active" && updated.status !== "active") yield* Deprovisioning.stopActingFor(tenantId, current.user_id)
      return updated
    })))

/** How a group of each kind is named to clients (in errors). */
const resourceOf = { team: "team", executive_role: "executive role" } as const

const groupNotFound = (kind: GroupKind, groupId: string) => new NotFound({ resource: resourceOf[kind], id: groupId })

/** A group of the kind in the tenant, or `NotFound`. */
export const getGroup = (
  tenantId: TenantId,
  kind: GroupKind,
  groupId: string
): Effect.Effect<Group, NotFound | StoreError, DirectoryStore> =>
  Effect.flatMap(DirectoryStore, (store) => store.findGroup(tenantId, kind, groupId as GroupId)).pipe(
    orNotFound(resourceOf[kind], groupId)
  )

/** A group an admin may change: made here, not synced from the identity provider. */
const manualGroup = (tenantId: TenantId, kind: GroupKind, groupId: string) =>
  Effect.flatMap(getGroup(tenantId, kind, groupId), (group) =>
    group.source === "scim" ? Effect.fail(new ManagedByIdentityProvider({ groupId: group.group_id })) : Effect.succeed(group))

/** Creates a group made here. */
export const createGroup = (
  tenantId: TenantId,
  kind: GroupKind,
  input: GroupInput
): Effect.Effect<Group, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const now = new Date(yield* Clock.currentTimeMillis)
    const group: Group = {
      group_id: (yield* uuidv7) as GroupId,
      tenant_id: tenantId,
      kind,
      name: input.name,
      source: "manual",
      external_id: null,
      created_at: now,
      updated_at: now
    }
    yield* (yield* DirectoryStore).insertGroup(group)
    return group
  })

/** One page of the tenant's groups of a kind, newest first. */
export const listGroups = (
  tenantId: TenantId,
  kind: GroupKind,
  request: NewestFirstRequest
): Effect.Effect<Page<Group>, StoreError | CursorError | InvalidSort, DirectoryStore | CursorCodec> =>
  Effect.flatMap(DirectoryStore, (store) => paginateNewestFirst(request, (query) => store.listGroups(tenantId, kind, query), groupKey))

/** Renames a group made here. */
export const renameGroup = (
  tenantId: TenantId,
  kind: GroupKind,
  groupId: string,
  input: GroupInput
): Effect.Effect<Group, NotFound | ManagedByIdentityProvider | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const current = yield* manualGroup(tenantId, kind, groupId)
    const updated: Group = { ...current, name: input.name, updated_at: new Date(yield* Clock.currentTimeMillis) }
    if (!(yield* (yield* DirectoryStore).updateGroup(updated))) return yield* groupNotFound(kind, groupId)
    return updated
  })

/** Deletes a group made here, and its memberships (grants to it reach no one from then on). */
export const deleteGroup = (
  tenantId: TenantId,
  kind: GroupKind,
  groupId: string
): Effect.Effect<void, NotFound | ManagedByIdentityProvider | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const group = yield* manualGroup(tenantId, kind, groupId)
    if (!(yield* (yield* DirectoryStore).removeGroup(tenantId, group.group_id))) return yield* groupNotFound(kind, groupId)
  })

/** Puts a user in a group made here (again changes nothing). */
export const addMember = (
  tenantId: TenantId,
  kind: GroupKind,
  groupId: string,
  userId: string
): Effect.Effect<User, NotFound | ManagedByIdentityProvider | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const group = yield* manualGroup(tenantId, kind, groupId)
    const user = yield* getUser(tenantId, userId)
    yield* (yield* DirectoryStore).addMember(tenantId, group.group_id, user.user_id)
    return user
  })

/** Takes a user out of a group made here; `NotFound` when they were not in it. */
export const removeMember = (
  tenantId: TenantId,
  kind: GroupKind,
  groupId: string,
  userId: string
): Effect.Effect<void, NotFound | ManagedByIdentityProvider | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const group = yield* manualGroup(tenantId, kind, groupId)
    const removed = yield* (yield* DirectoryStore).removeMember(tenantId, group.group_id, userId as UserId)
    if (!removed) return yield* new NotFound({ resource: `${resourceOf[kind]} member`, id: userId })
  })

/** One page of a group's members, newest users first. */
export const listMembers = (
  tenantId: TenantId,
  kind: GroupKind,
  groupId: string,
  request: NewestFirstRequest
): Effect.Effect<Page<User>, NotFound | StoreError | CursorError | InvalidSort, DirectoryStore | CursorCodec> =>
  Effect.gen(function*() {
    const group = yield* getGroup(tenantId, kind, groupId)
    const store = yield* DirectoryStore
    return yield* paginateNewestFirst(request, (query) => store.listMembers(tenantId, group.group_id, query), userKey)
  })
