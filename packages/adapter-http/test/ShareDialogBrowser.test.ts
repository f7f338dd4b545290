/**
 * Share, then Manage, then Revoke in real headless Chromium (issue 23 §5),
 * on core's demo report ("Sales overview", `ReportViewerFixture`): the
 * console's workspace opens `<analytics-share-dialog>`, shares by a link
 * with a password; a second browser context opens the link, gives the
 * password and sees the report; back in the console, Manage, pause and
 * resume, Revoke (confirmed) — the second context's next request is
 * refused. Also: a user shared with through the people picker, the dialog
 * by keyboard alone (tab order, Escape, focus back on the opener), the
 * workspace's public links screen; axe clean in both tabs and on the
 * links screen, no console error, screenshots at 1280 and 390 px
 * (`VIEWER_SHOTS=<dir>`).
 *
 * The console is signed in as the tenant's admin through the session
 * endpoints (`ConsoleSignIn`).
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"
import { grantsPath, setup, setupWith } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: false })
}

/** What has focus, looking into shadow roots: its tag, role or type, and its name or text. */
const focused = (page: Page) =>
  page.evaluate(() => {
    let el = document.activeElement as HTMLElement | null
    while (el?.shadowRoot?.activeElement != null) el = el.shadowRoot.activeElement as HTMLElement
    if (el === null) return ""
    const type = el.getAttribute("type")
    const kind = el.getAttribute("role") ?? (type === "button" || type === "submit" ? null : type) ?? ""
    const label = el.getAttribute("aria-label") ?? (el as HTMLInputElement).labels?.[0]?.innerText ?? el.innerText ?? ""
    return `${el.tagName.toLowerCase()}${kind === "" ? "" : `[${kind}]`}:${label.trim().replace(/\s+/g, " ").slice(0, 40)}`
  })

/** Whether focus is inside the share dialog (or on nothing: past its last control, the browser's own controls). */
const focusInDialog = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement
    return active === null || active === document.body || active.tagName.toLowerCase() === "analytics-share-dialog"
  })

