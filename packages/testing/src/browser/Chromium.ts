/**
 * Debian's Chromium (`apt-get install chromium`), driven by playwright-core:
 * whether it is here (a suite skips, saying why, unless `REQUIRE_CHROMIUM=1`,
 * as in CI), and a browser for the length of a scope.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { type Browser, chromium, type Page, type Request } from "playwright-core"

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
 * A request the page was still making when the test navigated it away (a
 * reload, a `goto`) is cut short by that navigation, not failed: its
 * `ERR_ABORTED` is not counted.
 */
export const watchErrors = (page: Page): Array<string> => {
  const errors: Array<string> = []
  const inFlight = new Set<Request>()
  const leftBehind = new WeakSet<Request>()
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`)
  })
  page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`))
  page.on("request", (request) => {
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      for (const pending of inFlight) leftBehind.add(pending)
      inFlight.clear()
    } else {
      inFlight.add(request)
    }
  })
  page.on("requestfinished", (request) => inFlight.delete(request))
  page.on("requestfailed", (request) => {
    inFlight.delete(request)
    const errorText = request.failure()?.errorText ?? ""
    if (leftBehind.has(request) && errorText === "net::ERR_ABORTED") return
    errors.push(`request failed: ${request.url()} ${errorText}`)
  })
  return errors
}

/**
 * Waits until `page` has made no request for `quietMillis` (none in flight
 * meanwhile), at most `timeoutMillis`: a screen reached by the console's own
 * routing loads its lazy modules after the URL changes, when Playwright's
 * load states have long been reached, and a navigation before they arrive
 * aborts them.
 */
export const settled = async (page: Page, quietMillis = 500, timeoutMillis = 20_000): Promise<void> => {
  let inFlight = 0
  let last = Date.now()
  const started = () => {
    inFlight += 1
    last = Date.now()
  }
  const ended = () => {
    inFlight = Math.max(0, inFlight - 1)
    last = Date.now()
  }
  page.on("request", started)
  page.on("requestfinished", ended)
  page.on("requestfailed", ended)
  try {
    const deadline = Date.now() + timeoutMillis
    // Lets a request the last step set off begin before the quiet is measured.
    await page.waitForTimeout(50)
    while ((inFlight > 0 || Date.now() - last < quietMillis) && Date.now() < deadline) await page.waitForTimeout(50)
  } finally {
    page.off("request", started)
    page.off("requestfinished", ended)
    page.off("requestfailed", ended)
  }
}

/**
 * `watchErrors`, less the failed answers a test expects (a refusal the page
 * tells in words): Chromium logs each failed fetch as a console error
 * without its URL, so each response `expected` accepts excuses one such
 * error of its status. Read the errors left when the test is done.
 */
export const watchErrorsExcept = (page: Page, expected: (path: string, status: number) => boolean): () => ReadonlyArray<string> => {
  const errors = watchErrors(page)
  const excused: Array<number> = []
  page.on("response", (response) => {
    if (response.status() >= 400 && expected(new URL(response.url()).pathname, response.status())) excused.push(response.status())
  })
  return () => {
    const left = [...excused]
    return errors.filter((e) => {
      const match = /Failed to load resource: the server responded with a status of (\d+)/.exec(e)
      const i = match === null ? -1 : left.indexOf(Number(match[1]))
      if (i < 0) return true
      left.splice(i, 1)
      return false
    })
  }
}

/** The page's content-security-policy violations (`directive blocked-URI`), collected from its first script on. */
export const watchPolicy = async (page: Page): Promise<() => Promise<ReadonlyArray<string>>> => {
  await page.addInitScript(() => {
    const seen: Array<string> = []
    ;(globalThis as any).__violations = seen
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`))
  })
  return () => page.evaluate(() => (globalThis as any).__violations as Array<string>)
}
