/**
 * The audit log over real HTTP (in-memory stores): entries recorded by the
 * core (grants record theirs in decision 0014) are read newest first with
 * filters, by tenant admins only, and reach the `audit.event` firehose.
 * No endpoint changes or deletes an entry.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { AuditLog, EventPublisher, Events, type Tenant } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { problemCode, start } from "./TestServer.ts"

describe("audit log", () => {
  it.live("admins read entries newest first, filtered and paginated; members are refused, other tenants see none; nothing alters them", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { tenantId, token } = yield* server.tenant("scale")
      const firehose = yield* server.request("POST", "/v1/webhooks", { token, body: { url: "https://hooks.example.com/audit", events: ["audit.event"] } })
      assert.strictEqual(firehose.status, 201, firehose.text)
      const record = (action: string, target: string, actor: string) =>
        AuditLog.record(tenantId as Tenant.TenantId, {
          workspace_id: null,
          action,
          actor: { type: "user", id: actor },
          target: { type: "grant", id: target },
          detail: { actions: ["view"], watermark: false }
        }).pipe(
          Effect.provide(EventPublisher.EventPublisher.layer.pipe(Layer.provide(Layer.succeedContext(server.stores)))),
          Effect.provideContext(server.stores)
        )
      // A millisecond apart: within one, entries order by id (decision 0003's tie-break), not by arrival.
      yield* record("grant.created", "g-1", "ada")
      yield* Effect.sleep("2 millis")
      yield* record("grant.updated", "g-1", "ada")
      yield* Effect.sleep("2 millis")
      yield* record("grant.revoked", "g-2", "bob")
      const all = yield* server.request("GET", "/v1/audit-log", { token })
      assert.strictEqual(all.status, 200, all.text)
      // The firehose's own registration is the first entry.
      assert.deepStrictEqual(all.body.data.map((e: any) => e.action), ["grant.revoked", "grant.updated", "grant.created", "webhook.created"])
      assert.deepInclude(all.body.data[0], { actor: { type: "user", id: "bob" }, target: { type: "grant", id: "g-2" }, detail: { actions: ["view"], watermark: false } })
      const page = yield* server.request("GET", "/v1/audit-log?limit=2", { token })
      const next = yield* server.request("GET", `/v1/audit-log?limit=2&cursor=${encodeURIComponent(page.body.page.next_cursor)}`, { token })
      assert.deepStrictEqual(next.body.data.map((e: any) => e.action), ["grant.created", "webhook.created"])
      assert.deepStrictEqual((yield* server.request("GET", "/v1/audit-log?target_id=g-1", { token })).body.data.map((e: any) => e.action), ["grant.updated", "grant.created"])
      assert.deepStrictEqual((yield* server.request("GET", "/v1/audit-log?actor_id=bob&action=grant.revoked", { token })).body.data.length, 1)
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/audit-log?sort=action", { token })), "request/invalid")
      // Nothing alters the log.
      for (const method of ["POST", "PATCH", "DELETE", "PUT"] as const) {
        const answer = yield* server.request(method, "/v1/audit-log", { token, body: {} })
        assert.strictEqual(answer.status, 405, `${method}: ${answer.text}`)
      }
      // Each entry went to the firehose.
      const deliveries = yield* server.request("GET", `/v1/webhooks/${firehose.body.webhook_id}/deliveries`, { token })
      assert.deepStrictEqual(deliveries.body.data.map((d: any) => d.event.data.action), ["grant.revoked", "grant.updated", "grant.created", "webhook.created"])
      // Built unchecked (Events.envelope), each is still a valid audit.event, at its entry's instant.
      const decode = Schema.decodeUnknownSync(Events.envelopeOf("audit.event"))
      for (const delivery of deliveries.body.data) decode(delivery.event)
      assert.deepInclude(deliveries.body.data[0].event, { workspace_id: "*", created_at: all.body.data[0].created_at })
      const member = (yield* server.request("POST", "/v1/users", { token, body: { email: "m@example.com", name: "M" } })).body
      const memberToken = (yield* server.request("POST", `/v1/users/${member.user_id}/tokens`, { token })).body.token
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/audit-log", { token: memberToken })), "auth/forbidden")
      const stranger = yield* server.tenant()
      assert.deepStrictEqual((yield* server.request("GET", "/v1/audit-log", { token: stranger.token })).body.data, [])
    }).pipe(Effect.scoped))
})
