/**
 * Share pages as a brand sends them, in real headless Chromium at 1280 and
 * 390 px, light and dark (decision 0014), axe clean, no console error nor
 * content-security-policy violation:
 *
 * - the tenant's name and logo on the share, the password form and the
 *   revoked page (which speaks of a link, never of a grant), the header's
 *   text on the content's grid;
 * - dark mode as the console's (`prefers-color-scheme`);
 * - the revenue key figure compact (`€…M`), its exact value its tooltip and
 *   what a screen reader reads;
 * - the filters in force as chips, each removing its filter;
 * - each visual's menu: its CSV with the filters on screen, its chart as a
 *   PNG, full screen and back;
 * - the Products table says it scrolls where it is wider than the screen.
 *
 * Screenshots are saved in `VIEWER_SHOTS` (else the system's temp folder).
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { grantsPath, setupWith } from "./ReportViewerFixture.ts"

/** A 1×1 PNG. */
const pngLogo = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

const shots = process.env.VIEWER_SHOTS ?? join(tmpdir(), "share-brand-shots")

const shoot = async (page: Page, name: string) => {
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `brand-${name}.png`), fullPage: true })
}

/** Waits until the view asked for is shown (the loading status empty again). */
const settled = (page: Page) =>
  page.waitForFunction(() => document.querySelector("report-viewer p.loading[role=status]")?.textContent === "", undefined, { timeout: 20_000 })

const asking = async (page: Page, action: () => Promise<unknown>) => {
  const answered = page.waitForResponse((r) => r.request().resourceType() === "fetch", { timeout: 20_000 })
  await action()
  await answered
  await settled(page)
}

