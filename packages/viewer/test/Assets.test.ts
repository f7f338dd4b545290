/**
 * The built viewer as Node reads it: the entry from the manifest, every
 * file with its type and hash, the Vega chunk apart from the entry; a
 * missing build fails saying how to make it.
 */
import * as Viewer from "@analytics/viewer/assets"
import { assert, describe, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

describe("the viewer's assets", () => {
  it("reads the build: the entry script, hashed names, types and hashes; Vega in a chunk of its own", () => {
    const built = Viewer.load()
    assert.match(built.entry, /^viewer-[\w-]+\.js$/)
    const entry = built.files.get(built.entry)!
    assert.strictEqual(entry.contentType, "text/javascript; charset=utf-8")
    assert.strictEqual(entry.sha256, createHash("sha256").update(entry.body).digest("hex"))
    const chunk = [...built.files.keys()].find((name) => name.startsWith("VegaRuntime-"))
    assert.isDefined(chunk, "vega is loaded when a chart is drawn, not with the entry")
    const text = new TextDecoder().decode(entry.body)
    assert.notInclude(text, "vega-lite", "the browser gets compiled Vega specs, not vega-lite")
    assert.isBelow(entry.body.length, 60_000, "the entry stays small: Lit and the elements")
  })

  it("names every entry with its static import closure: Lit shared, Vega in no closure, the screens lazy", () => {
    const built = Viewer.load()
    assert.strictEqual(built.entries.viewer?.file, built.entry)
    for (const name of ["viewer", "embed", "console", "elements"] as const) {
      const entry = built.entries[name]
      assert.isDefined(entry, name)
      assert.strictEqual(entry!.closure[0], entry!.file, `${name}'s closure starts with itself`)
      for (const file of entry!.closure) assert.isTrue(built.files.has(file), `${name}: ${file} is built`)
      assert.isUndefined(entry!.closure.find((file) => file.startsWith("VegaRuntime-")), `${name} loads Vega only when a chart is drawn`)
    }
    const lit = built.entries.console!.closure.find((file) => file.startsWith("lit-"))
    assert.isDefined(lit, "Lit is a chunk of its own")
    assert.include(built.entries.viewer!.closure, lit!, "the viewer and the console share Lit")
    assert.notInclude(built.entries.embed!.closure, lit!, "an embed page drawn on the server loads its token session alone, no Lit")
    assert.isUndefined(built.entries.console!.closure.find((file) => /^(SignIn|Workspaces?)-/.test(file)), "each screen is its own chunk, loaded when shown")
  })

  it("fails loudly without a build", () => {
    assert.throws(() => Viewer.load(mkdtempSync(join(tmpdir(), "no-viewer-"))), /run npm run build/)
  })
})
