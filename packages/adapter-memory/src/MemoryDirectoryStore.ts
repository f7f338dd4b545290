/**
 * The DirectoryStore in memory: users (one e-mail per tenant), groups and
 * memberships.
 *
 * @since 0.1.0
 */
import { DirectoryStore, type Group, Pagination, type User } from "@analytics/core"
import { Effect } from "effect"
import { restore, set, write } from "./Transactions.ts"

const unchanged = () => {}
const emailKey = (tenantId: string, email: string) => `${tenantId}\u0000${email}`
const memberKey = (groupId: string, userId: string) => `${groupId}\u0000${userId}`

/** A fresh in-memory directory. */
export const make = Effect.sync(() => {
  const users = new Map<string, User.User>()
  const byEmail = new Map<string, string>()
  const groups = new Map<string, Group.Group>()
  /** `group \0 user` of each membership. */
  const members = new Set<string>()

  const userOf = (tenantId: string, userId: string) => {
    const user = users.get(userId)
    return user !== undefined && user.tenant_id === tenantId ? user : undefined
  }
  const groupOf = (tenantId: string, groupId: string, kind?: Group.GroupKind) => {
    const group = groups.get(groupId)
    return group !== undefined && group.tenant_id === tenantId && (kind === undefined || group.kind === kind) ? group : undefined
  }
  const page = <A extends { readonly created_at: Date }>(
    rows: Iterable<A>,
    query: Pagination.PageQuery<"created_at">,
    keyOf: (a: A) => Pagination.Keyset
  ) => Pagination.applyInMemory(rows, query, keyOf, (a) => a.created_at)
  /** The first made of several matches. */
  const oldestFirst: Pagination.PageQuery<"created_at"> = {
    take: 1,
    sort: { field: "created_at", direction: "asc" },
    after: undefined,
    createdAtOrBefore: Pagination.endOfTime
  }
  /** What the search finds, ranked as the port says: prefix matches first, then by lower-cased name and id. */
  const search = <A extends { readonly name: string }>(rows: Iterable<A>, text: string, take: number, fields: (a: A) => ReadonlyArray<string>, id: (a: A) => string) => {
    if (text === "") return []
    const found: Array<{ readonly row: A; readonly rank: number; readonly name: string }> = []
    for (const row of rows) {
      const match = DirectoryStore.matchOf(text, fields(row))
      if (match !== undefined) found.push({ row, rank: match === "prefix" ? 0 : 1, name: row.name.toLowerCase() })
    }
    const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
    found.sort((a, b) => a.rank - b.rank || byCodePoint(a.name, b.name) || byCodePoint(id(a.row), id(b.row)))
    return found.slice(0, take).map((f) => f.row)
  }
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
    findActiveUsersByEmail: (email) =>
      Effect.sync(() =>
        [...users.values()]
          .filter((u) => u.email === email && u.status === "active")
          .sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.user_id < b.user_id ? -1 : 1))
      ),
    findUserBy: (tenantId, by) =>
      Effect.sync(() => {
        if ("email" in by) {
          const id = byEmail.get(emailKey(tenantId, by.email))
          return id === undefined ? undefined : users.get(id)
        }
        return page([...users.values()].filter((u) => u.tenant_id === tenantId && DirectoryStore.userMatches(u, by)), oldestFirst, DirectoryStore.userKey)[0]
      }),
    listUsers: (tenantId, query) =>
      Effect.sync(() => page([...users.values()].filter((u) => u.tenant_id === tenantId), query, DirectoryStore.userKey)),
    searchUsers: (tenantId, text, take) =>
      Effect.sync(() =>
        search([...users.values()].filter((u) => u.tenant_id === tenantId && u.status === "active"), text, take, (u) => [u.name, u.email], (u) => u.user_id)
      ),
    searchGroups: (tenantId, text, take) =>
      Effect.sync(() => search([...groups.values()].filter((g) => g.tenant_id === tenantId), text, take, (g) => [g.name], (g) => g.group_id)),
    countUsers: (tenantId) => Effect.sync(() => [...users.values()].filter((u) => u.tenant_id === tenantId).length),
    listScimUsers: (tenantId, query) =>
      Effect.sync(() =>
        page([...users.values()].filter((u) => u.tenant_id === tenantId && DirectoryStore.scimManages(u)), query, DirectoryStore.userKey)
      ),
    countScimUsers: (tenantId) =>
      Effect.sync(() => [...users.values()].filter((u) => u.tenant_id === tenantId && DirectoryStore.scimManages(u)).length),
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
    insertGroup: (group) => write(() => [undefined, set(groups, group.group_id, group)]),
    findGroup: (tenantId, kind, groupId) => Effect.sync(() => groupOf(tenantId, groupId, kind)),
    listGroups: (tenantId, kind, query) =>
      Effect.sync(() =>
        page([...groups.values()].filter((g) => g.tenant_id === tenantId && g.kind === kind), query, DirectoryStore.groupKey)
      ),
    findGroupBy: (tenantId, kind, source, by) =>
      Effect.sync(() =>
        page(
          [...groups.values()].filter((g) =>
            g.tenant_id === tenantId && g.kind === kind && g.source === source && DirectoryStore.groupMatches(g, by)
          ),
          oldestFirst,
          DirectoryStore.groupKey
        )[0]
      ),
    countGroups: (tenantId, kind, source) =>
      Effect.sync(() => [...groups.values()].filter((g) => g.tenant_id === tenantId && g.kind === kind && g.source === source).length),
    updateGroup: (group) =>
      write(() =>
        groupOf(group.tenant_id, group.group_id) === undefined ? [false, unchanged] : [true, set(groups, group.group_id, group)]
      ),
    removeGroup: (tenantId, groupId) =>
      write(() => {
        if (groupOf(tenantId, groupId) === undefined) return [false, unchanged]
        const undos = [restore(groups, groupId)]
        groups.delete(groupId)
        for (const key of [...members]) if (key.startsWith(`${groupId}\u0000`)) undos.push(toggle(key, false))
        return [true, () => undos.reverse().forEach((undo) => undo())]
      }),
    addMember: (tenantId, groupId, userId) =>
      write(() => {
        const key = memberKey(groupId, userId)
        if (groupOf(tenantId, groupId) === undefined || userOf(tenantId, userId) === undefined || members.has(key)) {
          return [false, unchanged]
        }
        return [true, toggle(key, true)]
      }),
    removeMember: (tenantId, groupId, userId) =>
      write(() => {
        const key = memberKey(groupId, userId)
        if (groupOf(tenantId, groupId) === undefined || !members.has(key)) return [false, unchanged]
        return [true, toggle(key, false)]
      }),
    listMembers: (tenantId, groupId, query) =>
      Effect.sync(() => {
        if (groupOf(tenantId, groupId) === undefined) return []
        const inGroup = [...users.values()].filter((u) => members.has(memberKey(groupId, u.user_id)))
        return page(inGroup, query, DirectoryStore.userKey)
      }),
    membershipsOf: (tenantId, userId) =>
      Effect.sync(() => {
        const teams: Array<Group.GroupId> = []
        const roles: Array<Group.GroupId> = []
        for (const group of groups.values()) {
          if (group.tenant_id !== tenantId || !members.has(memberKey(group.group_id, userId))) continue
          ;(group.kind === "team" ? teams : roles).push(group.group_id)
        }
        return { teams, roles }
      })
  })
})
