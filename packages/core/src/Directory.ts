/**
 * Use cases on a tenant's directory: users, teams and memberships, for
 * tenant admins (the HTTP adapter checks the role; these check the rest).
 *
 * @since 0.1.0
 */
import { Clock, Data, Effect } from "effect"
import type { CursorCodec, CursorError } from "./Cursor.ts"
import { DirectoryStore, teamKey, userKey } from "./DirectoryStore.ts"
import { NotFound, type StoreError } from "./Errors.ts"
import { uuidv7 } from "./Ids.ts"
import { type InvalidSort, type Keyset, type ListRequest, type Page, type PageQuery, paginate } from "./Pagination.ts"
import type { Team, TeamId, TeamInput } from "./Team.ts"
import type { TenantId } from "./Tenant.ts"
import type { User, UserCreate, UserId, UserUpdate } from "./User.ts"

/** Another user of the tenant has this e-mail address. */
export class EmailTaken extends Data.TaggedError("EmailTaken")<{
  readonly email: string
}> {}

/** The team is an identity provider's group: it changes there (over SCIM), not here. */
export class ManagedByIdentityProvider extends Data.TaggedError("ManagedByIdentityProvider")<{
  readonly teamId: TeamId
}> {}

/** The sort every directory list uses: newest first. */
const newestFirst = { field: "created_at", direction: "desc" } as const

type ListOptions = Omit<ListRequest<"created_at">, "sortable" | "defaultSort" | "sort">

const list = <A, R>(
  request: ListOptions,
  fetch: (query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<A>, StoreError, R>,
  keyOf: (a: A) => Keyset
) =>
  paginate({ ...request, sort: undefined, sortable: ["created_at"], defaultSort: newestFirst }, fetch, keyOf)

const userNotFound = (userId: string) => new NotFound({ resource: "user", id: userId })
const teamNotFound = (teamId: string) => new NotFound({ resource: "team", id: teamId })

/** A user of the tenant, or `NotFound`. */
export const getUser = (tenantId: TenantId, userId: string): Effect.Effect<User, NotFound | StoreError, DirectoryStore> =>
  Effect.flatMap(DirectoryStore, (store) => store.findUser(tenantId, userId as UserId)).pipe(
    Effect.flatMap((user) => user === undefined ? Effect.fail(userNotFound(userId)) : Effect.succeed(user))
  )

/** Creates an active user (a member unless roles are given). */
export const createUser = (
  tenantId: TenantId,
  input: UserCreate & { readonly externalId?: string | null | undefined }
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
  request: ListOptions
): Effect.Effect<Page<User>, StoreError | CursorError | InvalidSort, DirectoryStore | CursorCodec> =>
  Effect.flatMap(DirectoryStore, (store) => list(request, (query) => store.listUsers(tenantId, query), userKey))

/** Changes a user's name, service roles or status (deprovisioning removes all access from the next request). */
export const updateUser = (
  tenantId: TenantId,
  userId: string,
  change: UserUpdate
): Effect.Effect<User, NotFound | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
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
    return updated
  })

/** A team of the tenant, or `NotFound`. */
export const getTeam = (tenantId: TenantId, teamId: string): Effect.Effect<Team, NotFound | StoreError, DirectoryStore> =>
  Effect.flatMap(DirectoryStore, (store) => store.findTeam(tenantId, teamId as TeamId)).pipe(
    Effect.flatMap((team) => team === undefined ? Effect.fail(teamNotFound(teamId)) : Effect.succeed(team))
  )

/** A team an admin may change: made here, not synced from the identity provider. */
const manualTeam = (tenantId: TenantId, teamId: string) =>
  Effect.flatMap(getTeam(tenantId, teamId), (team) =>
    team.source === "scim" ? Effect.fail(new ManagedByIdentityProvider({ teamId: team.team_id })) : Effect.succeed(team))

/** Creates a manual team. */
export const createTeam = (tenantId: TenantId, input: TeamInput): Effect.Effect<Team, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const now = new Date(yield* Clock.currentTimeMillis)
    const team: Team = {
      team_id: (yield* uuidv7) as TeamId,
      tenant_id: tenantId,
      name: input.name,
      source: "manual",
      external_id: null,
      created_at: now,
      updated_at: now
    }
    yield* (yield* DirectoryStore).insertTeam(team)
    return team
  })

/** One page of the tenant's teams, newest first. */
export const listTeams = (
  tenantId: TenantId,
  request: ListOptions
): Effect.Effect<Page<Team>, StoreError | CursorError | InvalidSort, DirectoryStore | CursorCodec> =>
  Effect.flatMap(DirectoryStore, (store) => list(request, (query) => store.listTeams(tenantId, query), teamKey))

/** Renames a manual team. */
export const renameTeam = (
  tenantId: TenantId,
  teamId: string,
  input: TeamInput
): Effect.Effect<Team, NotFound | ManagedByIdentityProvider | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const current = yield* manualTeam(tenantId, teamId)
    const updated: Team = { ...current, name: input.name, updated_at: new Date(yield* Clock.currentTimeMillis) }
    if (!(yield* (yield* DirectoryStore).updateTeam(updated))) return yield* teamNotFound(teamId)
    return updated
  })

/** Deletes a manual team and its memberships. */
export const deleteTeam = (
  tenantId: TenantId,
  teamId: string
): Effect.Effect<void, NotFound | ManagedByIdentityProvider | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const team = yield* manualTeam(tenantId, teamId)
    if (!(yield* (yield* DirectoryStore).removeTeam(tenantId, team.team_id))) return yield* teamNotFound(teamId)
  })

/** Adds a user to a manual team (idempotent). */
export const addMember = (
  tenantId: TenantId,
  teamId: string,
  userId: string
): Effect.Effect<User, NotFound | ManagedByIdentityProvider | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const team = yield* manualTeam(tenantId, teamId)
    const user = yield* getUser(tenantId, userId)
    yield* (yield* DirectoryStore).addMember(tenantId, team.team_id, user.user_id)
    return user
  })

/** Removes a user from a manual team; `NotFound` when they were not a member. */
export const removeMember = (
  tenantId: TenantId,
  teamId: string,
  userId: string
): Effect.Effect<void, NotFound | ManagedByIdentityProvider | StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const team = yield* manualTeam(tenantId, teamId)
    const removed = yield* (yield* DirectoryStore).removeMember(tenantId, team.team_id, userId as UserId)
    if (!removed) return yield* new NotFound({ resource: "team member", id: userId })
  })

/** One page of a team's members, newest users first. */
export const listMembers = (
  tenantId: TenantId,
  teamId: string,
  request: ListOptions
): Effect.Effect<Page<User>, NotFound | StoreError | CursorError | InvalidSort, DirectoryStore | CursorCodec> =>
  Effect.gen(function*() {
    const team = yield* getTeam(tenantId, teamId)
    const store = yield* DirectoryStore
    return yield* list(request, (query) => store.listMembers(tenantId, team.team_id, query), userKey)
  })
