import { Client } from "@analytics/api"
import { operatorToken, start } from "./TestServer.ts"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"

describe("the typed client derived from the contract", () => {
  it.live("provisions, creates and pages through workspaces; problems arrive as typed errors", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const operator = yield* Client.make({ baseUrl: server.url, token: operatorToken })
      const tenant = yield* operator.tenants.create({ payload: { name: "Typed", plan: "scale" }, headers: {} })
      assert.strictEqual(tenant.plan, "scale")
      assert.instanceOf(tenant.created_at, Date)

      const client = yield* Client.make({ baseUrl: server.url, token: tenant.token })
      for (const name of ["a", "b", "c"]) {
        const created = yield* client.workspaces.create({ payload: { name }, headers: { "idempotency-key": `k-${name}` } })
        assert.strictEqual(created.name, name)
      }
      const first = yield* client.workspaces.list({ query: { limit: 2, sort: "name" } })
      assert.deepStrictEqual(first.data.map((w) => w.name), ["a", "b"])
      const second = yield* client.workspaces.list({ query: { limit: 2, sort: "name", cursor: first.page.next_cursor! } })
      assert.deepStrictEqual(second.data.map((w) => w.name), ["c"])
      assert.isNull(second.page.next_cursor)

      const mismatch = yield* client.workspaces.list({ query: { sort: "-name", cursor: first.page.next_cursor! } }).pipe(
        Effect.flip
      )
      assert.strictEqual(mismatch._tag, "CursorMismatch")
      const reused = yield* client.workspaces.create({ payload: { name: "other" }, headers: { "idempotency-key": "k-a" } })
        .pipe(Effect.flip)
      assert.strictEqual(reused._tag, "IdempotencyKeyReused")
      const anonymous = yield* Client.make({ baseUrl: server.url })
      const denied = yield* anonymous.workspaces.list({ query: {} }).pipe(Effect.flip)
      assert.strictEqual(denied._tag, "Unauthenticated")
    }).pipe(Effect.scoped, Effect.provide(FetchHttpClient.layer)))
})
