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

  it("fails loudly without a build", () => {
    assert.throws(() => Viewer.load(mkdtempSync(join(tmpdir(), "no-viewer-"))), /run npm run build/)
  })
})
