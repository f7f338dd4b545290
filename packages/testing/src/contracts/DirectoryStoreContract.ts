/**
 * The directory part of the store contract: users (one e-mail per tenant,
 * even under concurrent creation), groups (teams, executive roles) and
 * memberships, all scoped by tenant. Run by `storeContract` on every adapter.
 *
 * @since 0.1.0
 */
import { DirectoryStore, Group, Ids, Invitation, InvitationStore, Pagination, Tenant, User } from "@analytics/core"
import type { Stores } from "@analytics/core"
import { assert, type Vitest } from "@effect/vitest"
import { Effect } from "effect"
import { insertTenant } from "../Fixtures.ts"

const at = (offset: number) => new Date(1_800_000_000_000 + offset)

const makeTenant = Effect.map(insertTenant({ name: "Directory", createdAt: at(0) }), (t) => t.tenant_id)

const newUser = (tenantId: Tenant.TenantId, email: string, offset: number, overrides: Partial<User.User> = {}) =>
  Effect.map(Ids.uuidv7, (id): User.User => ({
    user_id: id as User.UserId,
    tenant_id: tenantId,
    email,
    name: "Ada Lovelace",
    status: "active",
    roles: ["member"],
    external_id: null,
    user_name: null,
    created_at: at(offset),
    updated_at: at(offset),
    ...overrides
  }))

const makeUser = (tenantId: Tenant.TenantId, email: string, offset: number, overrides: Partial<User.User> = {}) =>
  Effect.gen(function*() {
    const user = yield* newUser(tenantId, email, offset, overrides)
    assert.strictEqual(yield* (yield* DirectoryStore.DirectoryStore).insertUser(user), "written")
    return user
  })

const makeGroup = (tenantId: Tenant.TenantId, kind: Group.GroupKind, name: string, offset: number) =>
  Effect.gen(function*() {
    const group: Group.Group = {
      group_id: (yield* Ids.uuidv7) as Group.GroupId,
      tenant_id: tenantId,
      kind,
      name,
      source: "manual",
      external_id: null,
      created_at: at(offset),
      updated_at: at(offset)
    }
    yield* (yield* DirectoryStore.DirectoryStore).insertGroup(group)
    return group
  })

const page: Pagination.PageQuery<"created_at"> = {
  take: 100,
  sort: { field: "created_at", direction: "desc" },
  after: undefined,
  createdAtOrBefore: new Date(8_000_000_000_000)
}

