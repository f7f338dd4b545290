/**
 * The directory part of the store contract: users (one e-mail per tenant,
 * even under concurrent creation), teams and memberships, all scoped by
 * tenant. Run by `storeContract` on every adapter.
 *
 * @since 0.1.0
 */
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { DirectoryStore } from "../DirectoryStore.ts"
import { uuidv7 } from "../Ids.ts"
import type { PageQuery } from "../Pagination.ts"
import type { Stores } from "../Stores.ts"
import type { Team, TeamId } from "../Team.ts"
import { Tenant, type TenantId } from "../Tenant.ts"
import { TenantStore } from "../TenantStore.ts"
import type { User, UserId } from "../User.ts"

const at = (offset: number) => new Date(1_800_000_000_000 + offset)

const makeTenant = Effect.gen(function*() {
  const tenant = new Tenant({ tenant_id: (yield* uuidv7) as TenantId, name: "Directory", plan: "growth", created_at: at(0) })
  yield* (yield* TenantStore).insertTenant(tenant)
  return tenant.tenant_id
})

const newUser = (tenantId: TenantId, email: string, offset: number, overrides: Partial<User> = {}) =>
  Effect.map(uuidv7, (id): User => ({
    user_id: id as UserId,
    tenant_id: tenantId,
    email,
    name: "Ada Lovelace",
    status: "active",
    roles: ["member"],
    external_id: null,
    created_at: at(offset),
    updated_at: at(offset),
    ...overrides
  }))

const makeUser = (tenantId: TenantId, email: string, offset: number, overrides: Partial<User> = {}) =>
  Effect.gen(function*() {
    const user = yield* newUser(tenantId, email, offset, overrides)
    assert.strictEqual(yield* (yield* DirectoryStore).insertUser(user), "written")
    return user
  })

const makeTeam = (tenantId: TenantId, name: string, offset: number) =>
  Effect.gen(function*() {
    const team: Team = {
      team_id: (yield* uuidv7) as TeamId,
      tenant_id: tenantId,
      name,
      source: "manual",
      external_id: null,
      created_at: at(offset),
      updated_at: at(offset)
    }
    yield* (yield* DirectoryStore).insertTeam(team)
    return team
  })

const page: PageQuery<"created_at"> = {
  take: 100,
  sort: { field: "created_at", direction: "desc" },
  after: undefined,
  createdAtOrBefore: new Date(8_000_000_000_000)
}

