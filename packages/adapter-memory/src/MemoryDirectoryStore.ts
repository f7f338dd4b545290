/**
 * The DirectoryStore in memory: users (one e-mail per tenant), teams and
 * memberships.
 *
 * @since 0.1.0
 */
import { DirectoryStore, Pagination, type Team, type User } from "@analytics/core"
import { Effect } from "effect"
import { restore, set, write } from "./Transactions.ts"

const unchanged = () => {}
const emailKey = (tenantId: string, email: string) => `${tenantId}\u0000${email}`
const memberKey = (teamId: string, userId: string) => `${teamId}\u0000${userId}`

/** A fresh in-memory directory. */
export const make = Effect.sync(() => {
  const users = new Map<string, User.User>()
  const byEmail = new Map<string, string>()
  const teams = new Map<string, Team.Team>()
  /** `team \0 user` of each membership. */
  const members = new Set<string>()

  const userOf = (tenantId: string, userId: string) => {
    const user = users.get(userId)
    return user !== undefined && user.tenant_id === tenantId ? user : undefined
  }
  const teamOf = (tenantId: string, teamId: string) => {
    const team = teams.get(teamId)
    return team !== undefined && team.tenant_id === tenantId ? team : undefined
  }
  const page = <A extends { readonly created_at: Date }>(
    rows: Iterable<A>,
    query: Pagination.PageQuery<"created_at">,
    keyOf: (a: A) => Pagination.Keyset
  ) => Pagination.applyInMemory(rows, query, keyOf, (a) => a.created_at)
  const toggle = (key: string, present: boolean): () => void => {
    const had = members.has(key)
    if (present) members.add(key)
    else members.delete(key)
    return () => (had ? members.add(key) : members.delete(key))
  }

  return DirectoryStore.DirectoryStore.of({
    insertUser: (user) =>
      write(() => {
        const key = emailKey(user.tenant_id, user.email)
        if (byEmail.has(key)) return ["email-taken" as const, unchanged]
        const undos = [set(users, user.user_id, user), set(byEmail, key, user.user_id)]
        return ["written" as const, () => undos.reverse().forEach((undo) => undo())]
      }),
    findUser: (tenantId, userId) => Effect.sync(() => userOf(tenantId, userId)),
    findUserByEmail: (tenantId, email) =>
      Effect.sync(() => {
        const id = byEmail.get(emailKey(tenantId, email))
        return id === undefined ? undefined : users.get(id)
      }),
    listUsers: (tenantId, query) =>
      Effect.sync(() => page([...users.values()].filter((u) => u.tenant_id === tenantId), query, DirectoryStore.userKey)),
    updateUser: (user) =>
      write((): readonly [DirectoryStore.UserWrite, () => void] => {
        const current = userOf(user.tenant_id, user.user_id)
        if (current === undefined) return ["missing", unchanged]
        const key = emailKey(user.tenant_id, user.email)
        const holder = byEmail.get(key)
        if (holder !== undefined && holder !== user.user_id) return ["email-taken", unchanged]
        const oldKey = emailKey(current.tenant_id, current.email)
        const undos = [restore(byEmail, oldKey)]
        byEmail.delete(oldKey)
        undos.push(set(byEmail, key, user.user_id), set(users, user.user_id, user))
        return ["written", () => undos.reverse().forEach((undo) => undo())]
      }),
    insertTeam: (team) => write(() => [undefined, set(teams, team.team_id, team)]),
    findTeam: (tenantId, teamId) => Effect.sync(() => teamOf(tenantId, teamId)),
    listTeams: (tenantId, query) =>
      Effect.sync(() => page([...teams.values()].filter((t) => t.tenant_id === tenantId), query, DirectoryStore.teamKey)),
    updateTeam: (team) =>
      write(() => teamOf(team.tenant_id, team.team_id) === undefined ? [false, unchanged] : [true, set(teams, team.team_id, team)]),
    removeTeam: (tenantId, teamId) =>
      write(() => {
        if (teamOf(tenantId, teamId) === undefined) return [false, unchanged]
        const undos = [restore(teams, teamId)]
        teams.delete(teamId)
        for (const key of [...members]) if (key.startsWith(`${teamId}\u0000`)) undos.push(toggle(key, false))
        return [true, () => undos.reverse().forEach((undo) => undo())]
      }),
    addMember: (tenantId, teamId, userId) =>
      write(() => {
        const key = memberKey(teamId, userId)
        if (teamOf(tenantId, teamId) === undefined || userOf(tenantId, userId) === undefined || members.has(key)) {
          return [false, unchanged]
        }
        return [true, toggle(key, true)]
      }),
    removeMember: (tenantId, teamId, userId) =>
      write(() => {
        const key = memberKey(teamId, userId)
        if (teamOf(tenantId, teamId) === undefined || !members.has(key)) return [false, unchanged]
        return [true, toggle(key, false)]
      }),
    listMembers: (tenantId, teamId, query) =>
      Effect.sync(() => {
        if (teamOf(tenantId, teamId) === undefined) return []
        const inTeam = [...users.values()].filter((u) => members.has(memberKey(teamId, u.user_id)))
        return page(inTeam, query, DirectoryStore.userKey)
      }),
    teamsOf: (tenantId, userId) =>
      Effect.sync(() =>
        [...teams.values()]
          .filter((t) => t.tenant_id === tenantId && members.has(memberKey(t.team_id, userId)))
          .map((t) => t.team_id)
      )
  })
})
