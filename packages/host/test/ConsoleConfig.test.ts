/**
 * The console's variables: `ANALYTICS_CONSOLE_SIGN_IN` (link / off) and the
 * session lifetimes `ANALYTICS_SESSION_IDLE_MINUTES` and
 * `ANALYTICS_SESSION_ABSOLUTE_HOURS`: defaults, values read when set, each
 * invalid one refused by name at start, an idle lifetime longer than the
 * absolute one refused.
 */
import * as HostConfig from "../src/HostConfig.ts"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"

const load = (env: Record<string, string>) =>
  HostConfig.load.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ANALYTICS_STORE: "memory", ...env } }))))

describe("console configuration", () => {
  it.effect("defaults to the e-mailed link, 60 minutes idle and 12 hours in all; values read when set", () =>
    Effect.gen(function*() {
      const defaults = yield* load({})
      assert.deepStrictEqual(defaults.console, { signIn: "link", sessions: { idleMinutes: 60, absoluteHours: 12 } })
      const set = yield* load({ ANALYTICS_CONSOLE_SIGN_IN: "off", ANALYTICS_SESSION_IDLE_MINUTES: "15", ANALYTICS_SESSION_ABSOLUTE_HOURS: "8" })
      assert.deepStrictEqual(set.console, { signIn: "off", sessions: { idleMinutes: 15, absoluteHours: 8 } })
    }))

  it.effect("each invalid value is named with what it expects; embedded is no host's mode", () =>
    Effect.gen(function*() {
      const problems = yield* Effect.flip(load({
        ANALYTICS_CONSOLE_SIGN_IN: "embedded",
        ANALYTICS_SESSION_IDLE_MINUTES: "0",
        ANALYTICS_SESSION_ABSOLUTE_HOURS: "1.5"
      }))
      assert.strictEqual(problems.length, 3, problems.join("\n"))
      const line = (name: string) => problems.find((p) => p.startsWith(`${name}:`)) ?? ""
      assert.include(line("ANALYTICS_CONSOLE_SIGN_IN"), "Expected link")
      assert.include(line("ANALYTICS_SESSION_IDLE_MINUTES"), "Expected 1 to 1440 minutes")
      assert.include(line("ANALYTICS_SESSION_ABSOLUTE_HOURS"), "whole number of hours")
      const words = yield* Effect.flip(load({ ANALYTICS_SESSION_IDLE_MINUTES: "an hour" }))
      assert.strictEqual(words.length, 1, words.join("\n"))
      assert.match(words[0]!, /^ANALYTICS_SESSION_IDLE_MINUTES: /)
    }))

  it.effect("an idle lifetime longer than the absolute one is refused, saying which to change", () =>
    Effect.gen(function*() {
      const problems = yield* Effect.flip(load({ ANALYTICS_SESSION_IDLE_MINUTES: "180", ANALYTICS_SESSION_ABSOLUTE_HOURS: "2" }))
      assert.strictEqual(problems.length, 1, problems.join("\n"))
      assert.include(problems[0], "ANALYTICS_SESSION_IDLE_MINUTES (180) is longer than ANALYTICS_SESSION_ABSOLUTE_HOURS (2 h)")
      assert.deepStrictEqual((yield* load({ ANALYTICS_SESSION_IDLE_MINUTES: "120", ANALYTICS_SESSION_ABSOLUTE_HOURS: "2" })).console.sessions, { idleMinutes: 120, absoluteHours: 2 })
    }))
})