/** The brand a page shows: its name and its logo's source. */
const brandOf = async (page: Page) => ({
  name: await page.locator("header .brand").innerText(),
  logo: await page.locator("header .brand img").getAttribute("src")
})

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("share pages as a brand sends them, in headless Chromium"), () => {
  it.live("brand on the share, password and revoked pages; dark mode; compact figure; chips; menu CSV, PNG, full screen; scroll hint; 1280 and 390 px", () =>
    Effect.gen(function*() {
      const { ok, reportId, server } = yield* setupWith({})
      yield* ok("PATCH", "/v1/branding", { name: "Northwind Traders", logo: pngLogo, accent_color: "#0f766e" })
      const link = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view", "download"] })
      const locked = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"], password: "correct horse battery" })
      const gone = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"] })
      yield* ok("DELETE", `${grantsPath}/${gone.grant_id}`)
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of [1280, 390]) {
          for (const colorScheme of ["light", "dark"] as const) {
            const label = `${width} px, ${colorScheme}`
            const context = await browser.newContext({ viewport: { width, height: 900 }, locale: "en-US", colorScheme, acceptDownloads: true })
            const page = await context.newPage()
            const errors = Chromium.watchErrorsExcept(page, (_, status) => status === 401 || status === 403)
            const policy = await Chromium.watchPolicy(page)

            // The password form and the revoked page wear the brand; the revoked page speaks of a link.
            await page.goto(`${server.url}${new URL(locked.link_url).pathname}`)
            assert.deepStrictEqual(await brandOf(page), { name: "Northwind Traders", logo: pngLogo }, `password page, ${label}`)
            await page.getByRole("heading", { name: "Password required" }).waitFor()
            assert.deepStrictEqual(await Axe.serious(page), [], `password page, ${label}`)
            await shoot(page, `password-${width}-${colorScheme}`)
            await page.goto(`${server.url}${new URL(gone.link_url).pathname}`)
            assert.deepStrictEqual(await brandOf(page), { name: "Northwind Traders", logo: pngLogo }, `revoked page, ${label}`)
            await page.getByRole("heading", { name: "This link was revoked" }).waitFor()
            assert.notMatch(await page.locator("body").innerText(), /grant/i, `revoked page, ${label}`)
            assert.deepStrictEqual(await Axe.serious(page), [], `revoked page, ${label}`)
            await shoot(page, `revoked-${width}-${colorScheme}`)

            // The share.
            await page.goto(`${server.url}${new URL(link.link_url).pathname}`)
            const region = page.getByRole("combobox", { name: "Region", exact: true })
            await region.waitFor({ timeout: 20_000 })
            assert.deepStrictEqual(await brandOf(page), { name: "Northwind Traders", logo: pngLogo }, `share page, ${label}`)
            // The header's text starts where the content does.
            const [title, content] = await Promise.all([
              page.getByRole("heading", { name: "Sales overview", level: 1 }).boundingBox(),
              page.locator("main filter-bar").boundingBox()
            ])
            assert.approximately(title!.x, content!.x, 1, `header aligned with the content, ${label}`)
            // Dark mode as the console's.
            const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
            assert.strictEqual(background, colorScheme === "dark" ? "rgb(18, 20, 23)" : "rgb(246, 248, 250)", label)

            // The key figure: compact, its exact value in the tooltip and read by screen readers.
            const kpi = page.locator('[data-visual="revenue_total"] .kpi')
            const shortText = await kpi.locator("[aria-hidden=true]").innerText()
            const exact = await kpi.getAttribute("title")
            assert.match(shortText, /^€\d+(\.\d)?[KM]$/, label)
            assert.match(exact ?? "", /^€\d{1,3}(,\d{3})+\.\d{2}$/, label)
            assert.strictEqual(await kpi.locator(".visually-hidden").innerText(), exact)

            // A filter in force is a chip; removing it lifts the filter.
            await asking(page, () => region.selectOption({ label: "EU" }))
            const chip = page.getByRole("button", { name: "Remove filter Region: EU" })
            await chip.waitFor()
            assert.deepStrictEqual(await Axe.serious(page), [], `share page with a chip, ${label}`)
            await shoot(page, `share-${width}-${colorScheme}`)
            await asking(page, () => chip.click())
            assert.strictEqual(await chip.count(), 0, `chip removed, ${label}`)
            assert.strictEqual(await region.evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.textContent), "All")
            await asking(page, () => region.selectOption({ label: "EU" }))

            // The chart's menu: its CSV with the filters on screen (the only CSV entry), its PNG, full screen.
            const card = page.locator('visual-card[data-visual="revenue_by_region"]')
            const menu = card.locator("summary", { hasText: "Options for Revenue by region" })
            await menu.click()
            assert.deepStrictEqual(await Axe.serious(page), [], `menu open, ${label}`)
            await shoot(page, `menu-${width}-${colorScheme}`)
            assert.strictEqual(await card.getByRole("link", { name: "Download CSV" }).count(), 1, "one CSV entry")
            const csvDownload = page.waitForEvent("download")
            await card.getByRole("link", { name: "Download CSV" }).click()
            const csv = readFileSync((await (await csvDownload).path())!, "utf8")
            const regions = csv.trim().split("\n").slice(1).map((line) => line.split(",")[0])
            assert.deepStrictEqual(regions, ["EU"], `the CSV has the filters on screen, ${label}: ${csv}`)
            await menu.click()
            const pngDownload = page.waitForEvent("download")
            await card.getByRole("button", { name: "Download PNG" }).click()
            const png = await pngDownload
            assert.match(png.suggestedFilename(), /^Revenue-by-region\.png$/)
            const bytes = readFileSync((await png.path())!)
            assert.deepStrictEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], "a PNG")
            assert.isAbove(bytes.length, 2_000)
            await menu.click()
            await card.getByRole("button", { name: "Full screen" }).click()
            await page.waitForFunction(() => document.fullscreenElement?.getAttribute("data-visual") === "revenue_by_region")
            await shoot(page, `fullscreen-${width}-${colorScheme}`)
            await menu.click()
            await card.getByRole("button", { name: "Exit full screen" }).click()
            await page.waitForFunction(() => document.fullscreenElement === null)

            // The Products table: says it scrolls where it is wider than the screen.
            await page.getByRole("tab", { name: "Products" }).click()
            const table = page.getByRole("region", { name: "Products" })
            await table.waitFor()
            const overflows = await table.evaluate((el) => el.scrollWidth > el.clientWidth + 1)
            const hint = page.locator("[data-visual=products]").getByText("Scroll sideways to see every column.")
            await page.waitForFunction((expected) => {
              const p = document.querySelector("[data-visual=products] .scroll-hint") as HTMLElement | null
              return p !== null && p.hidden === !expected
            }, overflows, { timeout: 5_000 })
            assert.strictEqual(await hint.isVisible(), overflows, `scroll hint, ${label}`)
            if (width === 390) assert.isTrue(overflows, "the Products table is wider than a phone")
            if (overflows) assert.strictEqual(await table.getAttribute("aria-describedby"), await hint.getAttribute("id"))
            assert.deepStrictEqual(await Axe.serious(page), [], `products, ${label}`)
            await shoot(page, `products-${width}-${colorScheme}`)
            assert.isAtMost(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0, `no page overflow, ${label}`)
            assert.deepStrictEqual(await policy(), [], label)
            assert.deepStrictEqual(errors(), [], label)
            await context.close()
          }
        }
      })
    }).pipe(Effect.scoped), 300_000)
})
