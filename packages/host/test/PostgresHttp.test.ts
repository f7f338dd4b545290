import { App, LastLineProblems } from "@analytics/adapter-http"
import { SqlStores } from "@analytics/adapter-postgres"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"
import { start } from "@analytics/testing/http"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"

/** The whole service over HTTP on a fresh PostgreSQL database. */
const onPostgres = Effect.gen(function*() {
  const url = yield* freshDatabase(databaseUrl)
  return yield* start(App, Layer.orDie(SqlStores.layerPg(Redacted.make(url))), { onServer: LastLineProblems.answerParseErrors })
})

const suite = databaseUrl === "" ? describe.skip : describe

suite(`HTTP on PostgreSQL${databaseUrl === "" ? ` ${skippedForNoPostgres}` : ""}`, () => {
  it.live("identical requests at the same instant with one Idempotency-Key create one resource", () =>
    Effect.gen(function*() {
      const server = yield* onPostgres
      const { token } = yield* server.tenant()
      for (let round = 0; round < 5; round++) {
        const responses = yield* Effect.all(
          Array.from({ length: 8 }, () =>
            server.request("POST", "/v1/workspaces", {
              token,
              body: { name: `Round ${round}` },
              headers: { "idempotency-key": `race-${round}` }
            })),
          { concurrency: "unbounded" }
        )
        const created = responses.filter((r) => r.status === 201)
        assert.isAtLeast(created.length, 1)
        assert.strictEqual(new Set(created.map((r) => r.body.workspace_id)).size, 1, "every 201 names the same workspace")
        for (const r of responses) assert.include([201, 409], r.status, r.text)
      }
      const list = yield* server.request("GET", "/v1/workspaces?limit=500", { token })
      assert.strictEqual(list.body.data.length, 5)
    }).pipe(Effect.scoped), { timeout: 60_000 })

  it.live("pagination walks and isolation hold on PostgreSQL", () =>
    Effect.gen(function*() {
      const server = yield* onPostgres
      const a = yield* server.tenant()
      const b = yield* server.tenant()
      const names = ["\u00e9t\u00e9", "Zeta", "alpha", "beta", "beta", "gamma", "\u{1F600}", "\uff21cme"]
      for (const name of names) {
        const r = yield* server.request("POST", "/v1/workspaces", { token: a.token, body: { name } })
        assert.strictEqual(r.status, 201, r.text)
      }
      const seen: Array<string> = []
      let path = "/v1/workspaces?limit=3&sort=name"
      for (let i = 0; i < 10; i++) {
        const page = yield* server.request("GET", path, { token: a.token })
        assert.strictEqual(page.status, 200, page.text)
        seen.push(...page.body.data.map((w: { name: string }) => w.name))
        if (page.body.page.next_cursor === null) break
        path = `/v1/workspaces?limit=3&sort=name&cursor=${encodeURIComponent(page.body.page.next_cursor)}`
      }
      // code point order, the same as the in-memory store's
      assert.deepStrictEqual(seen, ["Zeta", "alpha", "beta", "beta", "gamma", "\u00e9t\u00e9", "\uff21cme", "\u{1F600}"])
      const other = yield* server.request("GET", "/v1/workspaces", { token: b.token })
      assert.deepStrictEqual(other.body.data, [])
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
