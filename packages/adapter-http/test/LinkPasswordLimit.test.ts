/**
 * A public link's password limit over real HTTP (decision 0009):
 * at most 5 wrong passwords in any 5 minutes per client address, counted by
 * an exact sliding log. The tester's finding: the weighted counter it
 * replaces admitted 8 wrong passwords within 287 s.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { TestClock } from "effect/testing"
import { problemCode, start } from "./TestServer.ts"

describe("public-link password attempts over HTTP", () => {
  it.effect("6 wrong passwords spread over 287 s: the 6th is refused, until the first is 300 s old", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const workspace = yield* server.request("POST", "/v1/workspaces", { token, body: { name: "Board" } })
      const report = yield* server.request("POST", "/v1/reports", { token, body: { workspace_id: workspace.body.workspace_id, name: "Board pack" } })
      assert.strictEqual(report.status, 201, report.text)
      const link = yield* server.request("POST", "/v1/sharing/grants", {
        token,
        body: { subject_type: "report", subject_id: report.body.report_id, principal_type: "link", actions: ["view"], password: "correct horse battery" }
      })
      assert.strictEqual(link.status, 201, link.text)
      const path = new URL(link.body.link_url).pathname
      const unlock = (password: string) =>
        server.request("POST", path, { body: JSON.stringify({ password }), headers: { accept: "application/json", "content-type": "application/json" } })

      // Where a 5-minute counter's window began (windows are aligned to the epoch): the failures straddle one.
      const now = yield* Clock.currentTimeMillis
      const windowStart = Math.ceil(now / 300_000) * 300_000
      yield* TestClock.adjust(windowStart - now)
      // Five failures at 250, 260, 270, 400 and 536 s: each answered "incorrect".
      let elapsed = 0
      for (const at of [250, 260, 270, 400, 536]) {
        yield* TestClock.adjust(`${at - elapsed} seconds`)
        elapsed = at
        assert.strictEqual(problemCode(yield* unlock(`wrong ${at}`)), "share/password-incorrect", `at ${at} s`)
      }
      // The 6th at 537 s, 287 s after the first (the weighted counter admitted it: 3 x 63/300 + 2 + 1 <= 5),
      // and the right password too, wait for the first failure to leave the window at 550 s.
      yield* TestClock.adjust("1 second")
      const sixth = yield* unlock("wrong again")
      assert.strictEqual(sixth.status, 429)
      assert.strictEqual(problemCode(sixth), "rate-limit/password-attempts-exceeded")
      assert.strictEqual(sixth.headers.get("retry-after"), "13")
      yield* TestClock.adjust("12 seconds")
      const stillRefused = yield* unlock("correct horse battery")
      assert.strictEqual(problemCode(stillRefused), "rate-limit/password-attempts-exceeded")
      assert.strictEqual(stillRefused.headers.get("retry-after"), "1")
      yield* TestClock.adjust("1 second")
      // 550 s: the right password opens the session (and is not counted).
      const opened = yield* unlock("correct horse battery")
      assert.strictEqual(opened.status, 204, opened.text)
      assert.match(opened.headers.get("set-cookie") ?? "", /HttpOnly/i)
      // One more wrong one fits; the next waits for the failure at 260 s to leave (Retry-After 10).
      assert.strictEqual(problemCode(yield* unlock("wrong at 550")), "share/password-incorrect")
      const next = yield* unlock("wrong at 550 too")
      assert.strictEqual(problemCode(next), "rate-limit/password-attempts-exceeded")
      assert.strictEqual(next.headers.get("retry-after"), "10")
    }).pipe(Effect.scoped))
})
