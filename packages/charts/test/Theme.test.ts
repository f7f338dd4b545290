/**
 * Themes from any primary colour: mark colours at least 3:1 against white,
 * text at least 4.5:1, eight distinct palette colours.
 */
import { Theme } from "@analytics/charts"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"

const hex = fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
  .map((rgb) => "#" + rgb.map((c) => c.toString(16).padStart(2, "0")).join(""))

describe("Theme", () => {
  it("contrast follows WCAG: black on white 21, white on white 1", () => {
    assert.closeTo(Theme.contrast("#000000", "#ffffff"), 21, 1e-9)
    assert.closeTo(Theme.contrast("#fff", "#ffffff"), 1, 1e-9)
    assert.closeTo(Theme.contrast("#767676", "#ffffff"), 4.54, 0.01)
  })

  it("for any primary colour: the accent and eight palette colours at least 40 apart in RGB reach 3:1, text 4.5:1, on white and on the dark cards", () => {
    fc.assert(
      fc.property(hex, (primaryColor) => {
        const t = Theme.theme({ primaryColor })
        assert.strictEqual(t.palette.length, 8)
        assert.strictEqual(new Set(t.palette).size, 8)
        // and far enough apart to tell apart, not merely different
        const rgb = (c: string) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16))
        for (const [i, a] of t.palette.entries()) {
          for (const b of t.palette.slice(i + 1)) {
            const [x, y] = [rgb(a), rgb(b)]
            assert.isAtLeast(Math.hypot(x[0]! - y[0]!, x[1]! - y[1]!, x[2]! - y[2]!), 40, `${a} and ${b} from ${primaryColor}`)
          }
        }
        assert.strictEqual(t.palette[0], t.accent)
        for (const c of t.palette) assert.isAtLeast(Theme.contrast(c, t.background), 3, `${c} from ${primaryColor}`)
        for (const c of [t.text, t.mutedText]) assert.isAtLeast(Theme.contrast(c, t.background), 4.5)
        // The same for a dark card: eight colours in the same places, apart, each 3:1 on both dark backgrounds.
        assert.strictEqual(t.dark.palette.length, 8)
        assert.strictEqual(t.dark.palette[0], t.dark.accent)
        for (const [i, a] of t.dark.palette.entries()) {
          for (const b of t.dark.palette.slice(i + 1)) {
            const [x, y] = [rgb(a), rgb(b)]
            assert.isAtLeast(Math.hypot(x[0]! - y[0]!, x[1]! - y[1]!, x[2]! - y[2]!), 40, `dark ${a} and ${b} from ${primaryColor}`)
          }
          for (const background of Theme.darkBackgrounds) assert.isAtLeast(Theme.contrast(a, background), 3, `dark ${a} on ${background} from ${primaryColor}`)
        }
      }),
      { numRuns: 300 }
    )
  })

  it("a greyish accent gets a slate far enough from it (a case the property once found: #505068 gave #3f3f50, 34 apart)", () => {
    const [accent, ...rest] = Theme.theme({ primaryColor: "#505068" }).palette
    const slate = rest.at(-1)!
    const rgb = (c: string) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16))
    const [x, y] = [rgb(accent!), rgb(slate)]
    assert.isAtLeast(Math.hypot(x[0]! - y[0]!, x[1]! - y[1]!, x[2]! - y[2]!), 60)
  })

  it("a dark enough primary colour is the accent as it is; an unreadable one falls back to the default", () => {
    assert.strictEqual(Theme.theme({ primaryColor: "#1d4ed8" }).accent, "#1d4ed8")
    assert.deepStrictEqual(Theme.theme({ primaryColor: "not a colour" }), Theme.theme())
  })
})
