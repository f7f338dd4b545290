/**
 * What a SCIM token may not touch (decision 0012), over real HTTP, on the
 * in-memory stores, PGlite and PostgreSQL: users made by hand and every
 * tenant admin are invisible to it (404, absent from lists and filters,
 * never adopted by a POST with their address, never a group member it
 * adds or removes); so are teams and executive roles made by hand, even
 * when named like its own groups; and changing a user's e-mail ends their
 * console sessions and spends their pending sign-in links. The attack it
 * answers: SCIM replaces an admin's e-mail with its own, asks a sign-in
 * link, and holds an admin's console.
 */
import { Mailer } from "@analytics/core"
import { problemCode, start, type TestServer } from "./TestServer.ts"
import { assert, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { onEveryStore } from "./EveryStore.ts"
import { linkTokenFor } from "./ConsoleSignIn.ts"

const scim = "application/scim+json"
const patchOp = "urn:ietf:params:scim:api:messages:2.0:PatchOp"

const send = (server: TestServer, token: string, method: string, path: string, body?: unknown) =>
  server.request(method, `/scim/v2${path}`, { token, body, headers: { "content-type": scim } })

/** A server whose mail is kept, a tenant, its admin token and a SCIM token. */
const setup = (stores: Parameters<typeof start>[0]) =>
  Effect.gen(function*() {
    const memory = Mailer.makeMemory()
    const server = yield* start(stores, { mailer: Layer.succeed(Mailer.Mailer, memory.mailer) })
    const { token: admin } = yield* server.tenant("scale")
    const ok = (method: string, path: string, body?: unknown) =>
      Effect.map(server.request(method, path, { token: admin, body }), (r) => {
        assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
        return r.body
      })
    const idp = (yield* ok("POST", "/v1/scim-tokens")).token as string
    return { server, admin, ok, idp, mails: memory.sent }
  })

/** Signs `email` in to the console by an e-mailed link: the session cookie. */
const signIn = (server: TestServer, mails: ReadonlyArray<Mailer.Mail>, email: string) =>
  Effect.gen(function*() {
    assert.strictEqual((yield* server.request("POST", "/api/session/sign-in-links", { body: { email } })).status, 202)
    const opened = yield* server.request("POST", "/api/session", { body: { link_token: linkTokenFor(mails, email) } })
    assert.strictEqual(opened.status, 200, opened.text)
    const cookie = opened.headers.getSetCookie().find((c) => c.startsWith("analytics_session="))!.split(";")[0]
    return { cookie, roles: opened.body.roles as ReadonlyArray<string> }
  })

const me = (server: TestServer, cookie: string) => server.request("GET", "/api/session", { headers: { cookie } })

onEveryStore("SCIM's boundaries", (stores) => {
  it.live("an admin and a user made by hand are invisible to SCIM: no takeover by e-mail, no deprovisioning, no adoption", () =>
    Effect.gen(function*() {
      const { server, ok, idp, mails } = yield* setup(stores())
      const boss = yield* ok("POST", "/v1/users", { email: "boss@example.com", name: "Boss", roles: ["admin"] })
      const hand = yield* ok("POST", "/v1/users", { email: "hand@example.com", name: "Hand", roles: ["member"] })
      const provisioned = yield* send(server, idp, "POST", "/Users", { userName: "okta@example.com", externalId: "00u1" })
      assert.strictEqual(provisioned.status, 201, provisioned.text)

      // Lists and filters show only the identity provider's user.
      const listed = yield* send(server, idp, "GET", "/Users")
      assert.deepStrictEqual([listed.body.totalResults, listed.body.Resources.map((u: any) => u.id)], [1, [provisioned.body.id]])
      for (const victim of [boss, hand]) {
        const byName = yield* send(server, idp, "GET", `/Users?filter=${encodeURIComponent(`userName eq "${victim.email}"`)}`)
        assert.strictEqual(byName.body.totalResults, 0, byName.text)
        // 404 on every verb, as for an id that does not exist; nothing changes.
        assert.strictEqual((yield* send(server, idp, "GET", `/Users/${victim.user_id}`)).status, 404)
        const takeover = yield* send(server, idp, "PATCH", `/Users/${victim.user_id}`, {
          schemas: [patchOp],
          Operations: [{ op: "replace", path: "emails[type eq \"work\"].value", value: "attacker@evil.example" }]
        })
        assert.strictEqual(takeover.status, 404, takeover.text)
        assert.strictEqual((yield* send(server, idp, "PUT", `/Users/${victim.user_id}`, { userName: "attacker@evil.example" })).status, 404)
        assert.strictEqual((yield* send(server, idp, "DELETE", `/Users/${victim.user_id}`)).status, 404)
        const now = yield* ok("GET", `/v1/users/${victim.user_id}`)
        assert.deepStrictEqual([now.email, now.status], [victim.email, "active"])
        // A POST with their address adopts nobody: 409, the account untouched.
        const adopt = yield* send(server, idp, "POST", "/Users", { userName: victim.email, externalId: "evil", displayName: "Mallory" })
        assert.deepStrictEqual([adopt.status, adopt.body.scimType], [409, "uniqueness"], adopt.text)
        const after = yield* ok("GET", `/v1/users/${victim.user_id}`)
        assert.deepStrictEqual([after.name, after.external_id, after.status], [victim.name, null, "active"])
      }
      // No sign-in link for the attacker's address: it is nobody's.
      assert.strictEqual((yield* server.request("POST", "/api/session/sign-in-links", { body: { email: "attacker@evil.example" } })).status, 202)
      assert.isFalse(mails.some((m) => m.to.includes("attacker@evil.example")))

      // SCIM sets no service role: its users are members, whatever it sends.
      const roles = yield* send(server, idp, "POST", "/Users", { userName: "r@example.com", roles: [{ value: "admin" }] })
      assert.deepStrictEqual((yield* ok("GET", `/v1/users/${roles.body.id}`)).roles, ["member"])
      // A provisioned user an admin makes an admin leaves SCIM's hands.
      yield* ok("PATCH", `/v1/users/${provisioned.body.id}`, { roles: ["admin"] })
      assert.strictEqual((yield* send(server, idp, "GET", `/Users/${provisioned.body.id}`)).status, 404)
      assert.strictEqual((yield* send(server, idp, "DELETE", `/Users/${provisioned.body.id}`)).status, 404)
      assert.strictEqual((yield* send(server, idp, "GET", `/Users?filter=${encodeURIComponent("externalId eq \"00u1\"")}`)).body.totalResults, 0)
      assert.strictEqual((yield* ok("GET", `/v1/users/${provisioned.body.id}`)).status, "active")
      assert.deepStrictEqual((yield* send(server, idp, "GET", "/Users")).body.Resources.map((u: any) => u.id), [roles.body.id])
    }).pipe(Effect.scoped))

  it.live("groups: teams and roles made by hand are invisible; SCIM's groups take no admin or hand-made member", () =>
    Effect.gen(function*() {
      const { server, ok, idp } = yield* setup(stores())
      const boss = yield* ok("POST", "/v1/users", { email: "boss@example.com", name: "Boss", roles: ["admin"] })
      const team = yield* ok("POST", "/v1/teams", { name: "Finance" })
      const role = yield* ok("POST", "/v1/executive-roles", { name: "CFO" })
      yield* ok("POST", `/v1/teams/${team.team_id}/members`, { user_id: boss.user_id })
      for (const id of [team.team_id, role.role_id]) {
        assert.strictEqual((yield* send(server, idp, "GET", `/Groups/${id}`)).status, 404)
        assert.strictEqual((yield* send(server, idp, "PATCH", `/Groups/${id}`, { schemas: [patchOp], Operations: [{ op: "replace", value: { displayName: "Mine" } }] })).status, 404)
        assert.strictEqual((yield* send(server, idp, "DELETE", `/Groups/${id}`)).status, 404)
      }
      // SCIM's own group named like the admin's team: made, and found by that name, not the admin's.
      const group = yield* send(server, idp, "POST", "/Groups", { displayName: "Finance", members: [] })
      assert.strictEqual(group.status, 201, group.text)
      const byName = yield* send(server, idp, "GET", `/Groups?filter=${encodeURIComponent("displayName eq \"Finance\"")}`)
      assert.deepStrictEqual(byName.body.Resources.map((g: any) => g.id), [group.body.id])
      assert.deepStrictEqual((yield* send(server, idp, "GET", "/Groups")).body.Resources.map((g: any) => g.id), [group.body.id])
      assert.strictEqual((yield* send(server, idp, "POST", "/Groups", { displayName: "Finance" })).status, 409)
      // An admin is no member SCIM may add.
      const add = yield* send(server, idp, "PATCH", `/Groups/${group.body.id}`, { schemas: [patchOp], Operations: [{ op: "add", path: "members", value: [{ value: boss.user_id }] }] })
      assert.deepStrictEqual([add.status, add.body.scimType], [400, "invalidValue"], add.text)
      assert.strictEqual((yield* send(server, idp, "POST", "/Groups", { displayName: "Other", members: [{ value: boss.user_id }] })).status, 400)
      assert.deepStrictEqual((yield* ok("GET", `/v1/teams/${group.body.id}/members`)).data, [])
      // The admin's team and its members are as the admin left them.
      assert.deepStrictEqual((yield* ok("GET", `/v1/teams/${team.team_id}`)).name, "Finance")
      assert.deepStrictEqual((yield* ok("GET", `/v1/teams/${team.team_id}/members`)).data.map((u: any) => u.user_id), [boss.user_id])
    }).pipe(Effect.scoped))

  it.live("a new e-mail over SCIM ends the user's console sessions and spends their pending sign-in links", () =>
    Effect.gen(function*() {
      const { server, ok, idp, mails } = yield* setup(stores())
      const created = yield* send(server, idp, "POST", "/Users", { userName: "ada@example.com", externalId: "00u2" })
      const id = created.body.id as string
      const { cookie } = yield* signIn(server, mails, "ada@example.com")
      assert.strictEqual((yield* me(server, cookie)).status, 200)
      // A link asked before the change, not yet used.
      assert.strictEqual((yield* server.request("POST", "/api/session/sign-in-links", { body: { email: "ada@example.com" } })).status, 202)
      const pending = linkTokenFor(mails, "ada@example.com")
      // A change of name alone ends nothing.
      const renamed = yield* send(server, idp, "PATCH", `/Users/${id}`, { schemas: [patchOp], Operations: [{ op: "replace", path: "displayName", value: "Ada L." }] })
      assert.strictEqual(renamed.status, 200, renamed.text)
      assert.strictEqual((yield* me(server, cookie)).status, 200)

      const changed = yield* send(server, idp, "PATCH", `/Users/${id}`, {
        schemas: [patchOp],
        Operations: [{ op: "replace", path: "emails[type eq \"work\"].value", value: "ada.new@example.com" }]
      })
      assert.strictEqual(changed.status, 200, changed.text)
      const ended = yield* me(server, cookie)
      assert.strictEqual(ended.status, 401, ended.text)
      assert.strictEqual(problemCode(ended), "auth/unauthenticated")
      const spent = yield* server.request("POST", "/api/session", { body: { link_token: pending } })
      assert.strictEqual(problemCode(spent), "auth/sign-in-link-invalid")
      // The session's end is in the audit log, by the identity provider.
      const audit = yield* ok("GET", "/v1/audit-log?action=session.ended")
      assert.deepStrictEqual(audit.data.map((e: any) => [e.detail.reason, e.actor.type]), [["email_changed", "scim"]])
      // The new address signs in afresh; a PUT changing it again ends that session too.
      const fresh = yield* signIn(server, mails, "ada.new@example.com")
      assert.strictEqual((yield* me(server, fresh.cookie)).status, 200)
      assert.strictEqual((yield* send(server, idp, "PUT", `/Users/${id}`, { userName: "ada.third@example.com", externalId: "00u2" })).status, 200)
      assert.strictEqual((yield* me(server, fresh.cookie)).status, 401)
    }).pipe(Effect.scoped))
})
