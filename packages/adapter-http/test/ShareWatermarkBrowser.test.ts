/**
 * A watermarked link made in the share dialog names its viewer (issue 40
 * item 7), in real headless Chromium at 1280 and 390 px: the console's
 * admin shares the demo report by a link with a watermark and the viewer's
 * e-mail; a fresh browser context opens the link and the watermark tiles
 * that address, not "Shared link …". A bad address is refused in words in
 * the dialog and no grant is made. Axe clean; screenshots of the dialog at
 * both widths (`VIEWER_SHOTS=<dir>`).
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"
import { grantsPath, setup } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: false })
}

const widths = [{ width: 1280, height: 900 }, { width: 390, height: 844 }] as const

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("a watermarked link's viewer e-mail in headless Chromium"), () => {
  it.live("Share by link with a watermark and the viewer's e-mail → the link's page tiles that address; a bad address is refused in words, nothing made; 1280 and 390 px", () =>
    Effect.gen(function*() {
      const { admin, ok, reportId, server, workspaceId } = yield* setup
      const browser: Browser = yield* Chromium.launch
      const links = () =>
        ok("GET", `${grantsPath}?subject_type=report&subject_id=${reportId}&principal_type=link`).pipe(Effect.runPromise)
          .then((page) => page.data as Array<{ email: string | null; watermark: boolean }>)
      yield* Effect.promise(async () => {
        for (const viewport of widths) {
          const viewer = `viewer-${viewport.width}@partner.example`
          const { context, page } = await consolePage(browser, server.url, { token: admin }, viewport)
          const errors = Chromium.watchErrors(page)
          await page.goto(`${server.url}/w/${workspaceId}`)
          await page.getByRole("button", { name: "Share Sales overview" }).click()
          const dialog = page.locator("analytics-share-dialog dialog.share")
          await dialog.getByRole("heading", { name: "Share Sales overview" }).waitFor()
          await dialog.getByLabel("Anyone with the link").check()
          const field = dialog.getByLabel("Viewer's e-mail (shown in the watermark)")
          assert.strictEqual(await field.count(), 0, "no viewer's e-mail without a watermark")
          await dialog.getByLabel(/^Watermark:/).check()
          await field.waitFor()

          // A bad address: refused in words, focus on the field, nothing made.
          const before = (await links()).length
          await field.fill("not an address")
          await dialog.getByRole("button", { name: "Share", exact: true }).click()
          const refusal = dialog.getByRole("alert")
          await refusal.waitFor()
          assert.include(await refusal.innerText(), "The viewer's e-mail does not look like an address")
          assert.strictEqual(await field.getAttribute("aria-invalid"), "true")
          assert.isTrue(await field.evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement), "focus on the field")
          assert.strictEqual((await links()).length, before, "nothing is created")
          assert.deepStrictEqual(await Axe.serious(page), [], `refused at ${viewport.width} px`)
          await shoot(page, `share-watermark-refused-${viewport.width}`)

          // The viewer's address: the link is for them.
          await field.fill(viewer)
          await refusal.waitFor({ state: "detached" })
          assert.strictEqual(await field.getAttribute("aria-invalid"), "false")
          assert.deepStrictEqual(await Axe.serious(page), [], `watermark with e-mail at ${viewport.width} px`)
          await shoot(page, `share-watermark-email-${viewport.width}`)
          assert.isAtMost(await dialog.evaluate((el) => el.scrollWidth - el.clientWidth), 0, `the dialog fits ${viewport.width} px`)
          await dialog.getByRole("button", { name: "Share", exact: true }).click()
          await dialog.getByText("Link created. Copy it now, or later under Manage.").waitFor()
          const link = await dialog.locator("#created-link").inputValue()
          const made = (await links()).filter((g) => g.email === viewer)
          assert.deepStrictEqual(made.map((g) => g.watermark), [true], "one watermarked link, for the viewer")
          assert.deepStrictEqual(errors, [])
          await context.close()

          // A fresh context opens the link: the watermark tiles the viewer's address.
          const visitor = await browser.newContext({ viewport })
          const other = await visitor.newPage()
          await other.goto(`${server.url}${new URL(link).pathname}`)
          await other.getByRole("heading", { name: "Sales overview" }).waitFor({ timeout: 20_000 })
          const mark = other.locator(".watermark")
          assert.strictEqual(await mark.getAttribute("data-watermark"), viewer)
          const image = decodeURIComponent(await mark.evaluate((el) => getComputedStyle(el).backgroundImage))
          assert.include(image, viewer)
          assert.notInclude(image, "Shared link")
          await visitor.close()
        }
      })
    }).pipe(Effect.scoped), 120_000)
})
