/**
 * The console's Branding screen (`/branding`, tenant admins), walked as a
 * person in headless Chromium at 1280 and 390 px (decision 0014): the
 * admin's navigation leads there; a name and an accent colour typed show
 * in the preview of the share page's header at once, and once saved a
 * share link opened in a second browser context (signed out) wears them;
 * a PNG logo shows in the preview and, saved, on the share page;
 * a colour that is not `#rrggbb` and an SVG logo are refused in words
 * beside their fields (FormErrors), the share page unchanged; "Use the
 * service's branding" (asked first) brings the service's back. A member
 * sees no Branding in the navigation and is told the screen is not
 * theirs. Axe clean at each step, nothing wider than the screen; with
 * `VIEWER_SHOTS=<dir>` screenshots are saved.
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { brandTokens } from "@analytics/viewer"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"
import { grantsPath, setup } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `branding-${name}.png`), fullPage: true })
}

/** Axe clean and nothing wider than the screen; a screenshot. */
const check = async (page: Page, name: string) => {
  assert.deepStrictEqual(await Axe.serious(page), [], name)
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
  assert.isAtMost(overflow, 0, `${name}: the page is ${overflow} px wider than the screen`)
  await shoot(page, name)
}

/** The words tied to a field (its `aria-describedby`), joined. */
const describedBy = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) =>
    (el.getAttribute("aria-describedby") ?? "").split(" ").map((id) => document.getElementById(id)?.textContent ?? "").join(" | "))

/** The brand a share page shows: its name, and the accent its stylesheet sets. */
const shareBrand = async (page: Page, url: string) => {
  await page.goto(url)
  await page.locator("header .brand").waitFor()
  return {
    name: await page.locator("header .brand").innerText(),
    accent: await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue("--accent").trim())
  }
}

/** A 1×1 PNG. */
const pngLogo = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

