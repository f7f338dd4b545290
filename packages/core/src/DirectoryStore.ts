/**
 * Port: a tenant's directory — users, teams and who is in which team.
 * Every method is scoped by tenant: another tenant's user or team is
 * indistinguishable from a missing one. An e-mail address is one user's
 * per tenant.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "./Errors.ts"
import type { Keyset, PageQuery } from "./Pagination.ts"
import type { Team, TeamId } from "./Team.ts"
import type { TenantId } from "./Tenant.ts"
import type { User, UserId } from "./User.ts"

/** The keyset position of a user (lists sort by `created_at`). */
export const userKey = (user: User): Keyset => ({ value: user.created_at.getTime(), id: user.user_id })
/** The keyset position of a team (lists sort by `created_at`). */
export const teamKey = (team: Team): Keyset => ({ value: team.created_at.getTime(), id: team.team_id })

/** What writing a user did: written, or refused because another user of the tenant has the e-mail. */
export type UserWrite = "written" | "missing" | "email-taken"

/** Users, teams and memberships, scoped by tenant. */
export class DirectoryStore extends Context.Service<DirectoryStore, {
  /** Stores a new user; `email-taken` when the tenant has a user with its e-mail. */
  readonly insertUser: (user: User) => Effect.Effect<Exclude<UserWrite, "missing">, StoreError>
  readonly findUser: (tenantId: TenantId, userId: UserId) => Effect.Effect<User | undefined, StoreError>
  readonly findUserByEmail: (tenantId: TenantId, email: string) => Effect.Effect<User | undefined, StoreError>
  /** One page, in `Pagination.applyInMemory` order. */
  readonly listUsers: (tenantId: TenantId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<User>, StoreError>
  /** Replaces a user's fields. */
  readonly updateUser: (user: User) => Effect.Effect<UserWrite, StoreError>
  readonly insertTeam: (team: Team) => Effect.Effect<void, StoreError>
  readonly findTeam: (tenantId: TenantId, teamId: TeamId) => Effect.Effect<Team | undefined, StoreError>
  /** One page, in `Pagination.applyInMemory` order. */
  readonly listTeams: (tenantId: TenantId, query: PageQuery<"created_at">) => Effect.Effect<ReadonlyArray<Team>, StoreError>
  /** Replaces a team's fields; `false` when there was none in this tenant. */
  readonly updateTeam: (team: Team) => Effect.Effect<boolean, StoreError>
  /** Deletes a team and its memberships; `false` when there was none in this tenant. */
  readonly removeTeam: (tenantId: TenantId, teamId: TeamId) => Effect.Effect<boolean, StoreError>
  /** Adds a user of the tenant to a team of the tenant; `false` when either is missing or it is a member already. */
  readonly addMember: (tenantId: TenantId, teamId: TeamId, userId: UserId) => Effect.Effect<boolean, StoreError>
  /** `false` when it was not a member. */
  readonly removeMember: (tenantId: TenantId, teamId: TeamId, userId: UserId) => Effect.Effect<boolean, StoreError>
  /** One page of a team's members, in `Pagination.applyInMemory` order of the users. */
  readonly listMembers: (
    tenantId: TenantId,
    teamId: TeamId,
    query: PageQuery<"created_at">
  ) => Effect.Effect<ReadonlyArray<User>, StoreError>
  /** The teams a user is in now: what access evaluation reads on each request. */
  readonly teamsOf: (tenantId: TenantId, userId: UserId) => Effect.Effect<ReadonlyArray<TeamId>, StoreError>
}>()("@analytics/core/DirectoryStore") {}
