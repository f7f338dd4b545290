/**
 * The console's alerts as a person uses them, in headless Chromium: from
 * the workspace's navigation to its Alerts screen; an alert created (name,
 * dataset, measure, condition, threshold), checked now (it fires), its
 * history opened (Fired, what it measured), edited (another measure, a new
 * threshold: it resolves on the next check), and deleted after a
 * confirmation. Axe clean and nothing overflowing at 1280 and 390 px
 * (screenshots with `VIEWER_SHOTS=<dir>`).
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"
import { setup } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

const check = async (page: Page, name: string) => {
  assert.deepStrictEqual(await Axe.serious(page), [], name)
  assert.isAtMost(await overflow(page), 0, `${name} overflows`)
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: true })
}

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("the console's alerts in headless Chromium"), () => {
  it.live("an admin creates an alert, checks it now, reads its history, edits its measure and threshold, and deletes it after a confirmation", () =>
    Effect.gen(function*() {
      const { admin, server, workspaceId } = yield* setup
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin })
        const errors = Chromium.watchErrorsExcept(page, () => false)
        await page.goto(`${server.url}/w/${workspaceId}`)
        await page.getByRole("heading", { level: 1, name: "Demo" }).waitFor()
        await page.getByRole("link", { name: "Alerts", exact: true }).click()
        await page.getByRole("heading", { level: 1, name: "Alerts" }).waitFor()
        assert.match(page.url(), new RegExp(`/w/${workspaceId}/alerts$`))
        await page.getByText("No alerts in this workspace.").waitFor()

        // Created: a rule in words, not checked yet.
        await page.getByRole("button", { name: "New alert" }).click()
        const form = page.getByRole("region", { name: "New alert" })
        await form.getByLabel("Name", { exact: true }).fill("Revenue high")
        assert.strictEqual(await form.getByLabel(/^Dataset/).inputValue() !== "", true)
        await form.getByLabel(/^Measure/).selectOption({ label: "Revenue" })
        await form.getByLabel("Fires when the measure is").selectOption({ label: "above the threshold" })
        await form.getByLabel("Threshold", { exact: true }).fill("1")
        await check(page, "alerts-form-1280")
        await form.getByRole("button", { name: "Create alert" }).click()
        await page.getByText("Revenue high created.").waitFor()
        const list = page.getByRole("list", { name: "Alerts" })
        const row = list.locator(":scope > li", { hasText: "Revenue high" })
        await row.getByText("Revenue is above 1", { exact: true }).waitFor()
        await row.getByText("Not checked yet").waitFor()

        // Checked now: it fires; its history says so and what it measured.
        await page.getByRole("button", { name: "Check now: Revenue high" }).click()
        await page.getByText(/^Revenue high checked: .+, firing\.$/).waitFor()
        assert.match(await row.innerText(), /Firing/)
        await page.getByRole("button", { name: "History: Revenue high" }).click()
        const history = page.getByRole("list", { name: "Checks of Revenue high" })
        await history.waitFor()
        assert.strictEqual(await history.locator(":scope > li").count(), 1)
        assert.match(await history.innerText(), /Fired · measured .+ \(Revenue is above 1\) · checked by hand/)
        await check(page, "alerts-history-1280")

        // Edited: another measure and threshold; the next check resolves it, and the history keeps both.
        await page.getByRole("button", { name: "Edit: Revenue high" }).click()
        const edit = page.getByRole("region", { name: "Change Revenue high" })
        assert.strictEqual(await edit.getByLabel("Threshold", { exact: true }).inputValue(), "1")
        await edit.getByLabel(/^Measure/).selectOption({ label: "Orders" })
        await edit.getByLabel("Threshold", { exact: true }).fill("1000000")
        await edit.getByRole("button", { name: "Save" }).click()
        await page.getByText("Revenue high saved.").waitFor()
        await row.getByText("Orders is above 1,000,000", { exact: true }).waitFor()
        await page.getByRole("button", { name: "Check now: Revenue high" }).click()
        await page.getByText(/^Revenue high checked: .+, OK\.$/).waitFor()
        await history.locator(":scope > li").nth(1).waitFor()
        assert.match(await history.locator(":scope > li").first().innerText(), /Resolved · measured .+ \(Orders is above 1,000,000\)/)

        // A bad threshold is refused in words, nothing sent.
        await page.getByRole("button", { name: "Edit: Revenue high" }).click()
        await edit.getByLabel("Threshold", { exact: true }).fill("lots")
        await edit.getByRole("button", { name: "Save" }).click()
        await page.getByRole("alert").getByText("Give the threshold as a number.").waitFor()
        await edit.getByRole("button", { name: "Cancel" }).click()

        await page.setViewportSize({ width: 390, height: 844 })
        await check(page, "alerts-390")
        await page.setViewportSize({ width: 1280, height: 900 })

        // Deleted after a confirmation that names it; "Keep it" first changes nothing.
        await page.getByRole("button", { name: "Delete: Revenue high" }).click()
        const dialog = page.getByRole("dialog", { name: "Delete this alert?" })
        assert.match(await dialog.innerText(), /Revenue high stops being checked/)
        await dialog.getByRole("button", { name: "Keep it" }).click()
        assert.strictEqual(await row.count(), 1)
        await page.getByRole("button", { name: "Delete: Revenue high" }).click()
        await page.getByRole("dialog", { name: "Delete this alert?" }).getByRole("button", { name: "Delete alert" }).click()
        await page.getByText("Revenue high deleted.").waitFor()
        await page.getByText("No alerts in this workspace.").waitFor()
        assert.strictEqual((await fetch(`${server.url}/v1/alerts?workspace_id=${workspaceId}`, { headers: { authorization: `Bearer ${admin}` } }).then((r) => r.json())).data.length, 0)
        assert.deepStrictEqual(errors(), [], "no console errors")
        await context.close()
      })
    }).pipe(Effect.scoped), { timeout: 120_000 })
})
