/**
 * Every change the console can make to the directory through the API is in
 * the audit log with who made it and what it was made to (in-memory
 * stores, real HTTP): users (created, updated, deprovisioned, their
 * sessions ended, their tokens issued and revoked), teams and executive
 * roles (created, renamed, members added and removed, deleted),
 * invitations (created, resent, revoked, accepted) and SCIM tokens
 * (created, revoked). Never a token or secret in an entry.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { start } from "./TestServer.ts"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

describe("the directory's audit trail", () => {
  it.live("each change through the API is recorded once, with its actor and target", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const ok = (method: string, path: string, body?: unknown) =>
        Effect.map(server.request(method, path, { token, body }), (r) => {
          assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
          return r.body
        })
      const user = yield* ok("POST", "/v1/users", { email: "mia@example.com", name: "Mia" })
      yield* ok("PATCH", `/v1/users/${user.user_id}`, { roles: ["admin"] })
      const issued = yield* ok("POST", `/v1/users/${user.user_id}/tokens`)
      // Mia signs in to the console with her token: deprovisioning ends that session.
      const signedIn = yield* server.request("POST", "/api/session/token", { body: { api_token: issued.token } })
      assert.strictEqual(signedIn.status, 200, signedIn.text)
      const second = yield* ok("POST", `/v1/users/${user.user_id}/tokens`)
      yield* ok("DELETE", `/v1/users/${user.user_id}/tokens/${second.token_id}`)
      const team = yield* ok("POST", "/v1/teams", { name: "Sales" })
      yield* ok("PATCH", `/v1/teams/${team.team_id}`, { name: "Sales EU" })
      yield* ok("POST", `/v1/teams/${team.team_id}/members`, { user_id: user.user_id })
      yield* ok("DELETE", `/v1/teams/${team.team_id}/members/${user.user_id}`)
      yield* ok("DELETE", `/v1/teams/${team.team_id}`)
      const role = yield* ok("POST", "/v1/executive-roles", { name: "CFO" })
      yield* ok("POST", `/v1/executive-roles/${role.role_id}/members`, { user_id: user.user_id })
      const invitation = yield* ok("POST", "/v1/invitations", { email: "bo@example.com" })
      yield* ok("POST", `/v1/invitations/${invitation.invitation_id}/resend`)
      yield* ok("DELETE", `/v1/invitations/${invitation.invitation_id}`)
      const scim = yield* ok("POST", "/v1/scim-tokens")
      yield* ok("DELETE", `/v1/scim-tokens/${scim.token_id}`)
      yield* ok("PATCH", `/v1/users/${user.user_id}`, { status: "deprovisioned" })

      const log = yield* ok("GET", "/v1/audit-log?limit=100")
      const entries = [...log.data].reverse().filter((e: any) => e.action !== "session.signed_in")
      const actor = entries[0].actor
      assert.strictEqual(actor.type, "user")
      for (const entry of entries) assert.deepStrictEqual(entry.actor, actor, `${entry.action} is the admin's`)
      const roleId = role.role_id
      const rows = entries.map((e: any) => [e.action, e.target.type, e.target.id])
      // Compared as a set: entries of one millisecond order by their random ids, not by arrival.
      assert.sameDeepMembers(rows, [
        ["session.ended", "session", entries.find((e: any) => e.action === "session.ended")?.target.id],
        ["user.deprovisioned", "user", user.user_id],
        ["user.created", "user", user.user_id],
        ["user.updated", "user", user.user_id],
        ["token.issued", "api_token", issued.token_id],
        ["token.issued", "api_token", second.token_id],
        ["token.revoked", "api_token", second.token_id],
        ["team.created", "team", team.team_id],
        ["team.renamed", "team", team.team_id],
        ["team.member_added", "team", team.team_id],
        ["team.member_removed", "team", team.team_id],
        ["team.deleted", "team", team.team_id],
        ["executive_role.created", "executive_role", roleId],
        ["executive_role.member_added", "executive_role", roleId],
        ["invitation.created", "invitation", invitation.invitation_id],
        ["invitation.resent", "invitation", invitation.invitation_id],
        ["invitation.revoked", "invitation", invitation.invitation_id],
        ["scim_token.created", "scim_token", scim.token_id],
        ["scim_token.revoked", "scim_token", scim.token_id]
      ])
      const detail = (action: string) => entries.find((e: any) => e.action === action)!.detail
      assert.deepStrictEqual(detail("user.updated").changes, { roles: { from: ["member"], to: ["admin"] } })
      assert.deepStrictEqual(detail("user.deprovisioned").changes, { status: { from: "active", to: "deprovisioned" } })
      assert.deepInclude(detail("session.ended"), { reason: "deprovisioned", user_id: user.user_id, via: "api-token" })
      assert.deepInclude(detail("team.renamed"), { name: "Sales EU", previous_name: "Sales" })
      assert.deepInclude(detail("team.member_added"), { user_id: user.user_id, email: "mia@example.com" })
      assert.deepInclude(detail("invitation.created"), { email: "bo@example.com" })
      // No secret reaches the log.
      const text = JSON.stringify(log)
      for (const secret of [issued.token, second.token, scim.token]) assert.notInclude(text, secret)
    }).pipe(Effect.scoped))
})
