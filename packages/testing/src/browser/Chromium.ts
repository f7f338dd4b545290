/**
 * Debian's Chromium (`apt-get install chromium`), driven by playwright-core:
 * whether it is here (a suite skips, saying why, unless `REQUIRE_CHROMIUM=1`,
 * as in CI), and a browser for the length of a scope.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { type Browser, chromium, type Page } from "playwright-core"

/** Where Debian puts it. */
export const executablePath = "/usr/bin/chromium"

/** Whether it is installed; with `REQUIRE_CHROMIUM=1` its absence throws, so a CI run cannot skip the browser suites. */
export const available: boolean = (() => {
  const found = existsSync(executablePath)
  if (!found && process.env.REQUIRE_CHROMIUM === "1") throw new Error(`REQUIRE_CHROMIUM=1 but ${executablePath} is missing`)
  return found
})()

/** A suite title saying when it is skipped and why. */
export const suiteTitle = (title: string): string => `${title}${available ? "" : " (skipped: no /usr/bin/chromium)"}`

/** How it is started: headless, without a sandbox (CI runs as root), a GPU or its background services. */
export const args: ReadonlyArray<string> = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"]

/** Headless Chromium; the caller closes it. */
export const open = (): Promise<Browser> => chromium.launch({ executablePath, args: [...args] })

/** Headless Chromium, closed with the scope. */
export const launch: Effect.Effect<Browser, never, import("effect").Scope.Scope> = Effect.acquireRelease(
  Effect.promise(open),
  (browser) => Effect.promise(() => browser.close())
)

/**
 * What a page reports as wrong: its console errors, uncaught exceptions and
 * failed requests, collected from now on (the array fills as they come).
 */
export const watchErrors = (page: Page): Array<string> => {
  const errors: Array<string> = []
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`)
  })
  page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`))
  page.on("requestfailed", (request) => errors.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ""}`))
  return errors
}
