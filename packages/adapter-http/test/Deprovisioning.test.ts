/**
 * Deprovisioning stops what acts for the user, at once (decision 0018):
 * over the API and over SCIM, a deprovisioned admin's (over SCIM: a former
 * admin's, as SCIM never touches an admin, decision 0012) personal tokens are
 * revoked, their console sessions ended, the webhooks they registered
 * disabled (their pending deliveries failed), the schedules they made disabled; what others made is left as it
 * was, and an admin may enable the webhook again. Over real HTTP, on the
 * in-memory stores, PGlite and PostgreSQL (one transaction with the status
 * change).
 */
import { SessionStore } from "@analytics/core"
import { assert, it } from "@effect/vitest"
import { Context, Effect } from "effect"
import { createHash } from "node:crypto"
import { onEveryStore } from "./EveryStore.ts"
import { arrange, type FixtureServer, type FixtureTenant, serve } from "./TenantFixture.ts"

/**
 * A second admin of the tenant, with a token, who registers a webhook and
 * schedules an export; made by hand, or provisioned over SCIM (`scim`) and
 * made an admin by the tenant's admin.
 */
const opsAdmin = (fixture: FixtureServer, t: FixtureTenant, scim?: string) =>
  Effect.gen(function*() {
    const ok = (token: string, method: string, path: string, body?: unknown) =>
      Effect.map(fixture.server.request(method, path, { token, body }), (r) => {
        assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
        return r.body
      })
    const user = scim === undefined
      ? yield* ok(t.admin, "POST", "/v1/users", { email: "ops@example.com", name: "Ops", roles: ["admin"] })
      : yield* Effect.gen(function*() {
        const provisioned = yield* fixture.server.request("POST", "/scim/v2/Users", {
          token: scim,
          body: { userName: "ops@example.com", displayName: "Ops" },
          headers: { "content-type": "application/scim+json" }
        })
        assert.strictEqual(provisioned.status, 201, provisioned.text)
        return yield* ok(t.admin, "PATCH", `/v1/users/${provisioned.body.id}`, { roles: ["admin"] })
      })
    const token = (yield* ok(t.admin, "POST", `/v1/users/${user.user_id}/tokens`)).token as string
    const webhook = yield* ok(token, "POST", "/v1/webhooks", { url: "https://hooks.example.com/ops", events: ["export.succeeded"] })
    const pending = yield* ok(token, "POST", `/v1/webhooks/${webhook.webhook_id}/test`, { type: "export.succeeded" })
    const schedule = yield* ok(token, "POST", "/v1/export-schedules", {
      report_id: t.ids.report,
      name: "Ops weekly",
      cron: "0 8 * * 1",
      timezone: "UTC",
      format: "csv",
      visual_id: t.visualId,
      recipients: [t.memberEmail]
    })
    // A console session too, opened with their token (decision 0022).
    const signedIn = yield* fixture.server.request("POST", "/api/session/token", { body: { api_token: token } })
    assert.strictEqual(signedIn.status, 200, signedIn.text)
    const cookie = signedIn.headers.getSetCookie()[0]!.split(";")[0]!.slice("analytics_session=".length)
    assert.strictEqual((yield* fixture.server.request("GET", "/v1/workspaces", { headers: { cookie: `analytics_session=${cookie}` } })).status, 200)
    return { userId: user.user_id as string, token, cookie, webhookId: webhook.webhook_id as string, deliveryId: pending.delivery_id as string, scheduleId: schedule.schedule_id as string, ok }
  })

