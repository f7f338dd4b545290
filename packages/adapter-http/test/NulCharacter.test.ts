/**
 * A NUL character (U+0000) in a request, on embedded PostgreSQL (PGlite),
 * which cannot store one in text: refused as 400 `request/invalid` before
 * it reaches a store (it used to fail the store: 503), whether it comes in
 * a JSON body, a query string or a path; a backslash followed by "u0000"
 * (an escaped backslash, not a NUL) is ordinary text.
 */
import { SqlStores } from "@analytics/adapter-postgres"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode, start } from "./TestServer.ts"

describe("NUL characters", () => {
  it.live("are refused wherever they come, and change nothing", () =>
    Effect.gen(function*() {
      const server = yield* start(SqlStores.layerPglite({}))
      const { token } = yield* server.tenant()
      const create = (body: string) => server.request("POST", "/v1/workspaces", { token, body, headers: { "content-type": "application/json" } })
      for (const body of [`{"name":"a\\u0000b"}`, `{"name":"a\\\\\\u0000b"}`, `{"name":"ok","description":"\\u0000"}`]) {
        const refused = yield* create(body)
        assert.strictEqual(refused.status, 400, body)
        assert.strictEqual(problemCode(refused), "request/invalid", body)
        assert.strictEqual(refused.headers.get("content-type"), "application/problem+json")
      }
      assert.strictEqual((yield* server.request("GET", "/v1/workspaces", { token })).body.data.length, 0)
      // An escaped backslash before "u0000" is text.
      const kept = yield* create(`{"name":"C:\\\\u0000 drive"}`)
      assert.strictEqual(kept.status, 201, kept.text)
      assert.strictEqual(kept.body.name, "C:\\u0000 drive")
      for (const path of ["/v1/audit-log?action=%00", "/v1/users/%00", "/s/abc%00def"]) {
        const refused = yield* server.request("GET", path, { token, headers: { accept: "application/json" } })
        assert.strictEqual(problemCode(refused), "request/invalid", path)
      }
    }).pipe(Effect.scoped), 60_000)
})