const dialogOf = (page: Page) => page.locator("analytics-share-dialog dialog.share")

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("the share dialog in headless Chromium"), () => {
  it.live("Share by link with a password → a second context opens it → Manage, pause, resume, Revoke → the second context is refused; a user by the picker; keyboard; links screen", () =>
    Effect.gen(function*() {
      const { admin, ok, reportId, server, workspaceId } = yield* setup
      yield* ok("POST", "/v1/users", { email: "bea@example.com", name: "Bea Brown" })
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context: console_, page } = await consolePage(browser, server.url, { token: admin }, { permissions: ["clipboard-read", "clipboard-write"] })
        const errors = Chromium.watchErrors(page)
        await page.goto(`${server.url}/w/${workspaceId}`)
        const open = page.getByRole("button", { name: "Share Sales overview" })
        await open.waitFor()
        await page.getByRole("link", { name: "Public links" }).waitFor()
        await shoot(page, "workspace-share-1280")

        // Share: the dialog opens, labelled, focus on its selected tab; axe clean.
        await open.click()
        const dialog = dialogOf(page)
        await dialog.getByRole("heading", { name: "Share Sales overview" }).waitFor()
        assert.strictEqual(await dialog.getAttribute("aria-labelledby"), "share-title")
        assert.strictEqual(await focused(page), "button[tab]:Share")
        assert.deepStrictEqual(await Axe.serious(page), [], "Share tab")
        await shoot(page, "share-dialog-1280")

        // By keyboard: the tab order, focus kept inside the dialog, Escape closes, focus back on the opener.
        const path: Array<string> = []
        for (let i = 0; i < 4; i++) {
          await page.keyboard.press("Tab")
          path.push(await focused(page))
        }
        assert.deepStrictEqual(path, [
          "input[radio]:People, teams or executive roles",
          "input[combobox]:Name or e-mail address",
          "button:Manage access",
          "input[date]:Expires on (optional)"
        ])
        await page.keyboard.press("Shift+Tab")
        await page.keyboard.press("Shift+Tab")
        await page.keyboard.press("Shift+Tab")
        await page.keyboard.press("Shift+Tab")
        await page.keyboard.press("Shift+Tab")
        assert.strictEqual(await focused(page), "button:Close", "before the tabs, the close button")
        for (let i = 0; i < 25; i++) {
          await page.keyboard.press("Tab")
          assert.isTrue(await focusInDialog(page), `Tab ${i + 1} stays in the dialog: ${await focused(page)}`)
        }
        await page.keyboard.press("Escape")
        await dialog.waitFor({ state: "hidden" })
        assert.strictEqual(await focused(page), "button:Share Sales overview", "focus returns to the opener")

        // Anyone with the link, with a password, by keyboard alone: Enter opens the dialog, arrows pick the kind.
        await page.keyboard.press("Enter")
        await dialog.getByRole("heading", { name: "Share Sales overview" }).waitFor()
        await page.keyboard.press("Tab")
        await page.keyboard.press("ArrowDown")
        assert.strictEqual(await focused(page), "input[radio]:Anyone with the link")
        await page.keyboard.press("Tab")
        assert.strictEqual(await focused(page), "input[text]:Label (optional)")
        await page.keyboard.press("Tab")
        assert.strictEqual(await focused(page), "input[password]:Password (optional)")
        await page.keyboard.type("short")
        await page.keyboard.press("Enter")
        await dialog.getByText("The password needs at least 8 characters.").waitFor()
        await dialog.getByLabel("Password (optional)").fill("correct horse battery")
        await dialog.getByRole("button", { name: "Share", exact: true }).click()
        await dialog.getByText("Link created. Copy it now, or later under Manage.").waitFor()
        const link = await dialog.locator("#created-link").inputValue()
        assert.match(link, /\/s\//)
        await dialog.getByRole("button", { name: "Copy" }).click()
        await dialog.getByText("Copied.").waitFor()
        assert.strictEqual(await page.evaluate(() => navigator.clipboard.readText()), link)
        assert.deepStrictEqual(await Axe.serious(page), [], "link created")
        await shoot(page, "share-link-created-1280")

        // A second browser context opens the link, gives the password, sees the report.
        const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } })
        const other = await visitor.newPage()
        const linkPath = new URL(link).pathname
        await other.goto(`${server.url}${linkPath}`)
        await other.fill("#password", "correct horse battery")
        await Promise.all([other.waitForURL(/\/s\//), other.click("button[type=submit]")])
        await other.getByRole("heading", { name: "Sales overview" }).waitFor({ timeout: 20_000 })

        // Manage: the link, active; pause (the visitor is refused), resume (the visitor sees it again).
        await dialog.getByRole("tab", { name: "Manage" }).click()
        const row = dialog.locator("ul.grants > li", { hasText: "Anyone with the link" })
        await row.waitFor()
        assert.include(await row.innerText(), "Active")
        assert.include(await row.innerText(), "with a password")
        assert.deepStrictEqual(await Axe.serious(page), [], "Manage tab")
        await shoot(page, "share-manage-1280")
        await row.getByRole("button", { name: "Pause: Anyone with the link" }).click()
        await row.getByText("Paused", { exact: true }).waitFor()
        const paused = await other.reload()
        assert.strictEqual(paused?.status(), 403, "a paused link is refused")
        await row.getByRole("button", { name: "Resume: Anyone with the link" }).click()
        await row.getByText("Active", { exact: true }).waitFor()
        const resumed = await other.reload()
        assert.strictEqual(resumed?.status(), 200)
        await other.getByRole("heading", { name: "Sales overview" }).waitFor({ timeout: 20_000 })

        // The link copied again from Manage (decision 0014, "Links copied again").
        await page.evaluate(() => navigator.clipboard.writeText(""))
        await row.getByRole("button", { name: "Copy link: Anyone with the link" }).click()
        await dialog.getByText("The link's address was copied.").waitFor()
        assert.strictEqual(await page.evaluate(() => navigator.clipboard.readText()), link)

        // Edit: a new password (too short is refused, nothing changed); the visitor is asked for the new one. No watermark offered: this link names no viewer to tile.
        await row.getByRole("button", { name: "Edit: Anyone with the link" }).click()
        const edit = row.getByRole("form", { name: "Change access for Anyone with the link" })
        await edit.getByLabel("New password (optional)").fill("short")
        await edit.getByRole("button", { name: "Save" }).click()
        await dialog.getByText("The password needs at least 8 characters.").waitFor()
        assert.deepStrictEqual(await Axe.serious(page), [], "Edit a link")
        await shoot(page, "share-edit-link-1280")
        await edit.getByLabel("New password (optional)").fill("another long secret")
        assert.strictEqual(await edit.getByLabel(/^Watermark/).count(), 0)
        await edit.getByRole("button", { name: "Save" }).click()
        await dialog.getByText("Access for Anyone with the link changed.").waitFor()
        const edited = await ok("GET", `${grantsPath}?subject_type=report&subject_id=${reportId}&principal_type=link`).pipe(Effect.runPromise) as { data: Array<{ watermark: boolean, password_protected: boolean }> }
        assert.deepStrictEqual(edited.data.map((g) => [g.watermark, g.password_protected]), [[false, true]])
        await other.reload()
        await other.fill("#password", "another long secret")
        await Promise.all([other.waitForURL(/\/s\//), other.click("button[type=submit]")])
        await other.getByRole("heading", { name: "Sales overview" }).waitFor({ timeout: 20_000 })

        // Revoke, behind a confirmation naming who loses access; "Keep access" keeps it.
        await row.getByRole("button", { name: "Revoke: Anyone with the link" }).click()
        const confirm = dialog.locator("dialog.analytics-confirm")
        await confirm.getByRole("heading", { name: "Revoke access?" }).waitFor()
        assert.include(await confirm.innerText(), "Anyone with the link loses access from their next request.")
        assert.strictEqual(await focused(page), "button:Keep access", "the safe choice has focus")
        assert.deepStrictEqual(await Axe.serious(page), [], "confirmation")
        await shoot(page, "share-revoke-confirm-1280")
        await page.keyboard.press("Escape")
        await confirm.waitFor({ state: "detached" })
        assert.isTrue(await dialog.isVisible(), "Escape closes the confirmation only")
        assert.strictEqual(await focused(page), "button:Revoke: Anyone with the link")
        await row.getByRole("button", { name: "Revoke: Anyone with the link" }).click()
        await confirm.getByRole("button", { name: "Revoke access" }).click()
        await row.getByText("Revoked", { exact: true }).waitFor()
        await dialog.getByText("Anyone with the link no longer has access.").waitFor()
        assert.strictEqual(await row.getByRole("button").count(), 0, "a revoked grant changes no more")
        const refused = await other.reload()
        assert.strictEqual(refused?.status(), 403, "the visitor's next request is refused")
        assert.notInclude(await other.locator("body").innerText(), "Total")
        await visitor.close()

        // A user through the picker (debounced search, arrows and Enter), allowed to comment.
        await dialog.getByRole("tab", { name: "Share" }).click()
        const picker = dialog.getByRole("combobox", { name: "Name or e-mail address" })
        await picker.fill("bea")
        const option = dialog.getByRole("option", { name: /Bea Brown \(bea@example.com\)/ })
        await option.waitFor()
        assert.deepStrictEqual(await Axe.serious(page), [], "picker open")
        await shoot(page, "share-picker-1280")
        await picker.press("Enter")
        await dialog.getByRole("list", { name: "Sharing with" }).getByRole("button", { name: "Remove Bea Brown" }).waitFor()
        await dialog.getByLabel("Comment: add comments").check()
        await dialog.getByRole("button", { name: "Share", exact: true }).click()
        await dialog.getByText("Shared with Bea Brown (bea@example.com).").waitFor()
        const grants = await ok("GET", `${grantsPath}?subject_type=report&subject_id=${reportId}&principal_type=user`).pipe(Effect.runPromise)
        assert.deepStrictEqual(grants.data.map((g: any) => g.actions), [["view", "comment"]])
        await dialog.getByRole("tab", { name: "Manage" }).click()
        const bea = dialog.locator("ul.grants > li", { hasText: "Bea Brown" })
        await bea.waitFor()
        assert.include(await bea.innerText(), "View, Comment")
        // Edit: download added, an expiry set.
        await bea.getByRole("button", { name: "Edit: Bea Brown (bea@example.com)" }).click()
        await bea.getByLabel("Download: export it as CSV, PDF or Excel").check()
        await bea.getByLabel("Expires on (optional)").fill("2099-12-31")
        await bea.getByLabel(/^Watermark/).check()
        await bea.getByRole("button", { name: "Save" }).click()
        await dialog.getByText("Access for Bea Brown (bea@example.com) changed.").waitFor()
        const watermarked = await ok("GET", `${grantsPath}?subject_type=report&subject_id=${reportId}&principal_type=user`).pipe(Effect.runPromise)
        assert.deepStrictEqual(watermarked.data.map((g: any) => g.watermark), [true], "the watermark changed in Edit")
        assert.include(await bea.innerText(), "View, Download, Comment")
        assert.include(await bea.innerText(), "2099")
        // Dark: still axe clean (contrast of the states and buttons).
        await page.emulateMedia({ colorScheme: "dark" })
        assert.deepStrictEqual(await Axe.serious(page), [], "Manage tab, dark")
        await shoot(page, "share-manage-1280-dark")
        await page.emulateMedia({ colorScheme: "light" })
        await dialog.getByRole("button", { name: "Close" }).click()
        await dialog.waitFor({ state: "hidden" })

        // The workspace's public links: the revoked link, and a new one paused then revoked from there.
        await ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"], email: "board@example.com" }).pipe(Effect.runPromise)
        await page.getByRole("link", { name: "Public links" }).click()
        await page.getByRole("heading", { name: "Public links" }).waitFor()
        const items = page.locator("ul.items > li")
        await items.nth(1).waitFor()
        assert.strictEqual(await items.count(), 2)
        const fresh = items.first()
        assert.include(await fresh.innerText(), "Anyone with the link to the report “Sales overview”")
        assert.include(await fresh.innerText(), "board@example.com")
        assert.include(await fresh.innerText(), "Made by you")
        assert.include(await items.nth(1).innerText(), "Revoked")
        assert.deepStrictEqual(await Axe.serious(page), [], "links screen")
        await shoot(page, "links-1280")
        await fresh.getByRole("button", { name: /^Pause:/ }).click()
        await fresh.getByText("Paused", { exact: true }).waitFor()
        await fresh.getByRole("button", { name: /^Revoke:/ }).click()
        await page.locator("dialog.analytics-confirm").getByRole("button", { name: "Revoke access" }).click()
        await fresh.getByText("Revoked", { exact: true }).waitFor()
        const links = await ok("GET", `/v1/workspaces/${workspaceId}/links?state=active`).pipe(Effect.runPromise)
        assert.strictEqual(links.data.length, 0)
        assert.deepStrictEqual(errors, [])
        await console_.close()

        // 390 px: the workspace, both tabs, the links screen; nothing wider than the screen.
        const { context: narrow, page: small } = await consolePage(browser, server.url, { token: admin }, { width: 390, height: 844 })
        const smallErrors = Chromium.watchErrors(small)
        await small.goto(`${server.url}/w/${workspaceId}`)
        await small.getByRole("button", { name: "Share Sales overview" }).click()
        const smallDialog = dialogOf(small)
        await smallDialog.getByRole("heading", { name: "Share Sales overview" }).waitFor()
        await smallDialog.getByLabel("Anyone with the link").check()
        await shoot(small, "share-dialog-390")
        await smallDialog.getByRole("tab", { name: "Manage" }).click()
        await smallDialog.locator("ul.grants > li").first().waitFor()
        assert.deepStrictEqual(await Axe.serious(small), [], "Manage at 390 px")
        await shoot(small, "share-manage-390")
        const overflow = await smallDialog.evaluate((el) => el.scrollWidth - el.clientWidth)
        assert.isAtMost(overflow, 0, "the dialog fits 390 px")
        await smallDialog.getByRole("button", { name: "Close" }).click()
        await small.goto(`${server.url}/w/${workspaceId}/links`)
        await small.locator("ul.items > li").first().waitFor()
        await shoot(small, "links-390")
        assert.isAtMost(await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0)
        assert.deepStrictEqual(smallErrors, [])
        await narrow.close()
      })
    }).pipe(Effect.scoped), 120_000)

  it.live("the element alone on a plain page: an embed with a locked filter, its events; a refused grant told in words with what to do", () =>
    Effect.gen(function*() {
      // At the server's own URL: the embed made is previewed in the dialog, from its own URL.
      const { admin, reportId, server } = yield* setupWith({ atOwnUrl: true })
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin })
        // An embedding app's page on the service's origin: the stable elements script, the element, a button that opens it.
        await context.route(/\/plain\.html$/, (route) =>
          route.fulfill({
            contentType: "text/html; charset=utf-8",
            body: `<!doctype html><html lang="en"><head><title>Partner portal</title><script type="module" src="/assets/analytics-elements.js"></script></head>
              <body><main><h1>Partner portal</h1><button id="open" type="button">Share the sales report</button>
              <analytics-share-dialog subject-type="report" subject-id="${reportId}" subject-name="Sales overview"></analytics-share-dialog></main></body></html>`
          }))
        const errors = Chromium.watchErrors(page)
        await page.goto(`${server.url}/plain.html`)
        await page.evaluate(async () => {
          await customElements.whenDefined("analytics-share-dialog")
          const seen: Array<string> = []
          ;(globalThis as any).__events = seen
          for (const name of ["created", "updated", "revoked"]) {
            document.addEventListener(`analytics-grant-${name}`, (e) => seen.push(`${name} ${(e as CustomEvent).detail.grant.principal_type}`))
          }
          document.getElementById("open")!.addEventListener("click", () => (document.querySelector("analytics-share-dialog") as any).show())
        })
        await page.getByRole("button", { name: "Share the sales report" }).click()
        const dialog = dialogOf(page)
        await dialog.getByRole("heading", { name: "Share Sales overview" }).waitFor()

        // A past expiry: the service refuses it; the problem in words, with what to do.
        await dialog.getByLabel("Anyone with the link").check()
        await dialog.getByLabel("Expires on (optional)").fill("2001-01-01")
        await dialog.getByRole("button", { name: "Share", exact: true }).click()
        const alert = dialog.getByRole("alert")
        await alert.waitFor()
        const text = await alert.innerText()
        // In words, the field named by its label and marked (not "expires_at must be in the future").
        assert.include(text, "Expires on (optional): Choose a date after today.")
        assert.notInclude(text, "expires_at")
        assert.include(text, "Correct what is marked and send it again.")
        assert.strictEqual(await dialog.getByLabel("Expires on (optional)").getAttribute("aria-invalid"), "true")
        assert.deepStrictEqual(await Axe.serious(page), [], "problem shown")

        // An embed with the region locked to EU: the snippet's token carries it.
        await dialog.getByLabel("Expires on (optional)").fill("")
        await dialog.getByLabel("Embed in another site").check()
        await dialog.getByRole("combobox", { name: "Region", exact: true }).selectOption("EU")
        await dialog.getByRole("button", { name: "Share", exact: true }).click()
        await dialog.getByText("Embed created. Copy the snippet into the other site's page.").waitFor()
        const snippet = await dialog.locator("#created-snippet").inputValue()
        const token = /[?&]token=([\w-]+\.[\w-]+\.[\w-]+)/.exec(snippet)?.[1]
        assert.isDefined(token, snippet)
        const claims = JSON.parse(Buffer.from(token!.split(".")[1]!, "base64url").toString())
        assert.deepStrictEqual(claims.params, { region: "EU" })
        assert.deepStrictEqual(await Axe.serious(page), [], "embed created")
        await shoot(page, "share-embed-plain-1280")

        // Manage: revoke the embed; the events reached the page.
        await dialog.getByRole("tab", { name: "Manage" }).click()
        const row = dialog.locator("ul.grants > li", { hasText: "An embed" })
        await row.getByRole("button", { name: "Revoke: An embed" }).click()
        await dialog.locator("dialog.analytics-confirm").getByRole("button", { name: "Revoke access" }).click()
        await row.getByText("Revoked", { exact: true }).waitFor()
        await page.keyboard.press("Escape")
        await dialog.waitFor({ state: "hidden" })
        assert.strictEqual(await focused(page), "button:Share the sales report")
        assert.deepStrictEqual(await page.evaluate(() => (globalThis as any).__events), ["created embed", "revoked embed"])
        assert.deepStrictEqual(errors.filter((e) => !/status of 400/.test(e)), [], "only the refused grant's 400")
        await context.close()
      })
    }).pipe(Effect.scoped), 90_000)
})
