/**
 * SCIM 2.0 provisioning of a tenant's directory (decision 0012): what the
 * `/scim/v2` routes do with users and groups, on the directory store, with
 * the `scim.user.*` events published in the same transaction as the change.
 *
 * SCIM manages only what the identity provider made (decision 0012): users
 * it provisioned who are no tenant admin (`DirectoryStore.scimManages`) and
 * teams with source `scim`. Users made by hand or invited, every admin,
 * teams and executive roles made by an admin are not seen here: a 404,
 * absent from lists, never a group member SCIM may add or remove, never
 * adopted by a POST with their address (409 uniqueness). SCIM sets no
 * service role: whoever it makes is a member. A DELETE of a user
 * deprovisions it (its grants' history stays); it then answers as
 * inactive. A change of a user's e-mail ends their console sessions and
 * spends their unused sign-in links.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Result, type Schema } from "effect"
import type * as AuditLog from "../audit/AuditLog.ts"
import * as Deprovisioning from "./Deprovisioning.ts"
import * as DirectoryUseCases from "../directory/DirectoryUseCases.ts"
import { DirectoryStore, scimManages } from "../directory/DirectoryStore.ts"
import type { StoreError } from "../platform/Errors.ts"
import { EventPublisher, publish } from "../webhooks/EventPublisher.ts"
import * as Events from "../webhooks/Events.ts"
import type { Group, GroupId } from "../directory/Group.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { endOfTime, type PageQuery } from "../platform/Pagination.ts"
import * as Scim from "../directory/Scim.ts"
import * as Sessions from "../auth/Sessions.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { Transactor } from "../platform/Transactor.ts"
import type { User, UserId } from "../directory/User.ts"

/** What provisioning needs. */
export type Services = DirectoryStore | EventPublisher | Transactor | Deprovisioning.Services | DirectoryUseCases.Recording

const notFound = (what: string, id: string) => new Scim.ScimError({ status: 404, detail: `No ${what} ${id}` })
const taken = (detail: string) => new Scim.ScimError({ status: 409, scimType: "uniqueness", detail })
const fromResult = <A>(result: Result.Result<A, Scim.ScimError>) =>
  Result.match(result, { onSuccess: Effect.succeed, onFailure: Effect.fail })

/** The identity provider, as the audit log names it (the principal of the tenant's SCIM tokens). */
const scimActor = (tenantId: TenantId): AuditLog.Actor => ({ type: "scim", id: `scim:${tenantId}` })

/**
 * Publishes the event a change of a user's status means (none when it did
 * not change); a deprovisioning also stops what acted for the user.
 */
const announce = (tenantId: TenantId, before: User | undefined, after: User) => {
  const wasActive = before !== undefined && before.status === "active"
  const isActive = after.status === "active"
  if (wasActive === isActive) return Effect.void
  const stopped = wasActive ? Effect.asVoid(Deprovisioning.stopActingFor(tenantId, after.user_id, scimActor(tenantId))) : Effect.void
  const common = { user_id: after.user_id, user_name: after.user_name ?? after.email, email: after.email }
  const published: Effect.Effect<unknown, StoreError | Schema.SchemaError, EventPublisher> = isActive
    ? publish(tenantId, "scim.user.provisioned", Events.everyWorkspace, { ...common, external_id: after.external_id })
    : publish(tenantId, "scim.user.deprovisioned", Events.everyWorkspace, common)
  // The data is built here from a stored user: a schema failure would be a bug.
  return Effect.andThen(stopped, published.pipe(Effect.catchTag("SchemaError", (error) => Effect.die(error)), Effect.asVoid))
}

/** Runs a change in one transaction, store failures kept apart from SCIM errors. */
const inTransaction = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(Transactor, (transactor) => transactor.transaction(effect))

// --- lists ------------------------------------------------------------------------

/** The first `take` rows, newest first, as of now. */
const newestFirst = (take: number) =>
  Effect.map(Clock.currentTimeMillis, (now): PageQuery<"created_at"> => ({
    take,
    sort: { field: "created_at", direction: "desc" },
    after: undefined,
    createdAtOrBefore: new Date(now)
  }))

/** `count` rows from SCIM's 1-based `startIndex`. */
const window = <A>(rows: ReadonlyArray<A>, startIndex: number, count: number) => rows.slice(startIndex - 1, startIndex - 1 + count)

