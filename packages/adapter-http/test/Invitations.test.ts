/**
 * Invitations over real HTTP (in-memory stores), e-mailed through a real
 * SMTP server in process: the link in the message leads to access.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { SmtpMailer } from "@analytics/adapter-smtp"
import { SmtpServer } from "@analytics/testing/smtp"
import { type Invitation, InvitationStore } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import { problemCode, start } from "./TestServer.ts"

/** The token in the last message the SMTP server got for `to`. */
const tokenMailedTo = (received: ReadonlyArray<SmtpServer.Received>, to: string) => {
  const message = [...received].reverse().find((m) => m.to.includes(to))
  assert.isDefined(message, `no mail to ${to}`)
  // Quoted-printable may fold long lines: unfold before reading the link.
  const raw = message!.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=")
  const match = /\/invitations\/accept\?token=([A-Za-z0-9_%-]+)/.exec(raw)
  assert.isNotNull(match, raw)
  return decodeURIComponent(match![1])
}

const setup = Effect.gen(function*() {
  const smtp = yield* SmtpServer.start()
  const server = yield* start(MemoryStores.layer, {
    mailer: SmtpMailer.layer({ url: `smtp://127.0.0.1:${smtp.port}`, from: "Analytics <noreply@analytics.test>" })
  })
  const { token } = yield* server.tenant()
  return { smtp, server, admin: token }
})

describe("invitations", () => {
  it.live("an invitation e-mail arrives through SMTP and its link makes the user, once", () =>
    Effect.gen(function*() {
      const { admin, server, smtp } = yield* setup
      const created = yield* server.request("POST", "/v1/invitations", { token: admin, body: { email: "Guest@Example.com", name: "Grace Hopper" } })
      assert.strictEqual(created.status, 201, created.text)
      assert.deepInclude(created.body, { email: "guest@example.com", name: "Grace Hopper", status: "pending", user_id: null })
      assert.notProperty(created.body, "token")
      const token = tokenMailedTo(smtp.received, "guest@example.com")
      assert.include(smtp.received[0].raw, "Subject: You are invited to Analytics")
      const accepted = yield* server.request("POST", "/v1/invitations/accept", { body: { token } })
      assert.strictEqual(accepted.status, 201, accepted.text)
      assert.deepInclude(accepted.body.user, { email: "guest@example.com", name: "Grace Hopper", status: "active", roles: ["member"] })
      // The personal token that came with it opens the API as the new user (a member, not an admin).
      const guest = accepted.body.token
      assert.match(guest, /^ast_/)
      assert.strictEqual((yield* server.request("GET", "/v1/workspaces", { token: guest })).status, 200)
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/users", { token: guest })), "auth/forbidden")
      const users = yield* server.request("GET", "/v1/users", { token: admin })
      assert.deepStrictEqual(users.body.data.map((u: any) => u.email), ["guest@example.com"])
      const list = yield* server.request("GET", "/v1/invitations", { token: admin })
      assert.deepInclude(list.body.data[0], { status: "accepted", user_id: accepted.body.user.user_id })
      // Used once; a user now has the address, so it cannot be invited again.
      const again = yield* server.request("POST", "/v1/invitations/accept", { body: { token } })
      assert.strictEqual(again.status, 410)
      assert.strictEqual(problemCode(again), "directory/invitation-closed")
      assert.strictEqual(again.body.status_of_invitation, "accepted")
      assert.strictEqual(problemCode(yield* server.request("POST", "/v1/invitations", { token: admin, body: { email: "guest@example.com" } })), "directory/email-taken")
      assert.strictEqual(problemCode(yield* server.request("POST", "/v1/invitations/accept", { body: { token: "ast_not-a-token" } })), "directory/invitation-not-found")
      assert.strictEqual(problemCode(yield* server.request("POST", "/v1/invitations/accept", { body: {} })), "request/invalid")
    }).pipe(Effect.scoped))

  it.live("resending replaces the link; revoking and expiry close it; only admins manage invitations", () =>
    Effect.gen(function*() {
      const { admin, server, smtp } = yield* setup
      const created = yield* server.request("POST", "/v1/invitations", { token: admin, body: { email: "late@example.com" } })
      const first = tokenMailedTo(smtp.received, "late@example.com")
      const resent = yield* server.request("POST", `/v1/invitations/${created.body.invitation_id}/resend`, { token: admin })
      assert.strictEqual(resent.status, 200, resent.text)
      assert.strictEqual(smtp.received.length, 2)
      const second = tokenMailedTo(smtp.received, "late@example.com")
      assert.notStrictEqual(first, second)
      assert.strictEqual(problemCode(yield* server.request("POST", "/v1/invitations/accept", { body: { token: first } })), "directory/invitation-not-found")
      // Inviting the same address again renews the pending invitation rather than making a second.
      yield* server.request("POST", "/v1/invitations", { token: admin, body: { email: "late@example.com" } })
      assert.strictEqual((yield* server.request("GET", "/v1/invitations", { token: admin })).body.data.length, 1)
      const third = tokenMailedTo(smtp.received, "late@example.com")
      // Expired: its time has passed.
      const store = Context.get(server.stores, InvitationStore.InvitationStore)
      const current = (yield* store.findByTokenHash(yield* Effect.promise(() => sha256(third))))!
      const expired: Invitation.Invitation = { ...current, expires_at: new Date(Date.now() - 1), updated_at: new Date() }
      assert.isTrue(yield* store.update(expired, current.updated_at))
      const late = yield* server.request("POST", "/v1/invitations/accept", { body: { token: third } })
      assert.strictEqual(late.body.status_of_invitation, "expired")
      assert.strictEqual((yield* server.request("GET", "/v1/invitations", { token: admin })).body.data[0].status, "expired")
      // Revoked.
      const other = yield* server.request("POST", "/v1/invitations", { token: admin, body: { email: "gone@example.com" } })
      const goneToken = tokenMailedTo(smtp.received, "gone@example.com")
      const revoked = yield* server.request("DELETE", `/v1/invitations/${other.body.invitation_id}`, { token: admin })
      assert.strictEqual(revoked.body.status, "revoked")
      assert.strictEqual((yield* server.request("POST", "/v1/invitations/accept", { body: { token: goneToken } })).body.status_of_invitation, "revoked")
      assert.strictEqual(problemCode(yield* server.request("POST", `/v1/invitations/${other.body.invitation_id}/resend`, { token: admin })), "directory/invitation-closed")
      // Another tenant's admin sees none of it.
      const stranger = yield* server.tenant()
      assert.strictEqual(problemCode(yield* server.request("DELETE", `/v1/invitations/${created.body.invitation_id}`, { token: stranger.token })), "resource/not-found")
    }).pipe(Effect.scoped))
})

const sha256 = async (value: string) => {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value))
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("")
}