/** Checks what the deprovisioning stopped, and that the fixture admin's own webhook and schedule still run. */
const assertStopped = (fixture: FixtureServer, t: FixtureTenant, ops: Effect.Success<ReturnType<typeof opsAdmin>>) =>
  Effect.gen(function*() {
    const { server } = fixture
    assert.strictEqual((yield* server.request("GET", "/v1/workspaces", { token: ops.token })).status, 401)
    // Their session's row is ended, in the deprovisioning's transaction, not merely refused.
    assert.strictEqual((yield* server.request("GET", "/v1/workspaces", { headers: { cookie: `analytics_session=${ops.cookie}` } })).status, 401)
    const stored = Context.get(server.stores, SessionStore.SessionStore)
    const session = yield* Effect.orDie(stored.findByHash(createHash("sha256").update(ops.cookie).digest("hex")))
    assert.isDefined(session)
    assert.isNotNull(session!.ended_at, "the session row is ended")
    assert.deepStrictEqual((yield* ops.ok(t.admin, "GET", `/v1/users/${ops.userId}/tokens`)).data, [])
    const webhook = yield* ops.ok(t.admin, "GET", `/v1/webhooks/${ops.webhookId}`)
    assert.deepInclude(webhook, { enabled: false, disabled_reason: "Its owner was deprovisioned" })
    const delivery = yield* ops.ok(t.admin, "GET", `/v1/webhooks/${ops.webhookId}/deliveries/${ops.deliveryId}`)
    assert.strictEqual(delivery.status, "failed")
    const schedule = yield* ops.ok(t.admin, "GET", `/v1/export-schedules/${ops.scheduleId}`)
    assert.deepInclude(schedule, { enabled: false, next_run_at: null })
    // What the other admin made is untouched.
    assert.strictEqual((yield* ops.ok(t.admin, "GET", `/v1/webhooks/${t.ids.webhook}`)).enabled, true)
    assert.strictEqual((yield* ops.ok(t.admin, "GET", `/v1/export-schedules/${t.ids.schedule}`)).enabled, true)
    // An admin may enable it again.
    const enabled = yield* ops.ok(t.admin, "PATCH", `/v1/webhooks/${ops.webhookId}`, { enabled: true })
    assert.deepInclude(enabled, { enabled: true, disabled_reason: null })
  })

onEveryStore("deprovisioning", (stores) => {
  it.live("over the API: the user's tokens, webhooks and schedules stop; others' do not", () =>
    Effect.gen(function*() {
      const fixture = yield* serve(stores())
      const t = yield* arrange(fixture, "api")
      const ops = yield* opsAdmin(fixture, t)
      yield* ops.ok(t.admin, "PATCH", `/v1/users/${ops.userId}`, { status: "deprovisioned" })
      yield* assertStopped(fixture, t, ops)
    }).pipe(Effect.scoped), 120_000)

  it.live("over SCIM (DELETE /Users/{id}): the same, once the user is no admin", () =>
    Effect.gen(function*() {
      const fixture = yield* serve(stores())
      const t = yield* arrange(fixture, "scim")
      const ops = yield* opsAdmin(fixture, t, t.scimToken)
      // An admin is not SCIM's: the DELETE finds no one, and nothing stops.
      assert.strictEqual((yield* fixture.server.request("DELETE", `/scim/v2/Users/${ops.userId}`, { token: t.scimToken })).status, 404)
      assert.strictEqual((yield* fixture.server.request("GET", "/v1/workspaces", { token: ops.token })).status, 200)
      yield* ops.ok(t.admin, "PATCH", `/v1/users/${ops.userId}`, { roles: ["member"] })
      const deleted = yield* fixture.server.request("DELETE", `/scim/v2/Users/${ops.userId}`, { token: t.scimToken })
      assert.strictEqual(deleted.status, 204, deleted.text)
      yield* assertStopped(fixture, t, ops)
      // Re-activated by the identity provider, the user's old token stays dead.
      const reactivated = yield* fixture.server.request("PATCH", `/scim/v2/Users/${ops.userId}`, {
        token: t.scimToken,
        body: { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "active", value: true }] },
        headers: { "content-type": "application/scim+json" }
      })
      assert.strictEqual(reactivated.status, 200, reactivated.text)
      assert.strictEqual((yield* fixture.server.request("GET", "/v1/workspaces", { token: ops.token })).status, 401)
    }).pipe(Effect.scoped), 120_000)
})