const unsupportedFilter = (detail: string) => Effect.fail(new Scim.ScimError({ status: 400, scimType: "invalidFilter", detail }))

// --- users ------------------------------------------------------------------------

/** A user SCIM manages (`scimManages`: provisioned by it, no admin), or a SCIM 404, as for a user that does not exist. */
export const getUser = (tenantId: TenantId, id: string): Effect.Effect<User, Scim.ScimError | StoreError, DirectoryStore> =>
  Effect.flatMap(DirectoryStore, (store) => store.findUser(tenantId, id as UserId)).pipe(
    Effect.flatMap((user) => user === undefined || !scimManages(user) ? Effect.fail(notFound("user", id)) : Effect.succeed(user))
  )

/**
 * POST /Users: a new user, a member; 409 uniqueness when its user name or
 * e-mail is taken, whoever holds it: a user made by hand (an admin above
 * all) is never adopted by the identity provider through their address.
 */
export const createUser = (tenantId: TenantId, body: unknown): Effect.Effect<User, Scim.ScimError | StoreError, Services> =>
  Effect.gen(function*() {
    const fields = yield* fromResult(Scim.userFields(body))
    const store = yield* DirectoryStore
    return yield* inTransaction(Effect.gen(function*() {
      if ((yield* store.findUserBy(tenantId, { userName: fields.userName })) !== undefined) {
        return yield* taken(`A user named ${fields.userName} exists`)
      }
      const user = yield* DirectoryUseCases.createUser(tenantId, {
        email: fields.email,
        name: fields.name,
        externalId: fields.externalId,
        userName: fields.userName
      }, scimActor(tenantId)).pipe(Effect.catchTag("EmailTaken", (e) => Effect.fail(taken(`A user with the e-mail ${e.email} exists`))))
      const created = fields.active ? user : yield* save(user, { status: "deprovisioned" })
      yield* announce(tenantId, undefined, created)
      return created
    }))
  })

/**
 * Writes a user's changed fields; 409 when its new e-mail is another user's.
 * A new e-mail ends the user's console sessions and spends their sign-in
 * links (`Sessions.endForEmailChange`): whoever holds the new address signs
 * in afresh, never into what the old one opened.
 */
const save = (current: User, change: Partial<Pick<User, "email" | "name" | "external_id" | "user_name" | "status">>) =>
  Effect.gen(function*() {
    const updated: User = { ...current, ...change, updated_at: new Date(yield* Clock.currentTimeMillis) }
    const written = yield* (yield* DirectoryStore).updateUser(updated)
    if (written === "email-taken") return yield* taken(`A user with the e-mail ${updated.email} exists`)
    if (written === "missing") return yield* notFound("user", current.user_id)
    if (updated.email !== current.email) yield* Sessions.endForEmailChange(current.tenant_id, current.user_id, scimActor(current.tenant_id))
    return updated
  })

/** PUT /Users/{id}: replaces what the directory keeps of the user. */
export const replaceUser = (tenantId: TenantId, id: string, body: unknown): Effect.Effect<User, Scim.ScimError | StoreError, Services> =>
  Effect.gen(function*() {
    const fields = yield* fromResult(Scim.userFields(body))
    return yield* inTransaction(Effect.gen(function*() {
      const current = yield* getUser(tenantId, id)
      const updated = yield* save(current, {
        email: fields.email,
        name: fields.name,
        external_id: fields.externalId,
        user_name: fields.userName,
        status: fields.active ? "active" : "deprovisioned"
      })
      yield* announce(tenantId, current, updated)
      return updated
    }))
  })

/** PATCH /Users/{id}: Okta's and Entra's operations (see `Scim.userPatch`). */
export const patchUser = (tenantId: TenantId, id: string, body: unknown): Effect.Effect<User, Scim.ScimError | StoreError, Services> =>
  inTransaction(Effect.gen(function*() {
    const current = yield* getUser(tenantId, id)
    const change = yield* fromResult(Scim.userPatch(body, current))
    const updated = yield* save(current, {
      ...(change.email === undefined ? {} : { email: change.email }),
      ...(change.name === undefined ? {} : { name: change.name }),
      ...(change.externalId === undefined ? {} : { external_id: change.externalId }),
      ...(change.active === undefined ? {} : { status: change.active ? "active" as const : "deprovisioned" as const })
    })
    yield* announce(tenantId, current, updated)
    return updated
  }))

