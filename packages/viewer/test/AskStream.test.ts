/**
 * The Ask screen's stream reader without a browser: server-sent event
 * frames split wherever the network cut them, and a validation problem's
 * `errors[]` kept with their paths (the model editor places them by field).
 */
import { assert, describe, it } from "@effect/vitest"
import { problemOf } from "../src/client/ApiClient.ts"
import { frames } from "../src/client/Sse.ts"

describe("the event stream reader", () => {
  it("yields whole frames only, in order, whatever the chunks; keeps the unfinished rest", () => {
    const wire = `event: progress\ndata: {"stage":"plan"}\n\nevent: answer\ndata: {"text":"Revenue "}\n\nevent: answer\ndata: {"text":"by region"}\n\nevent: done\ndata: {"status":"answered"}\n\n`
    for (const cut of [1, 7, 20, 33, wire.length - 1]) {
      const first = frames(wire.slice(0, cut))
      const second = frames(first.rest + wire.slice(cut))
      const events = [...first.events, ...second.events]
      assert.deepStrictEqual(events.map((e) => e.event), ["progress", "answer", "answer", "done"], `cut at ${cut}`)
      assert.strictEqual(events.filter((e) => e.event === "answer").map((e) => (e.data as { text: string }).text).join(""), "Revenue by region")
      assert.strictEqual(second.rest, "")
    }
    assert.deepStrictEqual(frames("event: answer\r\ndata: {\"text\":\"x\"}\r\n\r\n").events, [{ event: "answer", data: { text: "x" } }])
  })

  it("a validation problem keeps its errors and their paths", () => {
    const problem = problemOf(400, { code: "request/invalid", title: "Invalid", errors: [{ path: ["payload", "model", "measures", 1, "format", "currency"], message: "Expected an ISO 4217 code" }, { nonsense: true }] })
    assert.deepStrictEqual(problem.errors, [{ path: ["payload", "model", "measures", 1, "format", "currency"], message: "Expected an ISO 4217 code" }])
    assert.isUndefined(problemOf(404, { code: "resource/not-found" }).errors)
  })
})
