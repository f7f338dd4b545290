/**
 * Export limits by channel (decisions 0009, 0022): exports started through
 * a console session count in the UI class only (30 a minute per user),
 * those started with an API token in the API class only (bursts of 10 per
 * workspace, 300 an hour). Over real HTTP on the in-memory stores and DuckDB.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { problemCode } from "@analytics/testing/http"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { arrange, serve } from "./TenantFixture.ts"

describe("export limits by channel", () => {
  it.live("session exports count per user only, token exports per workspace only, each way round", () =>
    Effect.gen(function*() {
      const fixture = yield* serve(MemoryStores.layer)
      const { server } = fixture
      /** A tenant, its admin's token, and a console session of the same admin. */
      const channels = (label: string) =>
        Effect.gen(function*() {
          const t = yield* arrange(fixture, label)
          const opened = yield* server.request("POST", "/api/session/token", { body: { api_token: t.admin } })
          assert.strictEqual(opened.status, 200, opened.text)
          const cookie = opened.headers.getSetCookie().find((c) => c.startsWith("analytics_session="))!.split(";")[0]
          const body = { format: "csv", visual_id: t.visualId }
          const path = `/v1/reports/${t.ids.report}/export`
          return {
            byToken: server.request("POST", path, { token: t.admin, body }),
            bySession: server.request("POST", path, { body, headers: { cookie, "x-csrf-token": opened.body.csrf_token } })
          }
        })
      const statuses = (n: number, request: Effect.Effect<{ readonly status: number }>) =>
        Effect.map(Effect.forEach(Array.from({ length: n }), () => request), (answers) => answers.map((a) => a.status))

      /** How many token exports pass before the workspace's burst refuses one. */
      const tokenBurst = (byToken: Effect.Effect<{ readonly status: number; readonly body: any; readonly headers: Headers; readonly text: string }>) =>
        Effect.gen(function*() {
          for (let passed = 0; passed <= 10; passed++) {
            const answer = yield* byToken
            if (answer.status === 202) continue
            assert.strictEqual(problemCode(answer as any), "rate-limit/exports-exceeded")
            assert.match(answer.body.detail, /10 exports in a burst/)
            return passed
          }
          return assert.fail("the burst never refused")
        })

      // Token first: the workspace's burst (what the fixture's own exports left of 10), then the console is still open.
      const tokenFirst = yield* channels("token-first")
      const burst = yield* tokenBurst(tokenFirst.byToken)
      assert.isAbove(burst, 5)
      assert.deepStrictEqual(yield* statuses(5, tokenFirst.bySession), Array(5).fill(202))

      // Console first: 30 a minute, past the workspace's burst, which the console does not spend.
      const sessionFirst = yield* channels("session-first")
      assert.deepStrictEqual(yield* statuses(30, sessionFirst.bySession), Array(30).fill(202))
      const userRefused = yield* sessionFirst.bySession
      assert.strictEqual(problemCode(userRefused), "rate-limit/exports-exceeded")
      assert.match(userRefused.body.detail, /You have started 30 exports in the last minute/)
      assert.strictEqual(yield* tokenBurst(sessionFirst.byToken), burst, "the same burst as the untouched workspace's")
    }).pipe(Effect.scoped), 120_000)
})
