/**
 * One workspace by id over real HTTP (in-memory stores): what a deep link
 * reads for its title. Any member reads it, as the list; an id of another
 * tenant is as unknown as one nobody made; a malformed one is a 400 problem.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode, start } from "./TestServer.ts"

describe("GET /v1/workspaces/{workspace_id}", () => {
  it.live("a member reads their tenant's workspace; another tenant's, an unknown or a malformed id is a problem, never a 5xx", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const ours = yield* server.tenant()
      const theirs = yield* server.tenant()
      const ok = (token: string, method: string, path: string, body?: unknown) =>
        Effect.map(server.request(method, path, { token, body }), (r) => {
          assert.isBelow(r.status, 300, r.text)
          return r.body
        })
      const workspace = yield* ok(ours.token, "POST", "/v1/workspaces", { name: "Sales", description: "Pipeline" })
      const other = yield* ok(theirs.token, "POST", "/v1/workspaces", { name: "Secret" })
      const user = yield* ok(ours.token, "POST", "/v1/users", { email: "m@example.com", name: "M", roles: ["member"] })
      const member = (yield* ok(ours.token, "POST", `/v1/users/${user.user_id}/tokens`)).token as string

      // The admin and a member holding no grant read the same record the list shows.
      const listed = (yield* ok(member, "GET", "/v1/workspaces")).data[0]
      for (const token of [ours.token, member]) {
        const read = yield* server.request("GET", `/v1/workspaces/${workspace.workspace_id}`, { token })
        assert.strictEqual(read.status, 200, read.text)
        assert.deepStrictEqual(read.body, listed)
        assert.deepStrictEqual(read.body, { workspace_id: workspace.workspace_id, name: "Sales", description: "Pipeline", created_at: workspace.created_at })
      }

      // Another tenant's workspace is answered as one that does not exist.
      const cross = yield* server.request("GET", `/v1/workspaces/${other.workspace_id}`, { token: member })
      assert.strictEqual(cross.status, 404, cross.text)
      assert.strictEqual(problemCode(cross), "resource/not-found")
      assert.notInclude(cross.text, "Secret")
      const unknown = yield* server.request("GET", "/v1/workspaces/0190a7e2-0000-7000-8000-000000000000", { token: member })
      assert.strictEqual(unknown.status, 404, unknown.text)
      assert.strictEqual(unknown.headers.get("content-type"), "application/problem+json")

      // A malformed id is a request problem; no credential is a 401.
      const malformed = yield* server.request("GET", "/v1/workspaces/not-a-uuid", { token: member })
      assert.strictEqual(malformed.status, 400, malformed.text)
      assert.strictEqual(problemCode(malformed), "request/invalid")
      const anonymous = yield* server.request("GET", `/v1/workspaces/${workspace.workspace_id}`, {})
      assert.strictEqual(anonymous.status, 401)
      assert.strictEqual(problemCode(anonymous), "auth/unauthenticated")
    }).pipe(Effect.scoped))
})
