/**
 * SCIM 2.0 provisioning over real HTTP (in-memory stores), with the request
 * sequences Okta and Microsoft Entra send.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode, start, type TestServer } from "./TestServer.ts"
import { ScimPayloads } from "@analytics/testing"

const scim = "application/scim+json"

/** A tenant, its admin token, and a SCIM token issued by the admin. */
const provisioning = (server: TestServer) =>
  Effect.gen(function*() {
    const { token } = yield* server.tenant("scale")
    const issued = yield* server.request("POST", "/v1/scim-tokens", { token })
    assert.strictEqual(issued.status, 201, issued.text)
    assert.strictEqual(issued.body.scim_url, "http://127.0.0.1/scim/v2")
    return { admin: token, idp: issued.body.token as string }
  })

const send = (server: TestServer, token: string, method: string, path: string, body?: unknown) =>
  server.request(method, `/scim/v2${path}`, { token, body, headers: { "content-type": scim } })

/** Asserts a SCIM error body and returns its scimType (or the status when none). */
const scimError = (response: { status: number; headers: Headers; body: any; text: string }) => {
  assert.include(response.headers.get("content-type") ?? "", scim, response.text)
  assert.deepStrictEqual(response.body.schemas, ["urn:ietf:params:scim:api:messages:2.0:Error"])
  assert.strictEqual(response.body.status, String(response.status))
  return response.body.scimType ?? response.status
}

