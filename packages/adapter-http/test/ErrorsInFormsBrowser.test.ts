/**
 * Refusals and endings in words, in real headless Chromium, at 1280 and
 * 390 px, axe clean:
 *
 * - a schedule with a bad cron and an unknown time zone: both fields are
 *   marked (`aria-invalid`, a message under each tied by
 *   `aria-describedby`), focus on the first, and the box lists them by
 *   their labels; no "see errors", no API field names;
 * - a team name the service refuses (too long): the field marked the same;
 * - a link shared until a day gone by, in the share dialog: its expiry
 *   field marked in words (not "expires_at must be in the future");
 * - a report or a webhook that does not exist: one box in words with the
 *   way back, no "Try again", nothing else of the screen;
 * - a session that ends under a report with its filters and page: the next
 *   console call leads to sign-in, which says the session ended, and signing
 *   in again comes back to the same filters and page.
 *
 * Screenshots with `VIEWER_SHOTS=<dir>`.
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Locator, Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"
import { setup } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `forms-${name}.png`), fullPage: true })
}

const widths = [1280, 390] as const

/** The words that describe a field (its `aria-describedby`), as a screen reader reads them. */
const description = (field: Locator) =>
  field.evaluate((el) =>
    (el.getAttribute("aria-describedby") ?? "").split(/\s+/).filter((id) => id !== "")
      .map((id) => (el.getRootNode() as Document | ShadowRoot).getElementById(id)?.textContent?.trim() ?? "").join(" ")
  )

const focused = (field: Locator) => field.evaluate((el) => el === (el.getRootNode() as Document | ShadowRoot).activeElement)

const scrollWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth)

