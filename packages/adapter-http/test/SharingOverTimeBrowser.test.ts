/**
 * Sharing over time (issue 40) in real headless Chromium, on core's demo
 * report ("Sales overview", `ReportViewerFixture`), the console signed in
 * as the tenant's admin (`ConsoleSignIn`):
 *
 * - several recipients picked as chips (from the picker by arrows and
 *   Enter, by a click, an e-mail address ended by a comma, Backspace in the
 *   empty field taking the last back) and shared in one go, one grant each:
 *   a team removed meanwhile is refused, its chip kept with the reason, the
 *   others shared and gone from the field; they are then listed under
 *   "People with access" on the Share tab and in Manage;
 * - a link made with a label (sent as `label`), edited in Manage;
 * - a labelled link titled by its label in Manage and on the workspace's
 *   Public links, "Never opened" until a second browser context opens it,
 *   then "opened 1 time" — only once the service's GrantJson has `label`,
 *   `last_opened_at` and `open_count` (the server side of issue 40, made
 *   apart): until then that test is skipped, and the first checks that
 *   the dialog shows nothing for fields the service does not send.
 *
 * Axe clean, no console error, both widths 1280 and 390 px, screenshots
 * (`VIEWER_SHOTS=<dir>`).
 */
import { Axe, Chromium } from "@analytics/testing/browser"
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
  await page.screenshot({ path: join(shots, `over-time-${name}.png`), fullPage: false })
}

/** What has focus, looking into shadow roots: its tag, role or type, and its name or text. */
const focused = (page: Page) =>
  page.evaluate(() => {
    let el = document.activeElement as HTMLElement | null
    while (el?.shadowRoot?.activeElement != null) el = el.shadowRoot.activeElement as HTMLElement
    if (el === null) return ""
    const kind = el.getAttribute("role") ?? el.getAttribute("type") ?? ""
    const label = el.getAttribute("aria-label") ?? (el as HTMLInputElement).labels?.[0]?.innerText ?? el.innerText ?? ""
    return `${el.tagName.toLowerCase()}${kind === "" ? "" : `[${kind}]`}:${label.trim().replace(/\s+/g, " ").slice(0, 40)}`
  })

