/**
 * Use cases on a tenant's directory: users, groups (teams and executive
 * roles) and memberships, for tenant admins (the HTTP adapter checks the
 * role; these check the rest). Every change is audited in its own
 * transaction, with who made it (`by`) and what it changed: `user.created`,
 * `team.*` / `executive_role.*` (`created`, `renamed`, `deleted`,
 * `member_added`, `member_removed`). A change of a user (`user.updated`,
 * `user.deprovisioned`, `user.reactivated`) is provisioning's `UserUpdates`:
 * a deactivation stops what acts for the user, in domains above this one.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import * as AuditLog from "../audit/AuditLog.ts"
import type { EventPublisher } from "../webhooks/EventPublisher.ts"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import { DirectoryStore, groupKey, userKey } from "./DirectoryStore.ts"
import { NotFound, orNotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { type InvalidSort, type NewestFirstRequest, type Page, paginateNewestFirst } from "../platform/Pagination.ts"
import type { Group, GroupId, GroupInput, GroupKind } from "./Group.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { Transactor } from "../platform/Transactor.ts"
import type { User, UserCreate, UserId } from "./User.ts"

/** Another user of the tenant has this e-mail address. */
export class EmailTaken extends TaggedFailure("EmailTaken")<{
  readonly email: string
}> {
  readonly code = "directory/email-taken" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `A user of this tenant already has ${this.email}`
  }
}

/** The group is an identity provider's: it changes there (over SCIM), not here. */
export class ManagedByIdentityProvider extends TaggedFailure("ManagedByIdentityProvider")<{
  readonly groupId: GroupId
}> {
  readonly code = "directory/managed-by-identity-provider" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `Group ${this.groupId} is synced from the identity provider over SCIM; change it there`
  }
}

/** What recording a change writes besides the change. */
export type Recording = AuditLog.AuditStore | EventPublisher | Transactor

/** A user as its audit entries show it. */
const userDetail = (user: User) => ({ user_id: user.user_id, email: user.email, name: user.name, roles: user.roles, status: user.status })

/** The audit entry of a change to a user: the user as it is now, and what else the change says. */
export const userEntry = (action: string, user: User, by: AuditLog.Actor, extra: Record<string, unknown> = {}): AuditLog.Recorded => ({
  workspace_id: null,
  action,
  actor: by,
  target: { type: "user", id: user.user_id },
  detail: { ...userDetail(user), ...extra }
})

/** How a group of each kind is named in the audit log (`team.created`, `executive_role.renamed`). */
const auditType = { team: "team", executive_role: "executive_role" } as const

/** The entry of a change to a group (or its members). */
const groupEntry = (action: string, group: Group, by: AuditLog.Actor, detail: Record<string, unknown> = {}): AuditLog.Recorded => ({
  workspace_id: null,
  action: `${auditType[group.kind]}.${action}`,
  actor: by,
  target: { type: auditType[group.kind], id: group.group_id },
  detail: { group_id: group.group_id, name: group.name, ...detail }
})

/** A user of the tenant, or `NotFound`. */
export const getUser = (tenantId: TenantId, userId: string): Effect.Effect<User, NotFound | StoreError, DirectoryStore> =>
  Effect.flatMap(DirectoryStore, (store) => store.findUser(tenantId, userId as UserId)).pipe(
    orNotFound("user", userId)
  )

/** Creates an active user (a member unless roles are given). */
export const createUser = (
  tenantId: TenantId,
  input: UserCreate & { readonly externalId?: string | null | undefined; readonly userName?: string | null | undefined },
  by: AuditLog.Actor
): Effect.Effect<User, EmailTaken | StoreError, DirectoryStore | Recording> =>
  AuditLog.recorded(tenantId, insertUser(tenantId, input), (user) => userEntry("user.created", user, by))

/** Writes a new active user. */
const insertUser = (
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
  input: GroupInput,
  by: AuditLog.Actor
): Effect.Effect<Group, StoreError, DirectoryStore | Recording> =>
  AuditLog.recorded(tenantId, Effect.gen(function*() {
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
  }), (group) => groupEntry("created", group, by))

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
  input: GroupInput,
  by: AuditLog.Actor
): Effect.Effect<Group, NotFound | ManagedByIdentityProvider | StoreError, DirectoryStore | Recording> =>
  AuditLog.recorded(tenantId, Effect.gen(function*() {
    const current = yield* manualGroup(tenantId, kind, groupId)
    const updated: Group = { ...current, name: input.name, updated_at: new Date(yield* Clock.currentTimeMillis) }
    if (!(yield* (yield* DirectoryStore).updateGroup(updated))) return yield* groupNotFound(kind, groupId)
    return { current, updated }
  }), ({ current, updated }) => groupEntry("renamed", updated, by, { previous_name: current.name })).pipe(Effect.map(({ updated }) => updated))

/** Deletes a group made here, and its memberships (grants to it reach no one from then on). */
export const deleteGroup = (
  tenantId: TenantId,
  kind: GroupKind,
  groupId: string,
  by: AuditLog.Actor
): Effect.Effect<void, NotFound | ManagedByIdentityProvider | StoreError, DirectoryStore | Recording> =>
  Effect.asVoid(AuditLog.recorded(tenantId, Effect.gen(function*() {
    const group = yield* manualGroup(tenantId, kind, groupId)
    if (!(yield* (yield* DirectoryStore).removeGroup(tenantId, group.group_id))) return yield* groupNotFound(kind, groupId)
    return group
  }), (group) => groupEntry("deleted", group, by)))

/** Puts a user in a group made here (again changes nothing). */
export const addMember = (
  tenantId: TenantId,
  kind: GroupKind,
  groupId: string,
  userId: string,
  by: AuditLog.Actor
): Effect.Effect<User, NotFound | ManagedByIdentityProvider | StoreError, DirectoryStore | Recording> =>
  AuditLog.recorded(tenantId, Effect.gen(function*() {
    const group = yield* manualGroup(tenantId, kind, groupId)
    const user = yield* getUser(tenantId, userId)
    yield* (yield* DirectoryStore).addMember(tenantId, group.group_id, user.user_id)
    return { group, user }
  }), ({ group, user }) => groupEntry("member_added", group, by, { user_id: user.user_id, email: user.email })).pipe(Effect.map(({ user }) => user))

/** Takes a user out of a group made here; `NotFound` when they were not in it. */
export const removeMember = (
  tenantId: TenantId,
  kind: GroupKind,
  groupId: string,
  userId: string,
  by: AuditLog.Actor
): Effect.Effect<void, NotFound | ManagedByIdentityProvider | StoreError, DirectoryStore | Recording> =>
  Effect.asVoid(AuditLog.recorded(tenantId, Effect.gen(function*() {
    const group = yield* manualGroup(tenantId, kind, groupId)
    const removed = yield* (yield* DirectoryStore).removeMember(tenantId, group.group_id, userId as UserId)
    if (!removed) return yield* new NotFound({ resource: `${resourceOf[kind]} member`, id: userId })
    return group
  }), (group) => groupEntry("member_removed", group, by, { user_id: userId })))

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
