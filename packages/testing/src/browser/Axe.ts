/**
 * axe-core's accessibility checks in a page. Its source is evaluated
 * through the DevTools protocol, which a page's content security policy
 * does not govern (a script tag would be refused under `script-src 'self'`).
 *
 * @since 0.1.0
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Frame, Page } from "playwright-core"

const source = (() => {
  let read: string | undefined
  return () => (read ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8"))
})()

/** A rule axe found broken, and where. */
export interface Violation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  /** The CSS selectors of the elements that break it. */
  readonly targets: ReadonlyArray<string>
}

/** Every violation axe finds in the page (or frame) as it is now. */
export const violations = async (page: Page | Frame): Promise<ReadonlyArray<Violation>> => {
  const injected = await page.evaluate(() => "axe" in window)
  if (!injected) await page.evaluate(source())
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<{ violations: Array<any> }> } }).axe
    const result = await axe.run(document, { resultTypes: ["violations"] })
    return result.violations.map((v) => ({
      id: v.id as string,
      impact: (v.impact ?? null) as string | null,
      help: v.help as string,
      targets: (v.nodes as Array<{ target: Array<string> }>).map((n) => n.target.join(" "))
    }))
  })
}

/** The serious and critical ones: what a page must not ship with. */
export const serious = async (page: Page | Frame): Promise<ReadonlyArray<Violation>> =>
  (await violations(page)).filter((v) => v.impact === "serious" || v.impact === "critical")