/** Registers the directory tests inside a store contract's layer. */
export const directoryStoreContract = (it: Vitest.MethodsNonLive<Stores>): void => {
  it.effect("invitations: found by id in their tenant, by token hash anywhere; updates only from the state they read", () =>
    Effect.gen(function*() {
      const store = yield* InvitationStore.InvitationStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const invitation = (email: string, offset: number): Invitation.Invitation => ({
        invitation_id: crypto.randomUUID() as Invitation.InvitationId,
        tenant_id: tenant,
        email,
        name: null,
        status: "pending",
        token_hash: `hash-${crypto.randomUUID()}`,
        invited_by: "admin",
        expires_at: at(offset + 604_800_000),
        user_id: null,
        created_at: at(offset),
        updated_at: at(offset)
      })
      const first = invitation("guest@example.com", 1_000)
      const second = invitation("guest@example.com", 2_000)
      const third = invitation("other@example.com", 3_000)
      for (const i of [first, second, third]) yield* store.insert(i)
      assert.deepStrictEqual(yield* store.find(tenant, first.invitation_id), first)
      assert.strictEqual(yield* store.find(other, first.invitation_id), undefined)
      assert.deepStrictEqual(yield* store.findByTokenHash(second.token_hash), second)
      assert.strictEqual(yield* store.findByTokenHash("no-such-hash"), undefined)
      assert.deepStrictEqual(yield* store.findPending(tenant, "guest@example.com"), second)
      assert.strictEqual(yield* store.findPending(other, "guest@example.com"), undefined)
      assert.deepStrictEqual((yield* store.list(tenant, page)).map((i) => i.invitation_id), [third, second, first].map((i) => i.invitation_id))
      const accepted: Invitation.Invitation = { ...second, status: "accepted", updated_at: at(5_000) }
      assert.isTrue(yield* store.update(accepted, second.updated_at))
      // A second writer that read the same state loses.
      assert.isFalse(yield* store.update({ ...second, status: "revoked", updated_at: at(5_001) }, second.updated_at))
      assert.deepStrictEqual(yield* store.find(tenant, second.invitation_id), accepted)
      assert.deepStrictEqual(yield* store.findPending(tenant, "guest@example.com"), first)
      assert.isFalse(yield* store.update({ ...first, tenant_id: other }, first.updated_at))
    }))

  it.effect("users round-trip, are scoped by tenant, found by e-mail and listed newest first", () =>
    Effect.gen(function*() {
      const store = yield* DirectoryStore.DirectoryStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const ada = yield* makeUser(tenant, "ada@example.com", 1_000, {
        roles: ["admin", "member"],
        external_id: "00u1",
        user_name: "Ada_Lovelace_7"
      })
      const bob = yield* makeUser(tenant, "bob@example.com", 2_000)
      assert.deepStrictEqual(yield* store.findUser(tenant, ada.user_id), ada)
      assert.strictEqual(yield* store.findUser(other, ada.user_id), undefined)
      assert.strictEqual(yield* store.findUser(tenant, "not-a-uuid" as User.UserId), undefined)
      assert.deepStrictEqual(yield* store.findUserBy(tenant, { email: "bob@example.com" }), bob)
      assert.strictEqual(yield* store.findUserBy(other, { email: "bob@example.com" }), undefined)
      assert.deepStrictEqual(yield* store.findUserBy(tenant, { userName: "ada_lovelace_7" }), ada)
      assert.deepStrictEqual(yield* store.findUserBy(tenant, { externalId: "00u1" }), ada)
      assert.strictEqual(yield* store.findUserBy(tenant, { externalId: "00U1" }), undefined)
      assert.strictEqual(yield* store.findUserBy(other, { userName: "Ada_Lovelace_7" }), undefined)
      assert.strictEqual(yield* store.findUserBy(tenant, { userName: "bob@example.com" }), undefined)
      assert.deepStrictEqual((yield* store.listUsers(tenant, page)).map((u) => u.user_id), [bob.user_id, ada.user_id])
      const rest = yield* store.listUsers(tenant, { ...page, after: { value: bob.created_at.getTime(), id: bob.user_id } })
      assert.deepStrictEqual(rest.map((u) => u.user_id), [ada.user_id])
      assert.deepStrictEqual(yield* store.listUsers(other, page), [])
      assert.strictEqual(yield* store.countUsers(tenant), 2)
      assert.strictEqual(yield* store.countUsers(other), 0)
      // SCIM's users: made over SCIM (a user name), no admin; Ada is an admin, Bob was made by hand.
      assert.deepStrictEqual(yield* store.listScimUsers(tenant, page), [])
      const carl = yield* makeUser(tenant, "carl@example.com", 3_000, { user_name: "carl" })
      const dora = yield* makeUser(tenant, "dora@example.com", 4_000, { user_name: "dora", status: "deprovisioned" })
      assert.deepStrictEqual((yield* store.listScimUsers(tenant, page)).map((u) => u.user_id), [dora.user_id, carl.user_id])
      const after = yield* store.listScimUsers(tenant, { ...page, after: { value: dora.created_at.getTime(), id: dora.user_id } })
      assert.deepStrictEqual(after.map((u) => u.user_id), [carl.user_id])
      assert.deepStrictEqual([yield* store.countScimUsers(tenant), yield* store.countScimUsers(other)], [2, 0])
      assert.deepStrictEqual(yield* store.listScimUsers(other, page), [])
    }))

  it.effect("an e-mail is one user's per tenant, even when two are created at once", () =>
    Effect.gen(function*() {
      const store = yield* DirectoryStore.DirectoryStore
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
      const store = yield* DirectoryStore.DirectoryStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const ada = yield* makeUser(tenant, "ada@example.org", 1_000)
      yield* makeUser(tenant, "bob@example.org", 2_000)
      const gone: User.User = { ...ada, status: "deprovisioned", name: "Ada L.", roles: ["admin"], updated_at: at(5_000) }
      assert.strictEqual(yield* store.updateUser(gone), "written")
      assert.deepStrictEqual(yield* store.findUser(tenant, ada.user_id), gone)
      assert.strictEqual(yield* store.updateUser({ ...gone, email: "bob@example.org" }), "email-taken")
      assert.deepStrictEqual(yield* store.findUser(tenant, ada.user_id), gone)
      const renamed = { ...gone, email: "ada.l@example.org" }
      assert.strictEqual(yield* store.updateUser(renamed), "written")
      assert.deepStrictEqual(yield* store.findUserBy(tenant, { email: "ada.l@example.org" }), renamed)
      assert.strictEqual(yield* store.findUserBy(tenant, { email: "ada@example.org" }), undefined)
      assert.strictEqual(yield* store.updateUser({ ...gone, tenant_id: other }), "missing")
    }))

  it.effect("groups and memberships: by kind, scoped by tenant, idempotent, listed, and gone with their group", () =>
    Effect.gen(function*() {
      const store = yield* DirectoryStore.DirectoryStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const ada = yield* makeUser(tenant, "ada@example.net", 1_000)
      const bob = yield* makeUser(tenant, "bob@example.net", 2_000)
      const stranger = yield* makeUser(other, "eve@example.net", 2_500)
      const finance = yield* makeGroup(tenant, "team", "Finance", 3_000)
      const sales = yield* makeGroup(tenant, "team", "Sales", 4_000)
      const cfo = yield* makeGroup(tenant, "executive_role", "CFO", 4_500)
      assert.deepStrictEqual(yield* store.findGroup(tenant, "team", finance.group_id), finance)
      assert.strictEqual(yield* store.findGroup(tenant, "executive_role", finance.group_id), undefined)
      assert.strictEqual(yield* store.findGroup(other, "team", finance.group_id), undefined)
      assert.deepStrictEqual((yield* store.listGroups(tenant, "team", page)).map((g) => g.name), ["Sales", "Finance"])
      assert.deepStrictEqual((yield* store.listGroups(tenant, "executive_role", page)).map((g) => g.name), ["CFO"])
      assert.deepStrictEqual(
        [yield* store.countGroups(tenant, "team", "manual"), yield* store.countGroups(tenant, "team", "scim"), yield* store.countGroups(tenant, "executive_role", "manual")],
        [2, 0, 1]
      )
      assert.deepStrictEqual(yield* store.findGroupBy(tenant, "team", "manual", { name: "Sales" }), sales)
      assert.strictEqual(yield* store.findGroupBy(tenant, "team", "scim", { name: "Sales" }), undefined)
      assert.strictEqual(yield* store.findGroupBy(tenant, "executive_role", "manual", { name: "Sales" }), undefined)
      assert.strictEqual(yield* store.findGroupBy(other, "team", "manual", { name: "Sales" }), undefined)
      const synced = { ...sales, external_id: "okta-g1", updated_at: at(4_100) }
      assert.isTrue(yield* store.updateGroup(synced))
      assert.deepStrictEqual(yield* store.findGroupBy(tenant, "team", "manual", { externalId: "okta-g1" }), synced)
      assert.isTrue(yield* store.addMember(tenant, finance.group_id, ada.user_id))
      assert.isFalse(yield* store.addMember(tenant, finance.group_id, ada.user_id))
      assert.isTrue(yield* store.addMember(tenant, finance.group_id, bob.user_id))
      assert.isTrue(yield* store.addMember(tenant, sales.group_id, ada.user_id))
      assert.isTrue(yield* store.addMember(tenant, cfo.group_id, ada.user_id))
      // Another tenant's user or group cannot be joined.
      assert.isFalse(yield* store.addMember(tenant, finance.group_id, stranger.user_id))
      assert.isFalse(yield* store.addMember(other, finance.group_id, stranger.user_id))
      assert.deepStrictEqual((yield* store.listMembers(tenant, finance.group_id, page)).map((u) => u.email), ["bob@example.net", "ada@example.net"])
      assert.deepStrictEqual(yield* store.listMembers(other, finance.group_id, page), [])
      const memberships = yield* store.membershipsOf(tenant, ada.user_id)
      assert.deepStrictEqual([...memberships.teams].sort(), [finance.group_id, sales.group_id].sort())
      assert.deepStrictEqual(memberships.roles, [cfo.group_id])
      assert.deepStrictEqual(yield* store.membershipsOf(other, ada.user_id), { teams: [], roles: [] })
      assert.isFalse(yield* store.removeMember(other, finance.group_id, bob.user_id))
      assert.isTrue(yield* store.removeMember(tenant, finance.group_id, bob.user_id))
      assert.isFalse(yield* store.removeMember(tenant, finance.group_id, bob.user_id))
      const renamed = { ...finance, name: "Finance & Ops", updated_at: at(6_000) }
      assert.isTrue(yield* store.updateGroup(renamed))
      assert.isFalse(yield* store.updateGroup({ ...renamed, tenant_id: other }))
      assert.deepStrictEqual(yield* store.findGroup(tenant, "team", finance.group_id), renamed)
      assert.isFalse(yield* store.removeGroup(other, finance.group_id))
      assert.isTrue(yield* store.removeGroup(tenant, finance.group_id))
      assert.isTrue(yield* store.removeGroup(tenant, cfo.group_id))
      assert.deepStrictEqual(yield* store.membershipsOf(tenant, ada.user_id), { teams: [synced.group_id], roles: [] })
      assert.deepStrictEqual(yield* store.listMembers(tenant, finance.group_id, page), [])
    }))

  it.effect("searching people: active users by name or e-mail, groups by name, case-insensitively, prefix matches first, scoped by tenant", () =>
    Effect.gen(function*() {
      const store = yield* DirectoryStore.DirectoryStore
      const tenant = yield* makeTenant
      const other = yield* makeTenant
      const ann = yield* makeUser(tenant, "ann@example.com", 1_000, { name: "Ann Bright" })
      const joanna = yield* makeUser(tenant, "jo@example.com", 2_000, { name: "Joanna Annersley" })
      const byMail = yield* makeUser(tenant, "annex@corp.example", 3_000, { name: "Zed" })
      yield* makeUser(tenant, "anne@example.com", 4_000, { name: "Anne Gone", status: "deprovisioned" })
      yield* makeUser(tenant, "x_y%@example.com", 4_500, { name: "Percent" })
      yield* makeUser(other, "annie@example.com", 5_000, { name: "Annie Elsewhere" })
      const planning = yield* makeGroup(tenant, "team", "Planning", 6_000)
      const annual = yield* makeGroup(tenant, "executive_role", "Annual Reviewer", 7_000)
      yield* makeGroup(other, "team", "Annex", 8_000)
      const names = (found: ReadonlyArray<{ readonly name: string }>) => found.map((f) => f.name)
      // Prefix matches (of a name or an address) first, by name; then the rest; never the deprovisioned or another tenant's.
      assert.deepStrictEqual(names(yield* store.searchUsers(tenant, "ann", 10)), [ann.name, byMail.name, joanna.name])
      assert.deepStrictEqual(names(yield* store.searchUsers(tenant, "ann", 2)), [ann.name, byMail.name])
      assert.deepStrictEqual(yield* store.searchUsers(tenant, "corp.example", 10), [byMail])
      assert.deepStrictEqual(names(yield* store.searchGroups(tenant, "ann", 10)), [annual.name, planning.name])
      assert.deepStrictEqual(names(yield* store.searchGroups(tenant, "ann", 1)), [annual.name])
      // The text is matched as it is: `%` and `_` are no wildcards.
      assert.deepStrictEqual(names(yield* store.searchUsers(tenant, "_y%", 10)), ["Percent"])
      assert.deepStrictEqual(yield* store.searchUsers(tenant, "%", 10).pipe(Effect.map(names)), ["Percent"])
      assert.deepStrictEqual(yield* store.searchUsers(tenant, "zzz", 10), [])
      assert.deepStrictEqual(yield* store.searchUsers(tenant, "", 10), [])
      assert.deepStrictEqual(yield* store.searchGroups(tenant, "", 10), [])
    }))
}