/** No words of the API reach the page. */
const noJargon = (text: string, where: string) => {
  for (const word of ["see errors", "failed validation", "payload", "hold together", "bearer", "expires_at", "IANA", "Expected a"]) assert.notInclude(text, word, where)
}

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("refusals and endings in words, in headless Chromium"), () => {
  it.live("a bad cron and time zone mark their fields in words; a refused team name marks its field", () =>
    Effect.gen(function*() {
      const { admin, ok, server, workspaceId } = yield* setup
      // A user of the tenant to send to (the report's data has row-level security: recipients are its users).
      yield* ok("POST", "/v1/users", { email: "ops@example.com", name: "Ops", roles: ["member"] })
      const browser: Browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of widths) {
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { width })
          const errors = Chromium.watchErrorsExcept(page, (_path, status) => status === 400)

          // The schedule: a cron of four fields and a zone that is none.
          await page.goto(`${server.url}/w/${workspaceId}/schedules`)
          await page.getByRole("button", { name: "New schedule" }).click()
          await page.getByLabel("Name", { exact: true }).fill("Weekly")
          // (This deployment renders no PDF: CSV is what it produces.)
          await page.getByLabel("Format").selectOption("csv")
          const cron = page.getByLabel("When (cron)")
          const zone = page.getByLabel("Time zone")
          await cron.fill("99 * * *")
          await zone.fill("Mars/Base")
          await page.getByLabel("Recipients").fill("ops@example.com")
          await page.getByRole("button", { name: "Create schedule" }).click()
          const alert = page.getByRole("alert")
          await alert.getByText("Some fields need correcting").waitFor({ timeout: 20_000 })
          await page.waitForFunction(() => document.querySelector("#schedule-cron")?.getAttribute("aria-invalid") === "true")
          assert.strictEqual(await cron.getAttribute("aria-invalid"), "true")
          assert.strictEqual(await zone.getAttribute("aria-invalid"), "true")
          assert.include(await description(cron), "Use a five-field cron expression such as \"0 8 * * 1\"")
          assert.include(await description(cron), "Minute, hour, day of month", "the field's own hint stays")
          assert.include(await description(zone), "Choose a time zone from the list, such as Europe/Paris.")
          assert.isTrue(await focused(cron), "focus on the first field marked")
          const box = await alert.innerText()
          assert.include(box, "When (cron): Use a five-field cron expression")
          assert.include(box, "Time zone: Choose a time zone from the list")
          noJargon(box, `schedule box at ${width}`)
          noJargon(await page.locator("main").innerText(), `schedule screen at ${width}`)
          assert.deepStrictEqual(await Axe.serious(page), [], `schedule refused at ${width}`)
          assert.isAtMost(await scrollWidth(page), width, `schedule form at ${width}`)
          await shoot(page, `cron-${width}`)
          // Corrected, the marks go and the schedule is made.
          await cron.fill("0 9 * * 1")
          await zone.fill("Europe/Paris")
          await page.getByRole("button", { name: "Create schedule" }).click()
          await page.getByRole("status").getByText("Weekly created.").waitFor({ timeout: 20_000 })
          assert.strictEqual(await page.locator("[aria-invalid=true]").count(), 0)

          // The team: a name longer than the service takes.
          await page.goto(`${server.url}/directory?tab=teams`)
          const name = page.getByLabel("New team's name")
          await name.fill("T".repeat(201))
          await page.getByRole("button", { name: "Create the team" }).click()
          await page.waitForFunction(() => document.querySelector("input[aria-invalid=true]") !== null, undefined, { timeout: 20_000 })
          assert.strictEqual(await name.getAttribute("aria-invalid"), "true")
          assert.strictEqual(await description(name), "Use at most 200 characters.")
          assert.isTrue(await focused(name))
          const teamBox = await page.getByRole("alert").innerText()
          assert.include(teamBox, "New team's name: Use at most 200 characters.")
          noJargon(teamBox, `team box at ${width}`)
          assert.deepStrictEqual(await Axe.serious(page), [], `team refused at ${width}`)
          assert.isAtMost(await scrollWidth(page), width, `team form at ${width}`)
          await shoot(page, `team-${width}`)
          await context.close()
          assert.deepStrictEqual(errors(), [])
        }
      })
    }).pipe(Effect.scoped), { timeout: 180_000 })

  it.live("the share dialog marks an expiry in the past in words", () =>
    Effect.gen(function*() {
      const { admin, reportId, server, workspaceId } = yield* setup
      const browser: Browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of widths) {
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { width })
          const errors = Chromium.watchErrorsExcept(page, (_path, status) => status === 400)
          await page.goto(`${server.url}/w/${workspaceId}/reports/${reportId}`)
          await page.getByRole("button", { name: "Share" }).click()
          const dialog = page.getByRole("dialog")
          await dialog.getByLabel("Anyone with the link").check()
          const expiry = dialog.getByLabel("Expires on (optional)")
          const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
          await expiry.fill(yesterday)
          await dialog.getByRole("button", { name: "Share", exact: true }).click()
          await dialog.getByRole("alert").waitFor({ timeout: 20_000 })
          await page.waitForFunction(() => document.querySelector("analytics-share-dialog")?.shadowRoot?.querySelector("#expires")?.getAttribute("aria-invalid") === "true", undefined, { timeout: 5_000 })
          assert.include(await description(expiry), "Choose a date after today.")
          assert.include(await description(expiry), "Access ends at the end of that day.", "the field's hint stays")
          assert.isTrue(await focused(expiry))
          const box = await dialog.getByRole("alert").innerText()
          assert.include(box, "These sharing settings cannot be saved")
          assert.include(box, "Expires on (optional): Choose a date after today.")
          noJargon(box, `share box at ${width}`)
          assert.deepStrictEqual(await Axe.serious(page), [], `share refused at ${width}`)
          await shoot(page, `share-expiry-${width}`)
          await context.close()
          assert.deepStrictEqual(errors(), [])
        }
      })
    }).pipe(Effect.scoped), { timeout: 180_000 })

  it.live("a report or a webhook that does not exist is one box in words with the way back, no Try again", () =>
    Effect.gen(function*() {
      const { admin, server, workspaceId } = yield* setup
      const gone = "0190a7e2-0000-7000-8000-000000000000"
      const browser: Browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of widths) {
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { width })
          const errors = Chromium.watchErrorsExcept(page, (_path, status) => status === 404)
          for (const [path, words, back, name] of [
            [`w/${workspaceId}/reports/${gone}`, "This report does not exist or was deleted", "Go back to the workspace", "report"],
            [`webhooks/${gone}`, "This webhook does not exist or was deleted", "Go back to the webhooks", "webhook"]
          ] as const) {
            await page.goto(`${server.url}/${path}`)
            const alert = page.getByRole("alert")
            await alert.getByText(words).waitFor({ timeout: 20_000 })
            await page.waitForTimeout(300)
            assert.strictEqual(await alert.count(), 1, `one box for a missing ${name}`)
            assert.strictEqual(await page.getByRole("button", { name: "Try again" }).count(), 0, `no Try again on a missing ${name}`)
            noJargon(await page.locator("main").innerText(), `missing ${name}`)
            assert.notInclude(await page.locator("main").innerText(), "No such", `missing ${name}`)
            assert.deepStrictEqual(await Axe.serious(page), [], `missing ${name} at ${width}`)
            assert.isAtMost(await scrollWidth(page), width, `missing ${name} at ${width}`)
            await shoot(page, `missing-${name}-${width}`)
            // The screen's lazy modules settle first: a navigation would abort their fetches, which the watch counts as errors.
            await Chromium.settled(page)
            await alert.getByRole("link", { name: back }).click()
            await page.waitForURL((url) => !url.pathname.includes(gone))
            // The screen gone back to loads its lazy modules in full before the next navigation or the end (either aborts what is still loading).
            await Chromium.settled(page)
          }
          assert.strictEqual(new URL(page.url()).pathname, "/webhooks")
          assert.deepStrictEqual(errors(), [])
          await context.close()
        }
      })
    }).pipe(Effect.scoped), { timeout: 180_000 })

  it.live("a session that ends under a report says so at sign-in, and signing in again comes back to the same filters and page", () =>
    Effect.gen(function*() {
      const { admin, reportId, server, workspaceId } = yield* setup
      const browser: Browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of widths) {
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { width })
          const errors = Chromium.watchErrorsExcept(page, (_path, status) => status === 401)
          await page.goto(`${server.url}/w/${workspaceId}/reports/${reportId}#page=Products`)
          await page.locator(`[data-visual="products"] table`).waitFor({ timeout: 20_000 })
          const filtered = page.waitForResponse((r) => r.url().includes("/view?filters="))
          await page.selectOption("#filter-region", { label: "EU" })
          assert.strictEqual((await filtered).status(), 200)
          await page.waitForURL((url) => url.searchParams.has("filters"))
          const view = new URL(page.url())
          assert.strictEqual(view.hash, "#page=Products")

          // The session ends (its cookie is gone); the next call the console makes is refused.
          await context.clearCookies()
          // The share dialog reads the report's grants as it opens (its People with access, Manage's list).
          await page.getByRole("button", { name: "Share" }).click()
          await page.waitForURL((url) => url.pathname === "/sign-in", { timeout: 20_000 })
          const at = new URL(page.url())
          assert.strictEqual(at.searchParams.get("ended"), "1")
          assert.strictEqual(at.searchParams.get("next"), `w/${workspaceId}/reports/${reportId}${view.search}${view.hash}`)
          await page.getByRole("status").getByText("Your session has ended. Sign in again to go back to where you were.").waitFor()
          assert.deepStrictEqual(await Axe.serious(page), [], `session ended at ${width}`)
          assert.isAtMost(await scrollWidth(page), width, `sign-in at ${width}`)
          await shoot(page, `session-ended-${width}`)

          // Signed in again: the same report, its filters and its page.
          await page.getByText("Sign in with an API token (admins)").click()
          await page.getByLabel("API token").fill(admin)
          await page.getByRole("button", { name: "Sign in with the token" }).click()
          await page.waitForURL((url) => url.pathname === view.pathname, { timeout: 20_000 })
          assert.strictEqual(new URL(page.url()).search, view.search)
          assert.strictEqual(new URL(page.url()).hash, "#page=Products")
          await page.locator(`[data-visual="products"] table`).waitFor({ timeout: 20_000 })
          assert.strictEqual(await page.locator("[role=tab][aria-selected=true]").innerText(), "Products")
          assert.strictEqual(await page.locator("#filter-region").evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.textContent), "EU")
          await shoot(page, `session-back-${width}`)
          await context.close()
          assert.deepStrictEqual(errors(), [])
        }
      })
    }).pipe(Effect.scoped), { timeout: 180_000 })
})
