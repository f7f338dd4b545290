import { assert, describe, it } from "@effect/vitest"
import { Data, Effect } from "effect"
import { NotFound, TaggedFailure, withoutStackTrace } from "../src/platform/Errors.ts"

class Refused extends TaggedFailure("Refused")<{ readonly detail: string }> {
  readonly code = "test/refused" as const
}
class Traced extends Data.TaggedError("Traced")<{ readonly detail: string }> {}

/** The `at ...` frames of an error's stack. */
const frames = (error: Error): number => (error.stack ?? "").split("\n").filter((line) => line.trim().startsWith("at ")).length

const limit = () => (Error as ErrorConstructor & { stackTraceLimit?: number }).stackTraceLimit

describe("Errors", () => {
  it("a typed failure is made without a stack trace, and is otherwise the tagged error it extends", () => {
    const before = limit()
    const error = new Refused({ detail: "no" })
    assert.strictEqual(frames(error), 0)
    // What a Data.TaggedError would capture here: the same class of error, with frames.
    assert.isAbove(frames(new Traced({ detail: "no" })), 0)
    assert.strictEqual(limit(), before)
    assert.instanceOf(error, Refused)
    assert.instanceOf(error, Error)
    assert.strictEqual(error._tag, "Refused")
    assert.strictEqual(error.detail, "no")
    assert.strictEqual(error.code, "test/refused")
    assert.strictEqual(frames(new NotFound({ resource: "workspace", id: "w" })), 0)
  })

  it.effect("a typed failure fails an effect when yielded, as a tagged error does", () =>
    Effect.gen(function*() {
      const caught = yield* Effect.flip(Effect.gen(function*() {
        return yield* new Refused({ detail: "no" })
      }))
      assert.instanceOf(caught, Refused)
      assert.strictEqual(caught.detail, "no")
      const handled = yield* Effect.catchTag(Effect.fail(new Refused({ detail: "again" })), "Refused", (e) => Effect.succeed(e.detail))
      assert.strictEqual(handled, "again")
    }))

  it("withoutStackTrace makes errors without frames and puts the limit back, also when it throws", () => {
    const before = limit()
    const made = withoutStackTrace(() => new Error("plain"))
    assert.strictEqual(frames(made), 0)
    assert.isAbove(frames(new Error("plain")), 0)
    assert.throws(() => withoutStackTrace(() => {
      throw new Error("thrown")
    }), "thrown")
    assert.strictEqual(limit(), before)
  })
})
