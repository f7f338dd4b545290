/**
 * The people picker of the share dialog: the tenant's active users, teams
 * and executive roles matching a text, for any member (sharing needs to
 * name whom to share with). It shows no more than a grant needs: an id, a
 * name and, for a user, the e-mail address; never roles, status, external
 * ids or memberships (`GET /v1/users` stays admin-only).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { DirectoryStore, matchOf } from "./DirectoryStore.ts"

/** Someone a grant may name: a user, a team or an executive role (as a grant's `principal_type` says). */
export interface Person {
  readonly type: "user" | "team" | "executive_role"
  readonly id: string
  readonly name: string
  /** A user's address; `null` for a team or a role. */
  readonly email: string | null
}

/** What a search found: at most its limit, and whether more matched. */
export interface Found {
  readonly people: ReadonlyArray<Person>
  readonly more: boolean
}

/** How many a search answers at most (a larger limit asked for is cut to it), and when not told. */
export const limits = { max: 50, default: 50 } as const

/** A person's rank: starting with the text first, then by lower-cased name (code point order), type and id. */
const compare = (text: string) => (a: Person, b: Person): number => {
  const rank = (p: Person) => matchOf(text, p.email === null ? [p.name] : [p.name, p.email]) === "prefix" ? 0 : 1
  const byCodePoint = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0)
  return rank(a) - rank(b) || byCodePoint(a.name.toLowerCase(), b.name.toLowerCase()) || byCodePoint(a.type, b.type) || byCodePoint(a.id, b.id)
}

/**
 * The tenant's people whose name (or a user's address) holds `query`,
 * case-insensitively, those starting with it first: at most `limit`
 * (`limits.default` when absent), and whether more matched (a picker
 * narrows by more text rather than paging). A blank query finds no one.
 */
export const search = (
  tenantId: TenantId,
  query: string,
  limit: number = limits.default
): Effect.Effect<Found, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    limit = Math.max(1, Math.min(limit, limits.max))
    const text = query.trim().toLowerCase()
    if (text === "") return { people: [], more: false }
    const store = yield* DirectoryStore
    // One more than the limit of each: whether more matched is then known without counting.
    const [users, groups] = yield* Effect.all([store.searchUsers(tenantId, text, limit + 1), store.searchGroups(tenantId, text, limit + 1)], {
      concurrency: 2
    })
    const people: Array<Person> = [
      ...users.map((u): Person => ({ type: "user", id: u.user_id, name: u.name, email: u.email })),
      ...groups.map((g): Person => ({ type: g.kind, id: g.group_id, name: g.name, email: null }))
    ].sort(compare(text))
    return { people: people.slice(0, limit), more: people.length > limit }
  })
