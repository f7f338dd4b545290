/**
 * The console's size budget (docs/guides/console.md): what the browser
 * fetches before the first screen (the console entry and its static
 * imports) stays under 100 KB compressed with Brotli, as the service sends
 * it. Screens, the report viewer and Vega are loaded when needed and do not
 * count. Reads the built bundle (`npm run build`).
 */
import * as Viewer from "@analytics/viewer/assets"
import { assert, describe, it } from "@effect/vitest"

/** The budget, in bytes of Brotli. */
export const budgetBytes = 100 * 1024

describe("the console's size budget", () => {
  it("its initial closure is under 100 KB with Brotli", () => {
    const built = Viewer.load()
    const entry = built.entries.console
    assert.isDefined(entry, "the build has a console entry")
    const sizes = entry!.closure.map((file) => ({ file, br: built.files.get(file)!.encoded.br.length }))
    const total = sizes.reduce((sum, s) => sum + s.br, 0)
    assert.isBelow(total, budgetBytes, `initial closure ${total} B br: ${sizes.map((s) => `${s.file} ${s.br}`).join(", ")}`)
    assert.isAbove(total, 5_000, "the measure sees the bundle (Lit alone is more)")
  })
})