const dialogOf = (page: Page) => page.locator("analytics-share-dialog dialog.share")

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("sharing over time in headless Chromium"), () => {
  it.live("two people as chips shared in one go (a removed team refused, kept with its reason) → People with access and Manage; a link's label sent and edited; 1280 and 390 px", () =>
    Effect.gen(function*() {
      const { admin, ok, reportId, server, workspaceId } = yield* setup
      yield* ok("POST", "/v1/users", { email: "bea@example.com", name: "Bea Brown" })
      yield* ok("POST", "/v1/users", { email: "carl@example.com", name: "Carl Cole" })
      const team = yield* ok("POST", "/v1/teams", { name: "Finance team" })
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin })
        // The removed team's refusal is expected: the dialog tells it in words.
        const errors = Chromium.watchErrorsExcept(page, (path, status) => path === grantsPath && status >= 400 && status < 500)
        await page.goto(`${server.url}/w/${workspaceId}`)
        await page.getByRole("button", { name: "Share Sales overview" }).click()
        const dialog = dialogOf(page)
        await dialog.getByRole("heading", { name: "Share Sales overview" }).waitFor()
        const access = dialog.getByRole("region", { name: "People with access" })
        await access.getByText("No people, teams or executive roles have access yet.").waitFor()

        // Chips: Bea by arrows and Enter, Carl by a click, an address ended by a comma, Backspace taking it back, the team.
        const picker = dialog.getByRole("combobox", { name: "Name or e-mail address" })
        const chips = dialog.getByRole("list", { name: "Sharing with" })
        await picker.fill("bea")
        await dialog.getByRole("option", { name: /Bea Brown \(bea@example.com\)/ }).waitFor()
        await picker.press("Enter")
        await chips.getByRole("button", { name: "Remove Bea Brown" }).waitFor()
        assert.strictEqual(await picker.inputValue(), "", "the field empties for the next one")
        assert.strictEqual(await focused(page), "input[combobox]:Name or e-mail address", "focus stays in the field")
        await picker.pressSequentially("carl")
        await dialog.getByRole("option", { name: /Carl Cole/ }).click()
        await chips.getByRole("button", { name: "Remove Carl Cole" }).waitFor()
        await picker.pressSequentially("dana@example.com,")
        await chips.getByRole("button", { name: "Remove dana@example.com" }).waitFor()
        assert.include(await chips.innerText(), "dana@example.com · Invite")
        await picker.press("Backspace")
        await chips.getByRole("button", { name: "Remove dana@example.com" }).waitFor({ state: "detached" })
        await picker.fill("finance")
        await dialog.getByRole("option", { name: /Finance team/ }).waitFor()
        await picker.press("Enter")
        await chips.getByRole("button", { name: "Remove Finance team" }).waitFor()
        assert.deepStrictEqual(await chips.getByRole("listitem").allInnerTexts().then((t) => t.map((s) => s.replace(/\s+/g, " ").trim())), [
          "Bea Brown (bea@example.com) · Person ✕",
          "Carl Cole (carl@example.com) · Person ✕",
          "Finance team · Team ✕"
        ])
        assert.deepStrictEqual(await Axe.serious(page), [], "chips")
        await shoot(page, "chips-1280")

        // The team goes before Share: its grant is refused, the two people's made.
        await Effect.runPromise(ok("DELETE", `/v1/teams/${team.team_id}`))
        await dialog.getByLabel("Comment: add comments").check()
        await dialog.getByRole("button", { name: "Share", exact: true }).click()
        const alert = dialog.getByRole("alert")
        await alert.waitFor()
        assert.include(await alert.innerText(), "Not shared with Finance team.")
        assert.strictEqual(await focused(page).then((f) => f.startsWith("div[alert]")), true, "focus on what failed")
        await dialog.getByText("Shared with Bea Brown (bea@example.com) and Carl Cole (carl@example.com).").waitFor()
        assert.deepStrictEqual(await chips.getByRole("button").allInnerTexts(), ["✕"], "only the refused chip stays")
        const kept = chips.getByRole("listitem")
        assert.match(await kept.innerText(), /Finance team[\s\S]*Not shared: they are no longer in the directory\./)
        assert.isNotNull(await chips.getByRole("button", { name: "Remove Finance team" }).getAttribute("aria-describedby"), "the reason describes its remove button")
        // People with access: the two, their actions in words.
        await access.getByText("Bea Brown (bea@example.com)").waitFor()
        assert.deepStrictEqual(await access.getByRole("listitem").allInnerTexts().then((t) => t.map((s) => s.replace(/\s+/g, " ").trim()).sort()), [
          "Bea Brown (bea@example.com) View, Comment",
          "Carl Cole (carl@example.com) View, Comment"
        ])
        assert.deepStrictEqual(await Axe.serious(page), [], "partly shared")
        await shoot(page, "partly-shared-1280")
        const users = await Effect.runPromise(ok("GET", `${grantsPath}?subject_type=report&subject_id=${reportId}&principal_type=user`))
        assert.deepStrictEqual(users.data.map((g: any) => g.actions), [["view", "comment"], ["view", "comment"]], "one grant per chip, the same actions")
        await chips.getByRole("button", { name: "Remove Finance team" }).click()
        await chips.waitFor({ state: "detached" })
        assert.strictEqual(await focused(page), "input[combobox]:Name or e-mail address")

        // Manage, from the list's button: both people.
        await access.getByRole("button", { name: "Manage access" }).click()
        for (const name of ["Bea Brown (bea@example.com)", "Carl Cole (carl@example.com)"]) {
          const row = dialog.locator("ul.grants > li", { hasText: name })
          await row.waitFor()
          assert.include(await row.innerText(), "View, Comment")
          assert.include(await row.innerText(), "Made by you")
        }

        // A link with a label: sent as `label`; Manage's Edit changes it.
        await dialog.getByRole("tab", { name: "Share" }).click()
        await dialog.getByLabel("Anyone with the link").check()
        await dialog.getByLabel("Label (optional)").fill("Board pack")
        assert.deepStrictEqual(await Axe.serious(page), [], "a link with a label")
        await shoot(page, "link-label-1280")
        const [request] = await Promise.all([
          page.waitForRequest((r) => r.method() === "POST" && new URL(r.url()).pathname === grantsPath),
          dialog.getByRole("button", { name: "Share", exact: true }).click()
        ])
        assert.strictEqual(request.postDataJSON().label, "Board pack")
        await dialog.getByText("Link created. Copy it now, or later under Manage.").waitFor()
        await dialog.getByRole("button", { name: "Manage" }).click()
        const link = dialog.locator("ul.grants > li", { hasText: "Anyone with the link" })
        await link.waitFor()
        await link.getByRole("button", { name: "Edit: Board pack" }).click()
        const label = link.getByLabel("Label", { exact: true })
        assert.strictEqual(await label.inputValue(), "Board pack")
        await label.fill("Board pack, March")
        assert.deepStrictEqual(await Axe.serious(page), [], "editing a link's label")
        await link.getByRole("button", { name: "Save" }).click()
        await dialog.getByText("Access for Board pack, March changed.").waitFor()
        assert.strictEqual(await link.locator(".who").innerText(), "Board pack, March")
        assert.deepStrictEqual(errors(), [])
        await context.close()

        // 390 px: chips, the list of people with access; nothing wider than the screen.
        const { context: narrow, page: small } = await consolePage(browser, server.url, { token: admin }, { width: 390, height: 844 })
        const smallErrors = Chromium.watchErrors(small)
        await small.goto(`${server.url}/w/${workspaceId}`)
        await small.getByRole("button", { name: "Share Sales overview" }).click()
        const smallDialog = dialogOf(small)
        await smallDialog.getByRole("region", { name: "People with access" }).getByText("Carl Cole (carl@example.com)").waitFor()
        const smallPicker = smallDialog.getByRole("combobox", { name: "Name or e-mail address" })
        await smallPicker.pressSequentially("someone.with.a.long.address@example.com,")
        await smallPicker.pressSequentially("bea")
        await smallDialog.getByRole("option", { name: /Bea Brown/ }).waitFor()
        await smallPicker.press("Enter")
        await smallDialog.getByRole("button", { name: "Remove Bea Brown" }).waitFor()
        assert.deepStrictEqual(await Axe.serious(small), [], "chips at 390 px")
        await shoot(small, "chips-390")
        assert.isAtMost(await smallDialog.evaluate((el) => el.scrollWidth - el.clientWidth), 0, "the dialog fits 390 px")
        await smallDialog.getByLabel("Anyone with the link").check()
        await smallDialog.getByLabel("Label (optional)").waitFor()
        await shoot(small, "link-label-390")
        assert.deepStrictEqual(smallErrors, [])
        await narrow.close()
      })
    }).pipe(Effect.scoped), 120_000)

  it.live(
    "a labelled link: its label in Manage and on Public links, “Never opened”, then “opened 1 time” after a second context opens it",
    () =>
      Effect.gen(function*() {
        const { admin, server, workspaceId } = yield* setup
        const browser = yield* Chromium.launch
        yield* Effect.promise(async () => {
          const { context, page } = await consolePage(browser, server.url, { token: admin })
          const errors = Chromium.watchErrors(page)
          await page.goto(`${server.url}/w/${workspaceId}`)
          const open = page.getByRole("button", { name: "Share Sales overview" })
          await open.click()
          const dialog = dialogOf(page)
          await dialog.getByLabel("Anyone with the link").check()
          await dialog.getByLabel("Label (optional)").fill("Board pack")
          await dialog.getByRole("button", { name: "Share", exact: true }).click()
          await dialog.getByText("Link created. Copy it now, or later under Manage.").waitFor()
          const url = await dialog.locator("#created-link").inputValue()

          // Manage: titled by its label, who it reaches beside, who made it, never opened.
          await dialog.getByRole("button", { name: "Manage" }).click()
          const row = dialog.locator("ul.grants > li", { hasText: "Board pack" })
          await row.waitFor()
          assert.strictEqual(await row.locator(".who").innerText(), "Board pack")
          const text = await row.innerText()
          assert.include(text, "Anyone with the link")
          assert.include(text, "Made by you")
          assert.include(text, "Never opened")
          assert.deepStrictEqual(await Axe.serious(page), [], "Manage with a label")
          await shoot(page, "manage-label-1280")
          await dialog.getByRole("button", { name: "Close" }).click()

          // Public links: the label as the row's title, never opened.
          await page.getByRole("link", { name: "Public links" }).click()
          const item = page.locator("ul.items > li", { hasText: "Board pack" })
          await item.waitFor()
          assert.strictEqual(await item.locator("strong").innerText(), "Board pack")
          assert.include(await item.innerText(), "Anyone with the link to the report “Sales overview”")
          assert.include(await item.innerText(), "Never opened")
          assert.deepStrictEqual(await Axe.serious(page), [], "links screen with a label")
          await shoot(page, "links-label-1280")

          // A second browser context opens the link; the dialog, reopened, counts it.
          const visitor = await browser.newContext({ viewport: { width: 1280, height: 900 } })
          const other = await visitor.newPage()
          await other.goto(`${server.url}${new URL(url).pathname}`)
          await other.getByRole("heading", { name: "Sales overview" }).waitFor({ timeout: 20_000 })
          await visitor.close()
          await page.goto(`${server.url}/w/${workspaceId}`)
          await open.click()
          await dialog.getByRole("tab", { name: "Manage" }).click()
          await row.getByText(/opened 1 time/).waitFor()
          assert.include(await row.innerText(), "Last opened")
          assert.notInclude(await row.innerText(), "Never opened")
          await shoot(page, "manage-opened-1280")
          await dialog.getByRole("button", { name: "Close" }).click()
          await page.goto(`${server.url}/w/${workspaceId}/links`)
          await item.getByText(/opened 1 time/).waitFor()
          assert.deepStrictEqual(errors, [])
          await context.close()

          // 390 px: the links screen with the label and its openings.
          const { context: narrow, page: small } = await consolePage(browser, server.url, { token: admin }, { width: 390, height: 844 })
          await small.goto(`${server.url}/w/${workspaceId}/links`)
          await small.locator("ul.items > li", { hasText: "Board pack" }).getByText(/opened 1 time/).waitFor()
          assert.deepStrictEqual(await Axe.serious(small), [], "links screen at 390 px")
          await shoot(small, "links-label-390")
          assert.isAtMost(await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0)
          await narrow.close()
        })
      }).pipe(Effect.scoped),
    120_000
  )
})