/** DELETE /Users/{id}: deprovisions the user (no access from its next request). */
export const deleteUser = (tenantId: TenantId, id: string): Effect.Effect<void, Scim.ScimError | StoreError, Services> =>
  inTransaction(Effect.gen(function*() {
    const current = yield* getUser(tenantId, id)
    const updated = current.status === "deprovisioned" ? current : yield* save(current, { status: "deprovisioned" })
    yield* announce(tenantId, current, updated)
  }))

/** GET /Users: by filter (what identity providers send), else the newest, `count` from `startIndex` (1-based). */
export const listUsers = (
  tenantId: TenantId,
  filter: Scim.Filter | undefined,
  startIndex: number,
  count: number
): Effect.Effect<{ readonly users: ReadonlyArray<User>; readonly total: number }, Scim.ScimError | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const store = yield* DirectoryStore
    if (filter !== undefined) {
      if (filter.attribute === "displayname") return yield* unsupportedFilter("Users are filtered by userName or externalId")
      const found = yield* store.findUserBy(tenantId, filter.attribute === "username" ? { userName: filter.value } : { externalId: filter.value })
      const users = found === undefined || !scimManages(found) ? [] : [found]
      return { users: window(users, startIndex, count), total: users.length }
    }
    const all = yield* store.listScimUsers(tenantId, yield* newestFirst(startIndex - 1 + count))
    return { users: window(all, startIndex, count), total: yield* store.countScimUsers(tenantId) }
  })

// --- groups -------------------------------------------------------------------------

/** A group synced over SCIM, or a SCIM 404 (teams made by an admin are not SCIM's). */
export const getGroup = (tenantId: TenantId, id: string): Effect.Effect<Group, Scim.ScimError | StoreError, DirectoryStore> =>
  Effect.flatMap(DirectoryStore, (store) => store.findGroup(tenantId, "team", id as GroupId)).pipe(
    Effect.flatMap((group) =>
      group === undefined || group.source !== "scim" ? Effect.fail(notFound("group", id)) : Effect.succeed(group)
    )
  )

/** Every member of a group SCIM manages (an admin among them is not SCIM's to see), with the name SCIM shows. */
export const membersOf = (tenantId: TenantId, group: Group): Effect.Effect<ReadonlyArray<{ readonly id: string; readonly display: string }>, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const store = yield* DirectoryStore
    const out: Array<{ id: string; display: string }> = []
    let after: { value: number; id: string } | undefined
    while (true) {
      const page = yield* store.listMembers(tenantId, group.group_id, {
        take: 500,
        sort: { field: "created_at", direction: "desc" },
        after,
        createdAtOrBefore: endOfTime
      })
      for (const user of page) if (scimManages(user)) out.push({ id: user.user_id, display: user.name })
      if (page.length < 500) return out
      const last = page[page.length - 1]
      after = { value: last.created_at.getTime(), id: last.user_id }
    }
  })

/** Puts users in a group; each must be a user SCIM manages (400 otherwise, nothing written). */
const addMembers = (tenantId: TenantId, group: Group, ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const store = yield* DirectoryStore
    for (const id of ids) {
      const user = yield* store.findUser(tenantId, id as UserId)
      if (user === undefined || !scimManages(user)) {
        return yield* new Scim.ScimError({ status: 400, scimType: "invalidValue", detail: `No user ${id}` })
      }
      yield* store.addMember(tenantId, group.group_id, id as UserId)
    }
  })

/** Takes users SCIM manages out of a group; other ids (unknown, an admin's) change nothing. */
const removeMembers = (tenantId: TenantId, group: Group, ids: ReadonlyArray<string>) =>
  Effect.flatMap(DirectoryStore, (store) =>
    Effect.forEach(ids, (id) =>
      Effect.flatMap(store.findUser(tenantId, id as UserId), (user) =>
        user === undefined || !scimManages(user) ? Effect.succeed(false) : store.removeMember(tenantId, group.group_id, user.user_id)), { discard: true }))

