/**
 * The share dialog's people picker over real HTTP (in-memory stores):
 * `GET /v1/directory/people?q=&limit=&cursor=` finds the tenant's active users,
 * teams and executive roles by name or address for any member, showing no
 * more than an id, a name and a user's address; `GET /v1/users` stays for
 * admins. A search pages like every list. Another tenant's people are never
 * found; bad input is a problem.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { problemCode, start } from "./TestServer.ts"
import { onEveryStore } from "./EveryStore.ts"

describe("GET /v1/directory/people", () => {
  it.live("a member finds users, teams and executive roles by name or address, prefix matches first; nothing more than id, name and e-mail", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const ours = yield* server.tenant()
      const theirs = yield* server.tenant()
      const ok = (token: string, method: string, path: string, body?: unknown) =>
        Effect.map(server.request(method, path, { token, body }), (r) => {
          assert.isBelow(r.status, 300, r.text)
          return r.body
        })
      const ann = yield* ok(ours.token, "POST", "/v1/users", { email: "ann@example.com", name: "Ann Bright", roles: ["admin"] })
      const jo = yield* ok(ours.token, "POST", "/v1/users", { email: "jo@example.com", name: "Joanna Annersley", roles: ["member"] })
      const gone = yield* ok(ours.token, "POST", "/v1/users", { email: "anne@example.com", name: "Anne Gone", roles: ["member"] })
      yield* ok(ours.token, "PATCH", `/v1/users/${gone.user_id}`, { status: "deprovisioned" })
      const team = yield* ok(ours.token, "POST", "/v1/teams", { name: "Planning" })
      const role = yield* ok(ours.token, "POST", "/v1/executive-roles", { name: "Annual Reviewer" })
      yield* ok(theirs.token, "POST", "/v1/users", { email: "annie@example.com", name: "Annie Elsewhere", roles: ["member"] })
      yield* ok(theirs.token, "POST", "/v1/teams", { name: "Annex" })
      const member = (yield* ok(ours.token, "POST", `/v1/users/${jo.user_id}/tokens`)).token as string
      const people = (token: string, query: string) => server.request("GET", `/v1/directory/people?${query}`, { token })

      // A member may search (sharing needs it), though the user list stays for admins.
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/users", { token: member })), "auth/forbidden")
      const found = yield* people(member, "q=ANN")
      assert.strictEqual(found.status, 200, found.text)
      assert.deepStrictEqual(found.body.data, [
        { type: "user", id: ann.user_id, name: "Ann Bright", email: "ann@example.com" },
        { type: "executive_role", id: role.role_id, name: "Annual Reviewer", email: null },
        { type: "user", id: jo.user_id, name: "Joanna Annersley", email: "jo@example.com" },
        { type: "team", id: team.team_id, name: "Planning", email: null }
      ])
      assert.deepStrictEqual(found.body.page, { limit: 50, next_cursor: null, has_more: false })
      // Nothing else of a user: no roles, status or external id (the admin's list shows them).
      for (const person of found.body.data) assert.deepStrictEqual(Object.keys(person).sort(), ["email", "id", "name", "type"])
      assert.notInclude(found.text, "Anne Gone")
      assert.notInclude(found.text, "Elsewhere")
      assert.notInclude(found.text, "Annex")

      // By address too; the limit bounds a page, and the cursor continues it in the same order; a larger limit is cut to 50.
      assert.deepStrictEqual((yield* people(member, "q=jo%40exa")).body.data.map((p: any) => p.id), [jo.user_id])
      const first = yield* people(ours.token, "q=ann&limit=1")
      assert.deepStrictEqual(first.body.data.map((p: any) => p.id), [ann.user_id])
      assert.strictEqual(first.body.page.limit, 1)
      assert.isTrue(first.body.page.has_more)
      assert.isString(first.body.page.next_cursor)
      const paged: Array<string> = []
      let cursor: string | null = null
      for (let i = 0; i < 10; i++) {
        const page: any = yield* people(member, `q=ann&limit=1${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
        assert.strictEqual(page.status, 200, page.text)
        paged.push(...page.body.data.map((p: any) => p.id))
        cursor = page.body.page.next_cursor
        assert.strictEqual(page.body.page.has_more, cursor !== null)
        if (cursor === null) break
      }
      assert.deepStrictEqual(paged, found.body.data.map((p: any) => p.id))
      // A cursor continues its own search only; one not issued by the service is refused.
      assert.strictEqual(problemCode(yield* people(member, `q=jo&limit=1&cursor=${encodeURIComponent(first.body.page.next_cursor)}`)), "pagination/cursor-mismatch")
      assert.strictEqual(problemCode(yield* people(member, "q=ann&cursor=nope")), "pagination/cursor-invalid")
      assert.strictEqual((yield* people(ours.token, "q=ann&limit=500")).body.page.limit, 50)
      assert.deepStrictEqual((yield* people(member, "q=%20%20")).body.data, [])
      // Another tenant's admin finds only their own.
      assert.deepStrictEqual((yield* people(theirs.token, "q=ann")).body.data.map((p: any) => p.name), ["Annex", "Annie Elsewhere"])

      // Bad input is a 400 problem; no credential a 401.
      for (const query of ["", "q=", `q=${"x".repeat(101)}`, "q=a&limit=0", "q=a&limit=x", "q=a&limit=501", "q=a&q=b"]) {
        const answer = yield* people(member, query)
        assert.strictEqual(answer.status, 400, `${query}: ${answer.text}`)
        assert.strictEqual(answer.headers.get("content-type"), "application/problem+json")
        assert.strictEqual(problemCode(answer), "request/invalid")
      }
      assert.strictEqual(problemCode(yield* server.request("GET", "/v1/directory/people?q=a", {})), "auth/unauthenticated")
    }).pipe(Effect.scoped))
})

onEveryStore("GET /v1/directory/people pages", (stores) => {
  it.live("pages of 7 concatenate to the whole ranking, users and groups interleaved; one removed between pages is no skip", () =>
    Effect.gen(function*() {
      const server = yield* start(stores())
      const { token } = yield* server.tenant()
      const ok = (method: string, path: string, body?: unknown) =>
        Effect.map(server.request(method, path, { token, body }), (r) => {
          assert.isBelow(r.status, 300, r.text)
          return r.body
        })
      // Names that interleave users and groups, prefix matches ("Mar…") and others ("…mar…").
      const users: Array<string> = []
      for (let i = 0; i < 24; i++) {
        const name = i % 3 === 0 ? `Omar ${String(i).padStart(2, "0")}` : `Mar ${String(i).padStart(2, "0")}`
        users.push((yield* ok("POST", "/v1/users", { email: `p${i}@example.com`, name, roles: ["member"] })).user_id)
      }
      for (let i = 0; i < 6; i++) yield* ok("POST", "/v1/teams", { name: `Mar team ${i}` })
      for (let i = 0; i < 4; i++) yield* ok("POST", "/v1/executive-roles", { name: `Grammar role ${i}` })
      const whole = (yield* ok("GET", "/v1/directory/people?q=mar&limit=50")).data.map((p: any) => p.id) as Array<string>
      assert.lengthOf(whole, 34)
      const walk = (removeAfterFirst?: string) =>
        Effect.gen(function*() {
          const ids: Array<string> = []
          let cursor: string | null = null
          for (let i = 0; i < 10; i++) {
            const page: any = yield* ok("GET", `/v1/directory/people?q=mar&limit=7${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`)
            assert.isAtMost(page.data.length, 7)
            ids.push(...page.data.map((p: any) => p.id))
            cursor = page.page.next_cursor
            assert.strictEqual(page.page.has_more, cursor !== null)
            if (i === 0 && removeAfterFirst !== undefined) yield* ok("PATCH", `/v1/users/${removeAfterFirst}`, { status: "deprovisioned" })
            if (cursor === null) return ids
          }
          return ids
        })
      assert.deepStrictEqual(yield* walk(), whole)
      // Removing someone the first page showed shifts the ranking: the walk still sees every other one, once.
      const shown = whole.slice(0, 7)
      const removed = users.find((id) => shown.includes(id))!
      assert.deepStrictEqual(yield* walk(removed), whole)
    }).pipe(Effect.scoped), 120_000)
})
