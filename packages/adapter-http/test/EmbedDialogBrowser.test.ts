/**
 * An embed made in the share dialog, in real headless Chromium, on the
 * demo as the host seeds it (decision 0014, "Embeds in the console"): an
 * embed's viewer sees the rows of their `region` attribute and nothing
 * without it. Choosing "Embed in another site" shows, live, what the
 * viewer would see: a warning naming the attribute to add under "Who
 * views it"; once given, every visual has rows. Locked values are picked
 * from the filter's values (a select, never free text). The embed made is
 * listed on the workspace's Public links screen and revoked there. Once
 * made, the embed itself shows live under its snippet ("What your page
 * will show": its frame loads the report with the snippet's token, within
 * the console's policy, which frames the service's embed page only). Axe
 * clean, no console error, screenshots at 1280 and 390 px
 * (`VIEWER_SHOTS=<dir>`).
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"
import { setupWith } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: false })
}

const dialogOf = (page: Page) => page.locator("analytics-share-dialog dialog.share")

const warning = "Row-level security on Sales reads the attribute `region`; add it under Who views it."

/** The preview frame's accessible name. */
const frameTitle = "Sales overview, as the embed shows it"

/** The embed made, inside the dialog's preview frame: the report's title and its drawn visuals, with rows (the viewer's region). */
const expectEmbedShown = async (page: Page) => {
  const inside = page.frameLocator(`iframe[title="${frameTitle}"]`)
  await inside.getByRole("heading", { name: "Sales overview", level: 1 }).waitFor({ timeout: 20_000 })
  await inside.locator('[data-visual="revenue_by_region"] svg').first().waitFor({ timeout: 20_000 })
  const text = await inside.locator("body").innerText()
  assert.notInclude(text, "Nothing here is visible to you")
  assert.notInclude(text, "has expired")
  assert.isAbove(await inside.locator("[data-visual]").count(), 1, "its visuals are drawn")
}

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("embeds made in the share dialog, in headless Chromium"), () => {
  it.live("the demo's embed warns of the missing attribute, shows rows once it is given; locked values from a list; listed on Public links and revoked there; 390 px", () =>
    Effect.gen(function*() {
      // The demo as the host seeds it (an embed sees its `region` attribute's rows), at the server's own URL: the embed's URL opens in the preview.
      const { admin, ok, server, workspaceId } = yield* setupWith({ atOwnUrl: true }, false)
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin })
        const errors = Chromium.watchErrors(page)
        await page.goto(`${server.url}/w/${workspaceId}`)
        await page.getByRole("button", { name: "Share Sales overview" }).click()
        const dialog = dialogOf(page)
        await dialog.getByRole("heading", { name: "Share Sales overview" }).waitFor()

        // An embed: the preview says at once that the viewer would see nothing, and how to fix it.
        await dialog.getByLabel("Embed in another site").check()
        const preview = dialog.getByRole("region", { name: "What the viewer sees" })
        await preview.getByText(warning).waitFor()
        await preview.getByText("0 of 9 visuals show rows.").waitFor()
        assert.include(await preview.getByRole("list", { name: "Visuals the viewer sees" }).innerText(), "Nothing visible")
        assert.deepStrictEqual(await Axe.serious(page), [], "embed with its warning")
        await preview.scrollIntoViewIfNeeded()
        await shoot(page, "embed-warning-1280")

        // Locked values: a list of the filter's values, never free text; a date range is left to the viewer.
        assert.strictEqual(await dialog.getByRole("textbox", { name: "Region" }).count(), 0)
        const region = dialog.getByRole("combobox", { name: "Region", exact: true })
        assert.deepStrictEqual(await region.locator("option").allInnerTexts(), ["Not locked", "APAC", "EU", "LATAM", "US"])
        assert.deepStrictEqual(await dialog.getByRole("combobox", { name: "Channel", exact: true }).locator("option").allInnerTexts(), ["Not locked", "Direct", "Online", "Partner"])
        await dialog.getByText("Order date: a date range cannot be locked; the viewer chooses it.").waitFor()
        await region.selectOption("EU")

        // Who views it: the attribute row-level security reads, picked from its dimension's values; then every visual has rows.
        const attribute = dialog.getByRole("combobox", { name: "Region (attribute “region”)" })
        await attribute.selectOption("EU")
        await dialog.getByLabel("Viewer's e-mail (optional)").fill("ana@partner.example")
        await preview.getByText("Every visual shows rows (9 visuals).").waitFor()
        assert.strictEqual(await preview.getByText(warning).count(), 0)
        assert.notInclude(await preview.innerText(), "Nothing visible")
        assert.deepStrictEqual(await Axe.serious(page), [], "embed with rows")
        await preview.scrollIntoViewIfNeeded()
        await shoot(page, "embed-rows-1280")

        // Made: its token carries the locked value and the viewer's attributes, and the embed shows rows.
        await dialog.getByRole("button", { name: "Share", exact: true }).click()
        await dialog.getByText("Embed created. Copy the snippet into the other site's page.").waitFor()
        const snippet = await dialog.locator("#created-snippet").inputValue()
        const token = /[?&]token=([\w-]+\.[\w-]+\.[\w-]+)/.exec(snippet)?.[1]
        assert.isDefined(token, snippet)
        const claims = JSON.parse(Buffer.from(token!.split(".")[1]!, "base64url").toString())
        assert.deepStrictEqual(claims.params, { region: "EU" })
        assert.deepStrictEqual(claims.attributes, { region: "EU", email: "ana@partner.example" })

        // What your page will show: the embed itself, live under the snippet, with the snippet's own token.
        const shown = dialog.getByRole("region", { name: "What your page will show" })
        await shown.waitFor()
        const frame = shown.locator("iframe")
        assert.strictEqual(await frame.getAttribute("title"), frameTitle)
        const src = new URL((await frame.getAttribute("src"))!)
        assert.strictEqual(`${src.origin}${src.pathname}`, `${server.url}/embed`, "the snippet's own URL")
        assert.strictEqual(src.searchParams.get("token"), token)
        await expectEmbedShown(page)
        await shown.scrollIntoViewIfNeeded()
        assert.deepStrictEqual(await Axe.serious(page), [], "the embed made, previewed")
        await shoot(page, "embed-preview-1280")
        const box = (await frame.boundingBox())!
        assert.isAtLeast(box.height, 320, "tall enough to read")
        assert.isAtMost(box.x + box.width, 1280, "within the screen")
        const embedded = await context.newPage()
        const opened = await embedded.goto(`${server.url}/embed?token=${token}`)
        assert.strictEqual(opened?.status(), 200)
        assert.notInclude(await embedded.locator("body").innerText(), "Nothing here is visible to you")
        await embedded.close()
        await dialog.getByRole("button", { name: "Close" }).click()

        // Public links: the embed is listed, and revoked there.
        await page.goto(`${server.url}/w/${workspaceId}/links`)
        const row = page.locator("ul.items > li", { hasText: "Every page embedding the report “Sales overview”" })
        await row.waitFor()
        assert.include(await row.innerText(), "Embed")
        assert.deepStrictEqual(await Axe.serious(page), [], "links screen with the embed")
        await shoot(page, "links-embed-1280")
        await row.getByRole("button", { name: /^Revoke:/ }).click()
        await page.locator("dialog.analytics-confirm").getByRole("button", { name: "Revoke access" }).click()
        await row.getByText("Revoked", { exact: true }).waitFor()
        const active = await ok("GET", `/v1/workspaces/${workspaceId}/links?state=active`).pipe(Effect.runPromise)
        assert.strictEqual(active.data.length, 0)
        assert.deepStrictEqual(errors, [])
        await context.close()

        // 390 px: the embed's fields and its warning fit the screen.
        const { context: narrow, page: small } = await consolePage(browser, server.url, { token: admin }, { width: 390, height: 844 })
        const smallErrors = Chromium.watchErrors(small)
        await small.goto(`${server.url}/w/${workspaceId}`)
        await small.getByRole("button", { name: "Share Sales overview" }).click()
        const smallDialog = dialogOf(small)
        await smallDialog.getByLabel("Embed in another site").check()
        await smallDialog.getByText(warning).waitFor()
        await smallDialog.getByText(warning).scrollIntoViewIfNeeded()
        assert.deepStrictEqual(await Axe.serious(small), [], "embed at 390 px")
        await shoot(small, "embed-warning-390")
        const overflow = await smallDialog.evaluate((el) => el.scrollWidth - el.clientWidth)
        assert.isAtMost(overflow, 0, "the dialog fits 390 px")

        // Made at 390 px: the preview frame fits the dialog and shows the embed as a phone would.
        await smallDialog.getByRole("combobox", { name: "Region (attribute “region”)" }).selectOption("EU")
        await smallDialog.getByText("Every visual shows rows (9 visuals).").waitFor()
        await smallDialog.getByRole("button", { name: "Share", exact: true }).click()
        const smallShown = smallDialog.getByRole("region", { name: "What your page will show" })
        await smallShown.waitFor()
        await expectEmbedShown(small)
        await smallShown.scrollIntoViewIfNeeded()
        assert.deepStrictEqual(await Axe.serious(small), [], "the embed previewed at 390 px")
        await shoot(small, "embed-preview-390")
        const smallBox = (await smallShown.locator("iframe").boundingBox())!
        assert.isAtMost(smallBox.x + smallBox.width, 390, "the frame fits 390 px")
        assert.isAtMost(await smallDialog.evaluate((el) => el.scrollWidth - el.clientWidth), 0, "the dialog still fits 390 px")
        assert.deepStrictEqual(smallErrors, [])
        await narrow.close()
      })
    }).pipe(Effect.scoped), 180_000)
})