const svgLogo = Buffer.from("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1\" height=\"1\"><script>alert(1)</script></svg>")

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("the console's Branding screen, in headless Chromium"), () => {
  it.live("name and colour typed show in the preview and, saved, on a share page in another context; bad values refused beside their fields; reset; members see none of it; 1280 and 390 px", () =>
    Effect.gen(function*() {
      const { admin, mails, ok, reportId, server } = yield* setup
      yield* ok("POST", "/v1/users", { email: "mia@example.com", name: "Mia Member", roles: ["member"] })
      const link = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"] })
      const shareUrl = `${server.url}${new URL(link.link_url).pathname}`
      const service = yield* Effect.promise(() => fetch(`${server.url}/api/config/public`).then((r) => r.json() as Promise<{ branding: { name: string; primary_color: string } }>))
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of [1280, 390]) {
          const name = `Contoso ${width}`
          const colour = width === 1280 ? "#7c3aed" : "#b45309"
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { width, locale: "en-US" })
          // The refusals the walk provokes are the expected 400s of PATCH /v1/branding.
          const errors = Chromium.watchErrorsExcept(page, (path, status) => path === "/v1/branding" && status === 400)
          const policy = await Chromium.watchPolicy(page)
          const visitor = await browser.newContext({ viewport: { width, height: 900 }, locale: "en-US" })
          const share = await visitor.newPage()

          // The admin's navigation leads to it.
          await page.goto(`${server.url}/`)
          await page.getByRole("heading", { level: 1, name: "Workspaces" }).waitFor()
          await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Branding" }).click()
          await page.getByRole("heading", { level: 1, name: "Branding" }).waitFor()
          const nameField = page.getByRole("textbox", { name: "Name", exact: true })
          const colourField = page.getByRole("textbox", { name: "Accent colour", exact: true })
          await nameField.waitFor()
          await check(page, `screen-${width}`)

          // Typed: the preview follows at once, before anything is saved.
          const preview = page.locator("[data-preview]")
          await nameField.fill(name)
          await colourField.fill(colour)
          assert.strictEqual(await preview.locator(".brand-name").innerText(), name)
          const border = await preview.locator(".masthead").evaluate((el) => getComputedStyle(el).borderBottomColor)
          const hex = brandTokens(colour).light
          const rgb = `rgb(${parseInt(hex.slice(1, 3), 16)}, ${parseInt(hex.slice(3, 5), 16)}, ${parseInt(hex.slice(5, 7), 16)})`
          assert.strictEqual(border, rgb, "the preview's accent")
          assert.notStrictEqual((await shareBrand(share, shareUrl)).name, name, "nothing saved yet")
          await check(page, `preview-${width}`)

          // Saved: a share page opened in another (signed-out) context wears it.
          await page.getByRole("button", { name: "Save branding" }).click()
          await page.getByRole("status").filter({ hasText: "Branding saved: share pages show it from now on." }).waitFor()
          assert.deepStrictEqual(await shareBrand(share, shareUrl), { name, accent: brandTokens(colour).light })
          await check(page, `saved-${width}`)

          // A colour that is not #rrggbb: refused in words beside its field, focus on it; the share page unchanged.
          await colourField.fill("purple")
          await page.getByRole("button", { name: "Save branding" }).click()
          await page.locator("#branding-colour[aria-invalid=true]").waitFor()
          assert.include(await describedBy(page, "#branding-colour"), "Use a colour as #rrggbb, such as #0f766e.")
          assert.isTrue(await colourField.evaluate((el) => el === document.activeElement), "focus on the refused field")
          assert.include(await page.locator("#branding-colour").locator("xpath=ancestor::div[contains(@class,'field')]").innerText(), "Use a colour as #rrggbb, such as #0f766e.")
          assert.deepStrictEqual(await shareBrand(share, shareUrl), { name, accent: brandTokens(colour).light }, "a refused change changes nothing")
          await check(page, `refused-colour-${width}`)

          // A PNG logo: in the preview at once, and once saved on the share page.
          await colourField.fill(colour)
          await page.getByLabel("Logo", { exact: true }).setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: Buffer.from(pngLogo.split(",")[1]!, "base64") })
          await preview.locator(".brand img").waitFor()
          assert.strictEqual(await preview.locator(".brand img").getAttribute("src"), pngLogo)
          await page.getByRole("button", { name: "Save branding" }).click()
          await page.getByRole("status").filter({ hasText: "Branding saved" }).waitFor()
          assert.strictEqual(await page.locator("#branding-colour[aria-invalid=true]").count(), 0, "the colour is no longer marked")
          await shareBrand(share, shareUrl)
          assert.strictEqual(await share.locator("header .brand img").getAttribute("src"), pngLogo, "the share page wears the logo")

          // An SVG logo: refused beside the logo's field; the preview keeps to what a share page would show.
          await page.getByLabel("Logo", { exact: true }).setInputFiles({ name: "logo.svg", mimeType: "image/svg+xml", buffer: svgLogo })
          // Read: the PNG gives way (an SVG is not drawn, here or in the preview).
          await preview.locator(".brand img").waitFor({ state: "detached" })
          assert.strictEqual(await page.locator(".brand-logo img").count(), 0)
          await page.getByRole("button", { name: "Save branding" }).click()
          await page.locator("#branding-logo[aria-invalid=true]").waitFor()
          assert.match(await describedBy(page, "#branding-logo"), /SVG logos are not accepted/)
          assert.strictEqual(await preview.locator(".brand img").count(), 0, "no SVG in the preview")
          await shareBrand(share, shareUrl)
          assert.strictEqual(await share.locator("header .brand img").getAttribute("src"), pngLogo, "a refused logo changes nothing")
          await check(page, `refused-logo-${width}`)
          await page.getByRole("button", { name: "Remove the logo" }).click()

          // Reset, asked first: the service's branding again.
          await page.getByRole("button", { name: "Use the service's branding" }).click()
          const ask = page.getByRole("dialog", { name: "Use the service's branding?" })
          await ask.waitFor()
          assert.deepStrictEqual(await Axe.serious(page), [], `reset dialog at ${width}`)
          await shoot(page, `reset-confirm-${width}`)
          await ask.getByRole("button", { name: "Use the service's branding" }).click()
          await page.getByRole("status").filter({ hasText: "Share pages show the service's branding again." }).waitFor()
          assert.strictEqual(await nameField.inputValue(), "")
          assert.strictEqual(await preview.locator(".brand-name").innerText(), service.branding.name)
          assert.strictEqual((await shareBrand(share, shareUrl)).name, service.branding.name)
          await check(page, `reset-${width}`)

          assert.deepStrictEqual(await policy(), [], `no policy violation at ${width}`)
          assert.deepStrictEqual(errors(), [], `no console errors at ${width}`)
          await visitor.close()
          await context.close()
        }

        // A member: no Branding in the navigation; the screen says it is not theirs, and PATCH is refused.
        const { context: memberContext, page: member } = await consolePage(browser, server.url, { email: "mia@example.com", mails }, { width: 390, locale: "en-US" })
        await member.goto(`${server.url}/`)
        await member.getByRole("heading", { level: 1, name: "Workspaces" }).waitFor()
        assert.strictEqual(await member.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Branding" }).count(), 0)
        await member.goto(`${server.url}/branding`)
        await member.getByRole("heading", { level: 1, name: "Not available to you" }).waitFor()
        assert.strictEqual(await member.getByRole("textbox", { name: "Name" }).count(), 0)
        await check(member, "member-390")
        await memberContext.close()
      })
    }).pipe(Effect.scoped), 180_000)
})