/** Registers the directory tests inside a store contract's layer. */
export const directoryStoreContract = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("users round-trip, are scoped by tenant, found by e-mail and listed newest first", () =>
    Effect.gen(function*() {
      const store = yield* DirectoryStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const ada = yield* makeUser(tenant, "ada@example.com", 1_000, { roles: ["admin", "member"], external_id: "00u1" })
      const bob = yield* makeUser(tenant, "bob@example.com", 2_000)
      assert.deepStrictEqual(yield* store.findUser(tenant, ada.user_id), ada)
      assert.strictEqual(yield* store.findUser(other, ada.user_id), undefined)
      assert.strictEqual(yield* store.findUser(tenant, "not-a-uuid" as UserId), undefined)
      assert.deepStrictEqual(yield* store.findUserByEmail(tenant, "bob@example.com"), bob)
      assert.strictEqual(yield* store.findUserByEmail(other, "bob@example.com"), undefined)
      assert.deepStrictEqual((yield* store.listUsers(tenant, page)).map((u) => u.user_id), [bob.user_id, ada.user_id])
      const rest = yield* store.listUsers(tenant, { ...page, after: { value: bob.created_at.getTime(), id: bob.user_id } })
      assert.deepStrictEqual(rest.map((u) => u.user_id), [ada.user_id])
      assert.deepStrictEqual(yield* store.listUsers(other, page), [])
    }))

  it.effect("an e-mail is one user's per tenant, even when two are created at once", () =>
    Effect.gen(function*() {
      const store = yield* DirectoryStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const first = yield* newUser(tenant, "race@example.com", 3_000)
      const second = yield* newUser(tenant, "race@example.com", 3_000)
      const results = yield* Effect.all([store.insertUser(first), store.insertUser(second)], { concurrency: 2 })
      assert.deepStrictEqual([...results].sort(), ["email-taken", "written"])
      assert.strictEqual((yield* store.listUsers(tenant, page)).length, 1)
      // Another tenant may have the same address.
      yield* makeUser(other, "race@example.com", 3_000)
    }))

  it.effect("updating a user replaces its fields; another user's e-mail is refused; a missing one is reported", () =>
    Effect.gen(function*() {
      const store = yield* DirectoryStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const ada = yield* makeUser(tenant, "ada@example.org", 1_000)
      yield* makeUser(tenant, "bob@example.org", 2_000)
      const gone: User = { ...ada, status: "deprovisioned", name: "Ada L.", roles: ["admin"], updated_at: at(5_000) }
      assert.strictEqual(yield* store.updateUser(gone), "written")
      assert.deepStrictEqual(yield* store.findUser(tenant, ada.user_id), gone)
      assert.strictEqual(yield* store.updateUser({ ...gone, email: "bob@example.org" }), "email-taken")
      assert.deepStrictEqual(yield* store.findUser(tenant, ada.user_id), gone)
      const renamed = { ...gone, email: "ada.l@example.org" }
      assert.strictEqual(yield* store.updateUser(renamed), "written")
      assert.deepStrictEqual(yield* store.findUserByEmail(tenant, "ada.l@example.org"), renamed)
      assert.strictEqual(yield* store.findUserByEmail(tenant, "ada@example.org"), undefined)
      assert.strictEqual(yield* store.updateUser({ ...gone, tenant_id: other }), "missing")
    }))

  it.effect("teams and memberships: scoped by tenant, idempotent, listed, and gone with their team", () =>
    Effect.gen(function*() {
      const store = yield* DirectoryStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const ada = yield* makeUser(tenant, "ada@example.net", 1_000)
      const bob = yield* makeUser(tenant, "bob@example.net", 2_000)
      const stranger = yield* makeUser(other, "eve@example.net", 2_500)
      const finance = yield* makeTeam(tenant, "Finance", 3_000)
      const sales = yield* makeTeam(tenant, "Sales", 4_000)
      assert.deepStrictEqual(yield* store.findTeam(tenant, finance.team_id), finance)
      assert.strictEqual(yield* store.findTeam(other, finance.team_id), undefined)
      assert.deepStrictEqual((yield* store.listTeams(tenant, page)).map((t) => t.name), ["Sales", "Finance"])
      assert.isTrue(yield* store.addMember(tenant, finance.team_id, ada.user_id))
      assert.isFalse(yield* store.addMember(tenant, finance.team_id, ada.user_id))
      assert.isTrue(yield* store.addMember(tenant, finance.team_id, bob.user_id))
      assert.isTrue(yield* store.addMember(tenant, sales.team_id, ada.user_id))
      // Another tenant's user or team cannot be joined.
      assert.isFalse(yield* store.addMember(tenant, finance.team_id, stranger.user_id))
      assert.isFalse(yield* store.addMember(other, finance.team_id, stranger.user_id))
      assert.deepStrictEqual((yield* store.listMembers(tenant, finance.team_id, page)).map((u) => u.email), ["bob@example.net", "ada@example.net"])
      assert.deepStrictEqual(yield* store.listMembers(other, finance.team_id, page), [])
      assert.deepStrictEqual([...(yield* store.teamsOf(tenant, ada.user_id))].sort(), [finance.team_id, sales.team_id].sort())
      assert.deepStrictEqual(yield* store.teamsOf(other, ada.user_id), [])
      assert.isFalse(yield* store.removeMember(other, finance.team_id, bob.user_id))
      assert.isTrue(yield* store.removeMember(tenant, finance.team_id, bob.user_id))
      assert.isFalse(yield* store.removeMember(tenant, finance.team_id, bob.user_id))
      const renamed = { ...finance, name: "Finance & Ops", updated_at: at(6_000) }
      assert.isTrue(yield* store.updateTeam(renamed))
      assert.isFalse(yield* store.updateTeam({ ...renamed, tenant_id: other }))
      assert.deepStrictEqual(yield* store.findTeam(tenant, finance.team_id), renamed)
      assert.isFalse(yield* store.removeTeam(other, finance.team_id))
      assert.isTrue(yield* store.removeTeam(tenant, finance.team_id))
      assert.deepStrictEqual(yield* store.teamsOf(tenant, ada.user_id), [sales.team_id])
      assert.deepStrictEqual(yield* store.listMembers(tenant, finance.team_id, page), [])
    }))
}
