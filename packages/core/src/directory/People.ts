/**
 * The people picker of the share dialog: the tenant's active users, teams
 * and executive roles matching a text, for any member (sharing needs to
 * name whom to share with). It shows no more than a grant needs: an id, a
 * name and, for a user, the e-mail address; never roles, status, external
 * ids or memberships (`GET /v1/users` stays admin-only). A search is
 * paged like every list (`page`): the next page continues after the last
 * person's place in the ranking.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import type { StoreError } from "../platform/Errors.ts"
import * as Pagination from "../platform/Pagination.ts"
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

/** How many a page of a search answers at most (a larger limit asked for is cut to it), and when not told. */
export const limits = { max: 50, default: 50 } as const

/** A person's place in the ranking of a text: starting with it first, then by lower-cased name (code point order), type and id. */
type RankKey = readonly [rank: number, name: string, type: string, id: string]

/** Where a person ranks for a (lower-cased) text. */
const rankKey = (text: string, p: Person): RankKey => [
  matchOf(text, p.email === null ? [p.name] : [p.name, p.email]) === "prefix" ? 0 : 1,
  p.name.toLowerCase(),
  p.type,
  p.id
]

/** The order of ranking keys: rank, then name, type and id (strings compared by `<`). */
const compareKeys = (a: RankKey, b: RankKey): number => {
  if (a[0] !== b[0]) return a[0] - b[0]
  for (let i = 1; i < 4; i++) if (a[i] !== b[i]) return (a[i] as string) < (b[i] as string) ? -1 : 1
  return 0
}

/** A person found, with its place in the ranking (its position: where the stores are asked from for the next page). */
interface Ranked {
  readonly person: Person
  readonly position: number
  readonly key: RankKey
}

/**
 * At most `take` people ranked after `after` (from the first when absent).
 * The stores answer the top of their ranking only, so they are asked for a
 * window reaching past the last position, widened until `take` are found
 * past it or the matches end; of two truncated answers merged, only the
 * first `window` are surely the top of both.
 */
const rankedAfter = (
  tenantId: TenantId,
  text: string,
  take: number,
  after: { readonly position: number; readonly key: RankKey } | undefined
): Effect.Effect<ReadonlyArray<Ranked>, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    if (text === "") return []
    const store = yield* DirectoryStore
    let window = (after === undefined ? 0 : after.position + 1) + take
    for (;;) {
      const [users, groups] = yield* Effect.all([store.searchUsers(tenantId, text, window), store.searchGroups(tenantId, text, window)], {
        concurrency: 2
      })
      const truncated = users.length >= window || groups.length >= window
      const people: Array<Person> = [
        ...users.map((u): Person => ({ type: "user", id: u.user_id, name: u.name, email: u.email })),
        ...groups.map((g): Person => ({ type: g.kind, id: g.group_id, name: g.name, email: null }))
      ]
      const ranked = people.map((person) => ({ person, key: rankKey(text, person) })).sort((a, b) => compareKeys(a.key, b.key))
      const sure = truncated ? ranked.slice(0, window) : ranked
      const past = sure
        .map((r, position): Ranked => ({ ...r, position }))
        .filter((r) => after === undefined || compareKeys(r.key, after.key) > 0)
      if (past.length >= take || !truncated) return past.slice(0, take)
      window *= 2
    }
  })

/**
 * One page of the people matching `query` (case-insensitively, in a name or
 * a user's address; a blank query finds no one), ranked by `rankKey`,
 * in the list envelope: `limit` at most `limits.max`, the cursor binding
 * the query as every list's does. The page after a cursor continues after
 * the last person shown, so one removed since is no skip.
 */
export const page = (
  tenantId: TenantId,
  query: string,
  request: Pagination.NewestFirstRequest
): Effect.Effect<Pagination.Page<Person>, StoreError | CursorError | Pagination.InvalidSort, DirectoryStore | CursorCodec> => {
  const text = query.trim().toLowerCase()
  const limit = Math.max(1, Math.min(request.limit ?? limits.default, limits.max))
  return Effect.map(
    Pagination.paginate<Ranked, "rank", StoreError, DirectoryStore>(
      { ...request, limit, sort: undefined, sortable: ["rank"], defaultSort: { field: "rank", direction: "asc" } },
      (q) =>
        rankedAfter(
          tenantId,
          text,
          q.take,
          q.after === undefined ? undefined : { position: Number(q.after.value), key: JSON.parse(q.after.id) as RankKey }
        ),
      (r) => ({ value: r.position, id: JSON.stringify(r.key) })
    ),
    (found) => ({ data: found.data.map((r) => r.person), page: found.page })
  )
}
