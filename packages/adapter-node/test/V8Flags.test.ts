/**
 * The host's V8 flags: which it sets beside a command line, and that the
 * one it sets keeps a request's Effect scope young after an app's worth of
 * long-lived scopes (in a child process, V8 inspected with its own natives).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as Path from "node:path"
import { V8Flags } from "../src/index.ts"

const fixture = Path.join(import.meta.dirname, "fixtures", "pretenuring.ts")
const startsYoung = (...args: Array<string>) =>
  execFileSync(process.execPath, ["--expose-gc", "--allow-natives-syntax", fixture, ...args], { encoding: "utf8" }) === "true"

describe("V8Flags", () => {
  it("sets each serving flag the command line does not give, either way", () => {
    assert.deepStrictEqual(V8Flags.serving, ["--no-allocation-site-pretenuring"])
    assert.deepStrictEqual(V8Flags.applyServing(["--allocation-site-pretenuring"]), [])
    assert.deepStrictEqual(V8Flags.applyServing(["--no-allocation_site_pretenuring"]), [])
    assert.deepStrictEqual(V8Flags.applyServing(["--max-old-space-size=512"]), ["--no-allocation-site-pretenuring"])
  })

  it("V8's default puts a new Effect scope straight in the old generation once an app's scopes live long; the serving flags keep it young", () => {
    assert.isFalse(startsYoung(), "without the flags the scope was young: V8 no longer pretenures here, and the flag may be unneeded")
    assert.isTrue(startsYoung("serving"))
  }, 60_000)
})
