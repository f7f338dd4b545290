/**
 * The branding variables: `ANALYTICS_PRIMARY_COLOR` and `ANALYTICS_LOCALE`
 * default to core's `Branding.defaults`, are read when set, and are refused
 * by name when they are not a colour or a locale.
 */
import { Branding } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as HostConfig from "../src/HostConfig.ts"

const load = (env: Record<string, string>) =>
  HostConfig.load.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ANALYTICS_STORE: "memory", ...env } }))))

describe("branding configuration", () => {
  it.effect("defaults, values read when set, each invalid one named", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual((yield* load({})).branding, Branding.defaults)
      const set = yield* load({ ANALYTICS_PRIMARY_COLOR: "#0f766e", ANALYTICS_LOCALE: "de-DE" })
      assert.deepStrictEqual(set.branding, { primaryColor: "#0f766e", locale: "de-DE" })
      const problems = yield* Effect.flip(load({ ANALYTICS_PRIMARY_COLOR: "teal", ANALYTICS_LOCALE: "not a locale" }))
      assert.strictEqual(problems.length, 2, problems.join("\n"))
      assert.isTrue(problems.some((p) => p.startsWith("ANALYTICS_PRIMARY_COLOR")), problems.join("\n"))
      assert.isTrue(problems.some((p) => p.startsWith("ANALYTICS_LOCALE")), problems.join("\n"))
    }))
})
