/**
 * A browser bundle of the charts pulls in no `effect`: its sources import
 * `@analytics/core` for types only (`import type`), which type stripping erases.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"

const src = new URL("../src/", import.meta.url)

describe("imports", () => {
  it("core is imported for types only, and nothing but vega, vega-lite and vega-interpreter at run time", () => {
    for (const file of fs.readdirSync(src).filter((f) => f.endsWith(".ts"))) {
      const code = fs.readFileSync(new URL(file, src), "utf8")
      for (const m of code.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+"([^"]+)"/gm)) {
        const [, , type, specifier] = m
        if (specifier.startsWith(".")) continue
        if (type === undefined) assert.include(["vega", "vega-lite", "vega-interpreter"], specifier, `${file}: ${m[0]}`)
      }
    }
  })
})
