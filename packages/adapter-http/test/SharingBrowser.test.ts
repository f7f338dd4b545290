/**
 * Shared content in real headless Chromium (Debian's, through
 * playwright-core): a password link refuses two wrong passwords, opens
 * with the right one, shows the report and the watermark (screenshot
 * taken); an embed snippet renders inside a host page of another origin.
 */
import { Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { statSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { grantsPath, passwordLink, setup } from "./SharingFixture.ts"

/** A page of an embedding app on its own origin (another port), holding `snippet`. */
const hostPage = (snippet: string) =>
  Effect.acquireRelease(
    Effect.callback<{ readonly url: string; readonly close: () => void }>((resume) => {
      const server = createServer((_, response) => {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        response.end(`<!doctype html><html><head><title>Partner portal</title></head><body><h1>Partner portal</h1>${snippet}</body></html>`)
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() })))
    }),
    (host) => Effect.sync(host.close)
  )

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("shared links and embeds in headless Chromium"), () => {
  it.live("a password link: two wrong passwords, then the right one, the report and its watermark; an embed inside a host page", () =>
    Effect.gen(function*() {
      const { ok, reportId, server } = yield* setup
      const link = yield* ok("POST", grantsPath, passwordLink(reportId))
      const browser = yield* Chromium.launch
      const screenshot = join(tmpdir(), `shared-link-${Date.now()}.png`)
      const seen = yield* Effect.promise(async () => {
        const page = await browser.newPage()
        const errors: Array<string> = []
        page.on("pageerror", (error) => errors.push(error.message))
        await page.goto(`${server.url}${new URL(link.link_url).pathname}`)
        const asked = await page.locator("label[for=password]").innerText()
        const failures: Array<string> = []
        for (const wrong of ["wrong one", "wrong two"]) {
          await page.fill("#password", wrong)
          await Promise.all([page.waitForLoadState("load"), page.click("button[type=submit]")])
          failures.push(await page.locator(".error").innerText())
        }
        await page.fill("#password", "correct horse battery")
        await Promise.all([page.waitForURL(/\/s\//), page.click("button[type=submit]")])
        await page.getByRole("heading", { name: "Sales overview" }).waitFor({ timeout: 20_000 })
        const text = await page.locator("main").innerText()
        const watermark = await page.locator(".watermark").getAttribute("data-watermark")
        const watermarkImage = await page.locator(".watermark").evaluate((el) => getComputedStyle(el).backgroundImage)
        const downloads = await page.getByRole("link", { name: "Download CSV" }).count()
        await page.screenshot({ path: screenshot, fullPage: true })
        return { asked, failures, text, watermark, watermarkImage, downloads, errors }
      })
      assert.include(seen.asked, "password")
      assert.deepStrictEqual(seen.failures, ["That is not the link's password", "That is not the link's password"])
      assert.include(seen.text, "Total")
      assert.include(seen.text, "4,095")
      assert.include(seen.text, "APAC")
      assert.strictEqual(seen.watermark, "board@example.com")
      assert.include(decodeURIComponent(seen.watermarkImage), "board@example.com")
      assert.strictEqual(seen.downloads, 0, "view only: no download control")
      assert.deepStrictEqual(seen.errors, [])
      const png = statSync(screenshot)
      assert.isAbove(png.size, 10_000, `screenshot at ${screenshot}`)

      // An embed: the snippet in a partner's page, another origin; the viewer's region applies.
      const embed = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view"], watermark: true })
      const minted = yield* ok("POST", `${grantsPath}/${embed.grant_id}/embed-tokens`, { attributes: { region: "EU", email: "viewer@partner.example" } })
      // The service believes it is at http://127.0.0.1 (no port); the test server listens on its own.
      const snippet = (minted.iframe as string).replace("http://127.0.0.1/", `${server.url}/`)
      const host = yield* hostPage(snippet)
      const framed = yield* Effect.promise(async () => {
        const page = await browser.newPage()
        await page.goto(host.url)
        const frame = page.frameLocator("iframe")
        await frame.getByRole("heading", { name: "Sales overview" }).waitFor({ timeout: 20_000 })
        return {
          host: await page.locator("h1").innerText(),
          text: await frame.locator("main").innerText(),
          watermark: await frame.locator(".watermark").getAttribute("data-watermark")
        }
      })
      assert.strictEqual(framed.host, "Partner portal")
      assert.include(framed.text, "EU")
      assert.notInclude(framed.text, "APAC")
      assert.include(framed.text, "1,335")
      assert.strictEqual(framed.watermark, "viewer@partner.example")
    }).pipe(Effect.scoped), { timeout: 90_000 })
})