/** POST /Groups: a team synced from the identity provider; 409 uniqueness when its name is another SCIM group's. */
export const createGroup = (tenantId: TenantId, body: unknown): Effect.Effect<Group, Scim.ScimError | StoreError, Services> =>
  Effect.gen(function*() {
    const fields = yield* fromResult(Scim.groupFields(body))
    const store = yield* DirectoryStore
    return yield* inTransaction(Effect.gen(function*() {
      const existing = yield* store.findGroupBy(tenantId, "team", "scim", { name: fields.displayName })
      if (existing !== undefined) return yield* taken(`A group named ${fields.displayName} exists`)
      const now = new Date(yield* Clock.currentTimeMillis)
      const group: Group = {
        group_id: (yield* uuidv7) as GroupId,
        tenant_id: tenantId,
        kind: "team",
        name: fields.displayName,
        source: "scim",
        external_id: fields.externalId,
        created_at: now,
        updated_at: now
      }
      yield* store.insertGroup(group)
      yield* addMembers(tenantId, group, fields.members)
      return group
    }))
  })

/** Renames a group (and its external id) when asked. */
const renamed = (group: Group, name: string | undefined, externalId: string | null | undefined) =>
  Effect.gen(function*() {
    if (name === undefined && externalId === undefined) return group
    const updated: Group = {
      ...group,
      name: name ?? group.name,
      external_id: externalId === undefined ? group.external_id : externalId,
      updated_at: new Date(yield* Clock.currentTimeMillis)
    }
    yield* (yield* DirectoryStore).updateGroup(updated)
    return updated
  })

/** Makes a group's members exactly `ids`. */
const replaceMembers = (tenantId: TenantId, group: Group, ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const current = (yield* membersOf(tenantId, group)).map((m) => m.id)
    yield* removeMembers(tenantId, group, current.filter((id) => !ids.includes(id)))
    yield* addMembers(tenantId, group, ids.filter((id) => !current.includes(id)))
  })

/** PUT /Groups/{id}: the name, external id and whole member list. */
export const replaceGroup = (tenantId: TenantId, id: string, body: unknown): Effect.Effect<Group, Scim.ScimError | StoreError, Services> =>
  Effect.gen(function*() {
    const fields = yield* fromResult(Scim.groupFields(body))
    return yield* inTransaction(Effect.gen(function*() {
      const group = yield* renamed(yield* getGroup(tenantId, id), fields.displayName, fields.externalId)
      yield* replaceMembers(tenantId, group, fields.members)
      return group
    }))
  })

/** PATCH /Groups/{id}: Okta's and Entra's operations (see `Scim.groupPatch`). */
export const patchGroup = (tenantId: TenantId, id: string, body: unknown): Effect.Effect<Group, Scim.ScimError | StoreError, Services> =>
  Effect.gen(function*() {
    const change = yield* fromResult(Scim.groupPatch(body))
    return yield* inTransaction(Effect.gen(function*() {
      const group = yield* renamed(yield* getGroup(tenantId, id), change.displayName, change.externalId)
      if (change.replaceMembers !== undefined) yield* replaceMembers(tenantId, group, change.replaceMembers)
      yield* addMembers(tenantId, group, change.add)
      yield* removeMembers(tenantId, group, change.remove)
      return group
    }))
  })

/** DELETE /Groups/{id}: the team and its memberships (grants to it reach no one from then on). */
export const deleteGroup = (tenantId: TenantId, id: string): Effect.Effect<void, Scim.ScimError | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const group = yield* getGroup(tenantId, id)
    yield* (yield* DirectoryStore).removeGroup(tenantId, group.group_id)
  })

/** GET /Groups: by filter, else the newest, `count` from `startIndex` (1-based). */
export const listGroups = (
  tenantId: TenantId,
  filter: Scim.Filter | undefined,
  startIndex: number,
  count: number
): Effect.Effect<{ readonly groups: ReadonlyArray<Group>; readonly total: number }, Scim.ScimError | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const store = yield* DirectoryStore
    if (filter !== undefined) {
      if (filter.attribute === "username") return yield* unsupportedFilter("Groups are filtered by displayName or externalId")
      const found = yield* store.findGroupBy(tenantId, "team", "scim", filter.attribute === "displayname" ? { name: filter.value } : { externalId: filter.value })
      const groups = found === undefined ? [] : [found]
      return { groups: window(groups, startIndex, count), total: groups.length }
    }
    // Manual teams are not SCIM's: read past them (they are few; a team list is small).
    const take = startIndex - 1 + count + (yield* store.countGroups(tenantId, "team", "manual"))
    const all = (yield* store.listGroups(tenantId, "team", yield* newestFirst(take))).filter((g) => g.source === "scim")
    return { groups: window(all, startIndex, count), total: yield* store.countGroups(tenantId, "team", "scim") }
  })

