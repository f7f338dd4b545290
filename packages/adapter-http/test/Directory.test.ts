/**
 * The directory API over real HTTP (in-memory stores): users, teams and
 * memberships, for tenant admins only.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { Access, ApiToken, DirectoryStore, type Group, type Tenant, TenantStore } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import { problemCode, start, type TestServer } from "./TestServer.ts"

/** A token of a plain member of the tenant (no admin role). */
const memberToken = (server: TestServer, tenantId: string) =>
  Effect.gen(function*() {
    const token = yield* ApiToken.generate
    yield* Context.get(server.stores, TenantStore.TenantStore).insertToken({
      tokenId: crypto.randomUUID(),
      tenantId: tenantId as Tenant.TenantId,
      tokenHash: yield* ApiToken.hash(token),
      userId: "member-1",
      email: "member@example.com",
      roles: ["member"],
      createdAt: new Date()
    })
    return token
  })

const created = (server: TestServer, token: string, path: string, body: unknown) =>
  Effect.map(server.request("POST", path, { token, body }), (r) => {
    assert.strictEqual(r.status, 201, r.text)
    return r.body
  })

describe("directory API", () => {
  it.live("an admin creates, lists, reads and deprovisions users; e-mails are one user's per tenant, case-insensitively", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { tenantId, token } = yield* server.tenant()
      const ada = yield* created(server, token, "/v1/users", { email: "  Ada@Example.COM ", name: "Ada Lovelace", roles: ["admin"] })
      assert.deepInclude(ada, { email: "ada@example.com", name: "Ada Lovelace", status: "active", roles: ["admin"], external_id: null })
      const bob = yield* created(server, token, "/v1/users", { email: "bob@example.com", name: "Bob" })
      assert.deepStrictEqual(bob.roles, ["member"])
      const taken = yield* server.request("POST", "/v1/users", { token, body: { email: "ADA@example.com", name: "Other Ada" } })
      assert.strictEqual(taken.status, 409)
      assert.strictEqual(problemCode(taken), "directory/email-taken")
      for (const body of [{ email: "not-an-address", name: "X" }, { email: "x@example.com", name: "" }, { email: "x@example.com", name: "X", roles: ["owner"] }, { email: "x@example.com", name: "X", roles: [] }]) {
        assert.strictEqual(problemCode(yield* server.request("POST", "/v1/users", { token, body })), "request/invalid", JSON.stringify(body))
      }
      const first = yield* server.request("GET", "/v1/users?limit=1", { token })
      assert.deepStrictEqual(first.body.data.map((u: any) => u.email), ["bob@example.com"])
      const second = yield* server.request("GET", `/v1/users?limit=1&cursor=${encodeURIComponent(first.body.page.next_cursor)}`, { token })
      assert.deepStrictEqual(second.body.data.map((u: any) => u.email), ["ada@example.com"])
      // Personal tokens: issued, listed (never shown again), acting with the user's roles as they are now, revoked.
      const issued = yield* created(server, token, `/v1/users/${bob.user_id}/tokens`, {})
      const second_ = yield* created(server, token, `/v1/users/${bob.user_id}/tokens`, {})
      const tokens = yield* server.request("GET", `/v1/users/${bob.user_id}/tokens`, { token })
      // Newest first, in the list envelope (ties by id).
      const newestFirst = [issued, second_].sort((a, b) => b.created_at.localeCompare(a.created_at) || (a.token_id < b.token_id ? -1 : 1))
      assert.deepStrictEqual(tokens.body.data.map((t: any) => t.token_id), newestFirst.map((t) => t.token_id))
      assert.deepStrictEqual(tokens.body.page, { limit: 50, next_cursor: null, has_more: false })
      assert.notInclude(tokens.text, issued.token)
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/users", { token: issued.token })), "auth/forbidden")
      yield* server.request("PATCH", `/v1/users/${bob.user_id}`, { token, body: { roles: ["admin"] } })
      assert.strictEqual((yield* server.request("GET", "/v1/users", { token: issued.token })).status, 200)
      yield* server.request("PATCH", `/v1/users/${bob.user_id}`, { token, body: { roles: ["member"] } })
      assert.strictEqual((yield* server.request("DELETE", `/v1/users/${bob.user_id}/tokens/${issued.token_id}`, { token })).status, 204)
      assert.strictEqual((yield* server.request("GET", "/v1/workspaces", { token: issued.token })).status, 401)
      assert.strictEqual((yield* server.request("GET", "/v1/workspaces", { token: second_.token })).status, 200)
      assert.strictEqual(problemCode(yield* server.request("DELETE", `/v1/users/${ada.user_id}/tokens/${second_.token_id}`, { token })), "resource/not-found")
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/users/${crypto.randomUUID()}/tokens`, { token })), "resource/not-found")
      const off = yield* server.request("PATCH", `/v1/users/${bob.user_id}`, { token, body: { status: "deprovisioned", name: "Robert" } })
      assert.deepInclude(off.body, { status: "deprovisioned", name: "Robert", email: "bob@example.com" })
      assert.deepStrictEqual((yield* server.request("GET", `/v1/users/${bob.user_id}`, { token })).body, off.body)
      assert.strictEqual(problemCode(yield* server.request("PATCH", `/v1/users/${bob.user_id}`, { token, body: { email: "x@example.com" } })), "request/invalid")
      assert.strictEqual((yield* server.request("GET", "/v1/workspaces", { token: second_.token })).status, 401)
      // Only admins; another tenant sees nothing.
      const member = yield* memberToken(server, tenantId)
      const refused = yield* server.request("GET", "/v1/users", { token: member })
      assert.strictEqual(refused.status, 403)
      assert.strictEqual(problemCode(refused), "auth/forbidden")
      assert.strictEqual(problemCode(yield* server.request("POST", "/v1/users", { token: member, body: { email: "m@example.com", name: "M" } })), "auth/forbidden")
      const other = yield* server.tenant()
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/users/${ada.user_id}`, { token: other.token })), "resource/not-found")
      assert.deepStrictEqual((yield* server.request("GET", "/v1/users", { token: other.token })).body.data, [])
      yield* created(server, other.token, "/v1/users", { email: "ada@example.com", name: "Another tenant's Ada" })
    }).pipe(Effect.scoped))

  it.live("teams: create, rename, members in and out, delete; teams synced over SCIM are read-only here", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { tenantId, token } = yield* server.tenant()
      const ada = yield* created(server, token, "/v1/users", { email: "ada@example.com", name: "Ada" })
      const bob = yield* created(server, token, "/v1/users", { email: "bob@example.com", name: "Bob" })
      const team = yield* created(server, token, "/v1/teams", { name: "Finance" })
      assert.deepInclude(team, { name: "Finance", source: "manual", external_id: null })
      const renamed = yield* server.request("PATCH", `/v1/teams/${team.team_id}`, { token, body: { name: "Finance & Ops" } })
      assert.strictEqual(renamed.body.name, "Finance & Ops")
      const members = `/v1/teams/${team.team_id}/members`
      yield* created(server, token, members, { user_id: ada.user_id })
      yield* created(server, token, members, { user_id: ada.user_id })
      yield* created(server, token, members, { user_id: bob.user_id })
      assert.strictEqual(problemCode(yield* server.request("POST", members, { token, body: { user_id: crypto.randomUUID() } })), "resource/not-found")
      const listed = yield* server.request("GET", members, { token })
      assert.deepStrictEqual(listed.body.data.map((u: any) => u.email), ["bob@example.com", "ada@example.com"])
      assert.strictEqual((yield* server.request("DELETE", `${members}/${bob.user_id}`, { token })).status, 204)
      assert.strictEqual(problemCode(yield* server.request("DELETE", `${members}/${bob.user_id}`, { token })), "resource/not-found")
      assert.deepStrictEqual((yield* server.request("GET", members, { token })).body.data.map((u: any) => u.email), ["ada@example.com"])
      const teams = yield* server.request("GET", "/v1/teams", { token })
      assert.deepStrictEqual(teams.body.data.map((t: any) => t.team_id), [team.team_id])

      const store = Context.get(server.stores, DirectoryStore.DirectoryStore)
      const synced: Group.Group = {
        group_id: crypto.randomUUID() as Group.GroupId,
        tenant_id: tenantId as Tenant.TenantId,
        kind: "team",
        name: "Okta: Engineering",
        source: "scim",
        external_id: "00g1",
        created_at: new Date(),
        updated_at: new Date()
      }
      yield* store.insertGroup(synced)
      for (const [method, path, body] of [
        ["PATCH", `/v1/teams/${synced.group_id}`, { name: "Mine now" }],
        ["DELETE", `/v1/teams/${synced.group_id}`, undefined],
        ["POST", `/v1/teams/${synced.group_id}/members`, { user_id: ada.user_id }]
      ] as const) {
        const r = yield* server.request(method, path, { token, body })
        assert.strictEqual(r.status, 409, `${method} ${path}`)
        assert.strictEqual(problemCode(r), "directory/managed-by-identity-provider")
      }
      assert.strictEqual((yield* server.request("DELETE", `/v1/teams/${team.team_id}`, { token })).status, 204)
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/teams/${team.team_id}`, { token })), "resource/not-found")
      assert.deepStrictEqual(yield* store.membershipsOf(tenantId as Tenant.TenantId, ada.user_id), { teams: [], roles: [] })
    }).pipe(Effect.scoped))

  it.live("executive roles: created, held by users, kept apart from teams", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { tenantId, token } = yield* server.tenant()
      const ada = yield* created(server, token, "/v1/users", { email: "ada@example.com", name: "Ada" })
      const cfo = yield* created(server, token, "/v1/executive-roles", { name: "CFO" })
      assert.deepStrictEqual(Object.keys(cfo).sort(), ["created_at", "name", "role_id", "updated_at"])
      yield* created(server, token, `/v1/executive-roles/${cfo.role_id}/members`, { user_id: ada.user_id })
      const holders = yield* server.request("GET", `/v1/executive-roles/${cfo.role_id}/members`, { token })
      assert.deepStrictEqual(holders.body.data.map((u: any) => u.user_id), [ada.user_id])
      // A role is not a team, and the other way round.
      assert.strictEqual(problemCode(yield* server.request("GET", `/v1/teams/${cfo.role_id}`, { token })), "resource/not-found")
      assert.deepStrictEqual((yield* server.request("GET", "/v1/teams", { token })).body.data, [])
      const store = Context.get(server.stores, DirectoryStore.DirectoryStore)
      assert.deepStrictEqual(yield* store.membershipsOf(tenantId as Tenant.TenantId, ada.user_id), { teams: [], roles: [cfo.role_id] })
      assert.strictEqual((yield* server.request("PATCH", `/v1/executive-roles/${cfo.role_id}`, { token, body: { name: "Chief Financial Officer" } })).body.name, "Chief Financial Officer")
      assert.strictEqual((yield* server.request("DELETE", `/v1/executive-roles/${cfo.role_id}/members/${ada.user_id}`, { token })).status, 204)
      assert.deepStrictEqual(yield* store.membershipsOf(tenantId as Tenant.TenantId, ada.user_id), { teams: [], roles: [] })
      assert.strictEqual((yield* server.request("DELETE", `/v1/executive-roles/${cfo.role_id}`, { token })).status, 204)
    }).pipe(Effect.scoped))
})

describe("access follows the directory from one request to the next", () => {
  it.live("a team or role grant reaches a user while they are in it, and nothing once deprovisioned", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { tenantId, token } = yield* server.tenant()
      const ada = yield* created(server, token, "/v1/users", { email: "ada@example.com", name: "Ada" })
      const team = yield* created(server, token, "/v1/teams", { name: "Finance" })
      const role = yield* created(server, token, "/v1/executive-roles", { name: "CFO" })
      const grant = (principal_type: "team" | "executive_role", principal_id: string): Access.MadeGrant => ({
        grant_id: `g-${principal_type}`,
        tenant_id: tenantId as Tenant.TenantId,
        subject_type: "report",
        subject_id: "r-1",
        principal_type,
        principal_id,
        actions: ["view"],
        watermark: false,
        expires_at: null,
        revoked_at: null,
        // The tenant's admin token made them: no user of the directory, so its grants stand as an admin's.
        created_by: { type: "user", id: `admin@${tenantId}` }
      })
      const grants = [grant("team", team.team_id), grant("executive_role", role.role_id)]
      const decide = Effect.map(
        Effect.provideContext(
          Access.decideForUser(tenantId as Tenant.TenantId, ada.user_id, { type: "report", id: "r-1" }, "view", grants, new Date()),
          server.stores
        ),
        (d) => (d._tag === "Allow" ? d.grant.grant_id : d.reason)
      )
      assert.strictEqual(yield* decide, "no-grant")
      yield* created(server, token, `/v1/teams/${team.team_id}/members`, { user_id: ada.user_id })
      assert.strictEqual(yield* decide, "g-team")
      yield* server.request("DELETE", `/v1/teams/${team.team_id}/members/${ada.user_id}`, { token })
      assert.strictEqual(yield* decide, "no-grant")
      yield* created(server, token, `/v1/executive-roles/${role.role_id}/members`, { user_id: ada.user_id })
      assert.strictEqual(yield* decide, "g-executive_role")
      yield* server.request("PATCH", `/v1/users/${ada.user_id}`, { token, body: { status: "deprovisioned" } })
      assert.strictEqual(yield* decide, "deprovisioned")
      yield* server.request("PATCH", `/v1/users/${ada.user_id}`, { token, body: { status: "active" } })
      assert.strictEqual(yield* decide, "g-executive_role")
    }).pipe(Effect.scoped))
})
