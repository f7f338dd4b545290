/**
 * The console's admin screens in real headless Chromium: the audit log
 * (filtered by action, the address keeps it across a reload) and the
 * directory (an invitation mailed and shown pending, a team made and a
 * member added through the people picker, a SCIM token shown once, a
 * member deprovisioned while their own console is open: their next click
 * lands on the sign-in screen). A member sees no admin navigation and
 * their deep links say "Not available to you". Each screen axe clean, no
 * console error (the expected 401 after deprovisioning accounted for),
 * nothing overflowing at 1280 and 390 px (screenshots with
 * `VIEWER_SHOTS=<dir>`).
 *
 * Signed in through the session endpoints (`ConsoleSignIn`): the admin with
 * their API token, the member by their e-mailed link.
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"
import { setup } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: true })
}

/** Axe clean, nothing wider than the window, and a screenshot. */
const check = async (page: Page, name: string) => {
  assert.deepStrictEqual(await Axe.serious(page), [], name)
  assert.isAtMost(await overflow(page), 0, `${name} overflows`)
  await shoot(page, name)
}

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("the console's audit log and directory in headless Chromium"), () => {
  it.live("an admin filters the audit log, invites, makes a team, a SCIM token, deprovisions a member whose console is open; a member is refused in words", () =>
    Effect.gen(function*() {
      const { admin, mails, ok, reportId, server } = yield* setup
      const mia = yield* ok("POST", "/v1/users", { email: "mia@example.com", name: "Mia Member", roles: ["member"] })
      // Something for the audit log besides the sign-ins: a grant made.
      const miaToken = yield* ok("POST", `/v1/users/${mia.user_id}/tokens`, {})
      yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "user", principal_id: mia.user_id, actions: ["view"] })
      const browser: Browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context: adminContext, page } = await consolePage(browser, server.url, { token: admin })
        const errors = Chromium.watchErrorsExcept(page, () => false)

        // The audit log: the navigation offers it; filtered by action, the address carries the filter, a reload keeps it.
        await page.goto(`${server.url}/`)
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" }).click()
        await page.getByRole("heading", { level: 1, name: "Audit log" }).waitFor()
        await page.getByRole("list", { name: "Entries, newest first" }).waitFor()
        assert.isAbove(await page.getByText(/signed in$/).count(), 0, "the admin's own sign-in is there")
        await page.getByLabel("Action").selectOption("grant.created")
        await page.getByRole("button", { name: "Filter" }).click()
        await page.waitForURL(/\/audit\?action=grant\.created$/)
        // The unfiltered screen stays until the filtered one has its entries: wait for the one entry left.
        await page.waitForFunction(() => document.querySelectorAll("analytics-audit ul.items > li").length === 1)
        await page.getByText("You shared Sales overview with Mia Member").waitFor()
        const filtered = page.getByRole("list", { name: "Entries, newest first" }).locator(":scope > li")
        assert.strictEqual(await filtered.count(), 1)
        assert.match(await filtered.first().innerText(), /shared Sales overview with Mia Member/)
        await page.reload()
        await page.getByRole("list", { name: "Entries, newest first" }).waitFor()
        assert.strictEqual(await page.getByLabel("Action").inputValue(), "grant.created")
        assert.strictEqual(await filtered.count(), 1)
        await filtered.first().getByText("Details").click()
        assert.match(await filtered.first().locator("pre").innerText(), /"principal_id"/)
        await check(page, "audit-1280")

        // Users: an invitation is mailed, and shows pending.
        await page.getByRole("link", { name: "Directory" }).click()
        await page.getByRole("heading", { level: 1, name: "Directory" }).waitFor()
        await page.getByRole("list", { name: "Users" }).waitFor()
        await page.getByLabel("E-mail address").fill("newbie@example.com")
        await page.getByRole("button", { name: "Send the invitation" }).click()
        await page.getByText("An invitation is on its way to newbie@example.com.").waitFor()
        assert.isTrue(mails.some((m) => m.to.includes("newbie@example.com")), "the invitation is mailed")
        await check(page, "directory-users-1280")
        // Her personal token, listed by date and revoked after a confirmation.
        await page.getByRole("button", { name: "Tokens: Mia Member" }).click()
        const tokens = page.getByRole("list", { name: "Mia Member's personal tokens" })
        await tokens.waitFor()
        await tokens.getByRole("button", { name: `Revoke: ${miaToken.token_id}` }).click()
        await page.getByRole("dialog", { name: "Revoke this token?" }).getByRole("button", { name: "Revoke the token" }).click()
        await page.getByText("The token is revoked.").waitFor()
        await page.getByText("No tokens.").waitFor()
        assert.strictEqual((await fetch(`${server.url}/v1/workspaces`, { headers: { authorization: `Bearer ${miaToken.token}` } })).status, 401, "the revoked token is refused")
        await page.getByRole("link", { name: "Invitations" }).click()
        const invitation = page.getByRole("list", { name: "Invitations" }).locator("li", { hasText: "newbie@example.com" })
        await invitation.waitFor()
        assert.match(await invitation.innerText(), /Pending/)
        const mailed = mails.filter((m) => m.to.includes("newbie@example.com")).length
        await page.getByRole("button", { name: "Resend: newbie@example.com" }).click()
        await page.getByText("Sent again to newbie@example.com, with a new link; the previous one no longer works.").waitFor()
        assert.strictEqual(mails.filter((m) => m.to.includes("newbie@example.com")).length, mailed + 1, "mailed again")
        await check(page, "directory-invitations-1280")
        await page.getByRole("button", { name: "Revoke: newbie@example.com" }).click()
        await page.getByText("The invitation to newbie@example.com is revoked.").waitFor()
        assert.match(await invitation.innerText(), /Revoked/)
        assert.strictEqual(await page.getByRole("button", { name: "Revoke: newbie@example.com" }).count(), 0)

        // Teams: one made, a member added through the people picker.
        await page.getByRole("link", { name: "Teams" }).click()
        await page.getByLabel("New team's name").fill("Finance")
        await page.getByRole("button", { name: "Create the team" }).click()
        await page.getByText("Finance created.").waitFor()
        await page.getByRole("button", { name: "Members: Finance" }).click()
        await page.getByText("No members yet.").waitFor()
        await page.getByLabel("Add a member").fill("Mia")
        await page.getByRole("button", { name: "Add: Mia Member" }).click()
        await page.getByText("Mia Member added to Finance.").waitFor()
        await page.getByRole("list", { name: "Members of Finance" }).getByText("Mia Member · mia@example.com").waitFor()
        await check(page, "directory-teams-1280")

        // SCIM: a token shown once.
        await page.getByRole("link", { name: "SCIM tokens" }).click()
        await page.getByRole("button", { name: "Create a SCIM token" }).click()
        await page.getByText("Copy the token now: it will not be shown again.").waitFor()
        const token = await page.getByLabel("The token").inputValue()
        assert.isAbove(token.length, 20)
        await check(page, "directory-scim-1280")
        await page.reload()
        await page.getByRole("list", { name: "SCIM tokens" }).waitFor()
        assert.strictEqual(await page.getByLabel("The token").count(), 0, "not shown again")
        assert.notInclude(await page.locator("main").innerText(), token)

        // The member, signed in by their e-mailed link: no admin navigation, deep links refused in words.
        const { context: memberContext, page: member } = await consolePage(browser, server.url, { email: "mia@example.com", mails })
        // After deprovisioning, the member's next request answers 401 (the refusal the console answers with the sign-in
        // screen); pages loaded since say who is signed in, so nothing else is refused.
        const memberErrors = Chromium.watchErrorsExcept(member, (path, status) => status === 401 && path.startsWith("/v1/"))
        await member.goto(`${server.url}/`)
        await member.getByRole("heading", { level: 1, name: "Workspaces" }).waitFor()
        const nav = member.getByRole("navigation", { name: "Main" })
        assert.strictEqual(await nav.getByRole("link").count(), 1, await nav.innerText())
        for (const path of ["audit", "directory?tab=teams"]) {
          await member.goto(`${server.url}/${path}`)
          await member.getByRole("heading", { level: 1, name: "Not available to you" }).waitFor()
          assert.strictEqual(await member.locator(".problem").count(), 0)
        }
        await check(member, "member-not-available-1280")

        // The admin deprovisions her while her console is open.
        await page.getByRole("link", { name: "Users" }).click()
        await page.getByRole("button", { name: "Deprovision: Mia Member" }).click()
        const dialog = page.getByRole("dialog", { name: "Deprovision Mia Member?" })
        assert.match(await dialog.innerText(), /sessions and API tokens end at once/)
        await dialog.getByRole("button", { name: "Deprovision" }).click()
        await page.getByText("Mia Member is deprovisioned: their sessions and tokens have ended.").waitFor()
        assert.match(await page.getByRole("list", { name: "Users" }).locator("li", { hasText: "Mia Member" }).innerText(), /Deprovisioned/)

        // Her next click lands on the sign-in screen.
        await member.getByRole("link", { name: "Back to your workspaces" }).click()
        await member.getByRole("heading", { level: 1, name: "Sign in" }).waitFor()
        assert.match(member.url(), /\/sign-in/)

        // The audit log tells the directory's changes in words: the deprovisioning, and the session it ended.
        await page.goto(`${server.url}/audit?target_type=user`)
        await page.getByText("You deprovisioned Mia Member").waitFor()
        await page.getByText("You added the user Mia Member").waitFor()
        await page.goto(`${server.url}/audit?action=session.ended`)
        await page.getByText("You ended a session of Mia Member (their account deprovisioned)").waitFor()
        await check(page, "audit-directory-1280")

        // At 390 px: the same screens, nothing overflowing.
        await page.setViewportSize({ width: 390, height: 844 })
        for (const [path, name] of [["audit?action=grant.created", "audit-390"], ["audit?target_type=user", "audit-directory-390"], ["directory", "directory-users-390"], ["directory?tab=teams", "directory-teams-390"]] as const) {
          await page.goto(`${server.url}/${path}`)
          await page.locator("ul.items").first().waitFor()
          await check(page, name)
        }
        await member.setViewportSize({ width: 390, height: 844 })
        await shoot(member, "member-signed-out-390")

        assert.deepStrictEqual(errors(), [], "no console errors (admin)")
        assert.deepStrictEqual(memberErrors(), [], "no console errors (member)")
        await adminContext.close()
        await memberContext.close()
      })
    }).pipe(Effect.scoped), { timeout: 120_000 })
})