describe("SCIM 2.0", () => {
  it.live("Okta: look up, create, deactivate a user; create a group, add and remove members, rename", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { admin, idp } = yield* provisioning(server)
      const hook = yield* server.request("POST", "/v1/webhooks", {
        token: admin,
        body: { url: "https://hooks.example.com/in", events: ["scim.user.provisioned", "scim.user.deprovisioned"] }
      })
      const filter = encodeURIComponent("userName eq \"test.user@okta.local\"")
      const none = yield* send(server, idp, "GET", `/Users?filter=${filter}&startIndex=1&count=100`)
      assert.strictEqual(none.status, 200)
      assert.include(none.headers.get("content-type") ?? "", scim)
      assert.deepInclude(none.body, { totalResults: 0, startIndex: 1, Resources: [] })
      const { oktaUser } = ScimPayloads
      const created = yield* send(server, idp, "POST", "/Users", oktaUser)
      assert.strictEqual(created.status, 201, created.text)
      assert.deepInclude(created.body, { userName: "test.user@okta.local", displayName: "Test User", active: true, externalId: "00ujl29u0le5T6Aj10h7" })
      const id = created.body.id
      assert.strictEqual(created.body.meta.location, `http://127.0.0.1/scim/v2/Users/${id}`)
      assert.strictEqual(scimError(yield* send(server, idp, "POST", "/Users", oktaUser)), "uniqueness")
      const found = yield* send(server, idp, "GET", `/Users?filter=${filter}&startIndex=1&count=100`)
      assert.deepStrictEqual(found.body.Resources.map((u: any) => u.id), [id])
      // The user is in the directory, for admins.
      const listed = yield* server.request("GET", "/v1/users", { token: admin })
      assert.deepStrictEqual(listed.body.data.map((u: any) => [u.email, u.external_id, u.status]), [["test.user@okta.local", "00ujl29u0le5T6Aj10h7", "active"]])
      // The user's personal token opens the API while the identity provider keeps them active.
      const personal = (yield* server.request("POST", `/v1/users/${id}/tokens`, { token: admin })).body.token
      assert.strictEqual((yield* server.request("GET", "/v1/workspaces", { token: personal })).status, 200)

      const deactivated = yield* send(server, idp, "PATCH", `/Users/${id}`, {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        Operations: [{ op: "replace", value: { active: false } }]
      })
      assert.strictEqual(deactivated.status, 200, deactivated.text)
      assert.isFalse(deactivated.body.active)
      assert.strictEqual((yield* server.request("GET", `/v1/users/${id}`, { token: admin })).body.status, "deprovisioned")
      // Deprovisioned: no access from the very next request, and no new token.
      const refused = yield* server.request("GET", "/v1/workspaces", { token: personal })
      assert.strictEqual(refused.status, 401)
      assert.strictEqual(problemCode(refused), "auth/unauthenticated")
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/users/${id}/tokens`, { token: admin })), "directory/user-deprovisioned")
      const events = yield* server.request("GET", `/v1/webhooks/${hook.body.webhook_id}/deliveries`, { token: admin })
      assert.deepStrictEqual(events.body.data.map((d: any) => d.event_type), ["scim.user.deprovisioned", "scim.user.provisioned"])
      assert.deepStrictEqual(events.body.data[1].event.data, { user_id: id, user_name: "test.user@okta.local", email: "test.user@okta.local", external_id: "00ujl29u0le5T6Aj10h7" })
      assert.strictEqual(events.body.data[1].event.workspace_id, "*", "a tenant-wide event names every workspace")

      const group = yield* send(server, idp, "POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Test SCIMv2", members: [] })
      assert.strictEqual(group.status, 201, group.text)
      const gid = group.body.id
      const patch = (Operations: Array<unknown>) => send(server, idp, "PATCH", `/Groups/${gid}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations })
      const added = yield* patch([{ op: "add", path: "members", value: [{ value: id, display: "test.user@okta.local" }] }])
      assert.deepStrictEqual(added.body.members.map((m: any) => m.value), [id])
      const removed = yield* patch([{ op: "remove", path: `members[value eq "${id}"]` }])
      assert.deepStrictEqual(removed.body.members, [])
      const renamed = yield* patch([{ op: "replace", value: { id: gid, displayName: "Test SCIMv2 renamed" } }])
      assert.strictEqual(renamed.body.displayName, "Test SCIMv2 renamed")
      // A synced group is a team, read-only for admins.
      const teams = yield* server.request("GET", "/v1/teams", { token: admin })
      assert.deepStrictEqual(teams.body.data.map((t: any) => [t.team_id, t.name, t.source]), [[gid, "Test SCIMv2 renamed", "scim"]])
      assert.strictEqual(problemCode(yield* server.request("PATCH", `/v1/teams/${gid}`, { token: admin, body: { name: "Mine" } })), "directory/managed-by-identity-provider")
      assert.strictEqual((yield* send(server, idp, "DELETE", `/Groups/${gid}`)).status, 204)
      assert.strictEqual(scimError(yield* send(server, idp, "GET", `/Groups/${gid}`)), 404)
    }).pipe(Effect.scoped))

  it.live("Microsoft Entra: a userName that is not the e-mail, string booleans, member lists in PATCH", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { idp } = yield* provisioning(server)
      const userName = "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1"
      const created = yield* send(server, idp, "POST", "/Users", {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
        externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
        userName,
        active: true,
        emails: [{ primary: true, type: "work", value: "Test_User_fd0ea19b@testuser.com" }],
        meta: { resourceType: "User" },
        name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
        roles: []
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.strictEqual(created.body.userName, userName)
      const id = created.body.id
      const byName = yield* send(server, idp, "GET", `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`)
      assert.deepStrictEqual(byName.body.Resources.map((u: any) => u.id), [id])
      const byExternal = yield* send(server, idp, "GET", `/Users?filter=${encodeURIComponent("externalId eq \"0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef\"")}`)
      assert.strictEqual(byExternal.body.totalResults, 1)
      const updated = yield* send(server, idp, "PATCH", `/Users/${id}`, {
        schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
        Operations: [
          { op: "Replace", path: "displayName", value: "Updated Name" },
          { op: "Replace", path: "emails[type eq \"work\"].value", value: "updated@testuser.com" },
          { op: "Replace", path: "active", value: "False" }
        ]
      })
      assert.deepInclude(updated.body, { displayName: "Updated Name", active: false })
      assert.strictEqual(updated.body.emails[0].value, "updated@testuser.com")

      const group = yield* send(server, idp, "POST", "/Groups", { displayName: "Group1DisplayName", externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159", members: [] })
      const gid = group.body.id
      const patch = (Operations: Array<unknown>) => send(server, idp, "PATCH", `/Groups/${gid}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations })
      assert.deepStrictEqual((yield* patch([{ op: "Add", path: "members", value: [{ value: id }] }])).body.members.map((m: any) => m.value), [id])
      assert.deepStrictEqual((yield* patch([{ op: "Remove", path: "members", value: [{ value: id }] }])).body.members, [])
      const byDisplay = yield* send(server, idp, "GET", `/Groups?filter=${encodeURIComponent("displayName eq \"Group1DisplayName\"")}`)
      assert.deepStrictEqual(byDisplay.body.Resources.map((g: any) => g.id), [gid])
      // DELETE deprovisions.
      assert.strictEqual((yield* send(server, idp, "DELETE", `/Users/${id}`)).status, 204)
      assert.isFalse((yield* send(server, idp, "GET", `/Users/${id}`)).body.active)
    }).pipe(Effect.scoped))

  it.live("refusals: no token, an admin token, a SCIM token on /v1; bad filters, bodies and ids; discovery documents", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { admin, idp } = yield* provisioning(server)
      assert.strictEqual(scimError(yield* server.request("GET", "/scim/v2/Users")), 401)
      assert.strictEqual(scimError(yield* send(server, admin, "GET", "/Users")), 403)
      const refused = yield* server.request("GET", "/v1/workspaces", { token: idp })
      assert.strictEqual(refused.status, 403)
      assert.strictEqual(problemCode(refused), "auth/forbidden")
      assert.strictEqual(scimError(yield* send(server, idp, "GET", `/Users?filter=${encodeURIComponent("userName sw \"a\"")}`)), "invalidFilter")
      assert.strictEqual(scimError(yield* send(server, idp, "POST", "/Users", "{not json")), "invalidSyntax")
      assert.strictEqual(scimError(yield* send(server, idp, "POST", "/Users", { userName: "no-address" })), "invalidValue")
      assert.strictEqual(scimError(yield* send(server, idp, "GET", "/Users/not-a-user")), 404)
      assert.strictEqual(scimError(yield* send(server, idp, "PATCH", `/Users/${crypto.randomUUID()}`, { Operations: [{ op: "replace", value: { active: false } }] })), 404)
      assert.strictEqual(scimError(yield* send(server, idp, "POST", "/Groups", { displayName: "G", members: [{ value: crypto.randomUUID() }] })), "invalidValue")
      assert.strictEqual((yield* send(server, idp, "GET", "/Groups")).body.totalResults, 0)
      // Paging without a filter: startIndex and count over the tenant's users, totalResults counting them all.
      for (const n of [1, 2, 3]) yield* send(server, idp, "POST", "/Users", { userName: `u${n}@example.com` })
      const paged = yield* send(server, idp, "GET", "/Users?startIndex=2&count=1")
      assert.deepInclude(paged.body, { totalResults: 3, startIndex: 2, itemsPerPage: 1 })
      assert.strictEqual(paged.body.Resources[0].userName, "u2@example.com")
      const config = yield* server.request("GET", "/scim/v2/ServiceProviderConfig")
      assert.deepStrictEqual([config.status, config.body.patch.supported, config.body.filter.supported], [200, true, true])
      assert.deepStrictEqual((yield* server.request("GET", "/scim/v2/ResourceTypes")).body.Resources.map((r: any) => r.id), ["User", "Group"])
      assert.strictEqual((yield* server.request("GET", "/scim/v2/Schemas")).body.totalResults, 2)
      assert.strictEqual(problemCode(yield* server.request("POST", "/scim/v2/ServiceProviderConfig")), "route/method-not-allowed")
      // Tokens are listed (never shown again) and revoked.
      const second = yield* server.request("POST", "/v1/scim-tokens", { token: admin })
      const listed = yield* server.request("GET", "/v1/scim-tokens", { token: admin })
      assert.strictEqual(listed.body.data.length, 2)
      assert.notInclude(listed.text, second.body.token)
      assert.strictEqual((yield* server.request("DELETE", `/v1/scim-tokens/${second.body.token_id}`, { token: admin })).status, 204)
      assert.strictEqual(scimError(yield* send(server, second.body.token, "GET", "/Users")), 401)
      assert.strictEqual(problemCode(yield* server.request("DELETE", `/v1/scim-tokens/${second.body.token_id}`, { token: admin })), "resource/not-found")
      assert.deepStrictEqual((yield* server.request("GET", "/v1/scim-tokens", { token: admin })).body.data.length, 1)
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/scim-tokens", { token: idp })), "auth/forbidden")
    }).pipe(Effect.scoped))
})
