/**
 * The console's audit log as a person reads it, in headless Chromium: each
 * entry a sentence naming who did what to what, as the entry wrote the
 * names down ("Ada Lovelace shared Sales overview with Finance team",
 * still so after the report and the team are renamed); exports, their
 * downloads, webhook and schedule changes told in words; a date range
 * (From, To) kept in the address; "Download CSV" saves the entries the
 * filters pass. Axe clean and nothing overflowing at 1280 and 390 px
 * (screenshots with `VIEWER_SHOTS=<dir>`).
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, readFileSync } from "node:fs"
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

const day = (offset: number) => new Date(Date.now() + offset * 24 * 60 * 60 * 1000).toISOString().slice(0, 10)

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("the console's audit log in words, by date, as CSV"), () => {
  it.live("an admin reads who shared what with whom, exports and changes in sentences, narrows them to dates and downloads them as CSV", () =>
    Effect.gen(function*() {
      const { admin, ok, reportId, server, worker } = yield* setup
      const ada = yield* ok("POST", "/v1/users", { email: "ada@example.com", name: "Ada Lovelace", roles: ["admin"] })
      const adaToken = (yield* ok("POST", `/v1/users/${ada.user_id}/tokens`, {})).token as string
      const team = yield* ok("POST", "/v1/teams", { name: "Finance team" })
      const asAda = (method: string, path: string, body?: unknown) =>
        Effect.map(server.request(method, path, { token: adaToken, body }), (r) => {
          assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
          return r.body
        })
      yield* asAda("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "team", principal_id: team.team_id, actions: ["view"] })
      const job = yield* asAda("POST", `/v1/reports/${reportId}/export`, { format: "csv", visual_id: "revenue_by_region" })
      yield* worker
      yield* asAda("GET", `/v1/jobs/${job.job_id}/result`)
      const hook = yield* asAda("POST", "/v1/webhooks", { url: "https://hooks.example.com/alerts", events: ["alert.fire"] })
      yield* asAda("PATCH", `/v1/webhooks/${hook.webhook_id}`, { enabled: false })
      yield* asAda("POST", "/v1/export-schedules", {
        report_id: reportId, name: "Weekly sales", cron: "0 8 * * 1", timezone: "UTC", format: "csv", visual_id: "revenue_by_region", recipients: ["ada@example.com"]
      })
      // Renamed since: the entries say what they were called then.
      yield* ok("PATCH", `/v1/reports/${reportId}`, { name: "Sales (old)" })
      yield* ok("PATCH", `/v1/teams/${team.team_id}`, { name: "Finance (renamed)" })

      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin }, { acceptDownloads: true })
        const errors = Chromium.watchErrorsExcept(page, () => false)
        await page.goto(`${server.url}/`)
        await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Audit log" }).click()
        await page.getByRole("heading", { level: 1, name: "Audit log" }).waitFor()
        const entries = page.getByRole("list", { name: "Entries, newest first" })
        await entries.waitFor()
        for (const sentence of [
          "Ada Lovelace shared Sales overview with Finance team",
          "Ada Lovelace exported Sales overview (CSV)",
          "Ada Lovelace downloaded the export of Sales overview (CSV)",
          "Ada Lovelace added the webhook https://hooks.example.com/alerts",
          "Ada Lovelace changed the webhook https://hooks.example.com/alerts",
          "Ada Lovelace scheduled the export Weekly sales",
          "You changed the report Sales (old), formerly Sales overview"
        ]) await entries.getByText(sentence, { exact: true }).waitFor()
        await check(page, "audit-sentences-1280")

        // A date range: From today keeps them; From tomorrow leaves none; the address carries it.
        await page.getByLabel("From", { exact: true }).fill(day(1))
        await page.getByRole("button", { name: "Filter" }).click()
        await page.waitForURL(new RegExp(`/audit\\?from=${day(1)}$`))
        await page.getByText("No entries match.").waitFor()
        await page.getByLabel("From", { exact: true }).fill(day(0))
        await page.getByLabel("To", { exact: true }).fill(day(0))
        await page.getByLabel("Action").selectOption("grant.created")
        await page.getByRole("button", { name: "Filter" }).click()
        await page.waitForURL(new RegExp(`/audit\\?action=grant\\.created&from=${day(0)}&to=${day(0)}$`))
        await page.waitForFunction(() => document.querySelectorAll("analytics-audit ul.items > li").length === 1)
        await entries.getByText("Ada Lovelace shared Sales overview with Finance team", { exact: true }).waitFor()
        await page.reload()
        await entries.waitFor()
        assert.strictEqual(await page.getByLabel("From", { exact: true }).inputValue(), day(0))
        assert.strictEqual(await page.getByLabel("To", { exact: true }).inputValue(), day(0))

        // Download CSV: the entries these filters pass, as a file.
        const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download CSV" }).click()])
        assert.match(download.suggestedFilename(), /^audit-log-\d{4}-\d{2}-\d{2}\.csv$/)
        const text = readFileSync((await download.path())!, "utf8")
        const lines = text.trimEnd().split("\r\n")
        assert.strictEqual(lines.length, 2, text)
        assert.match(lines[0]!, /^created_at,action,actor_type,actor_id/)
        assert.include(lines[1]!, "grant.created")
        assert.include(lines[1]!, "Finance team")
        await check(page, "audit-range-1280")

        await page.setViewportSize({ width: 390, height: 844 })
        await page.goto(`${server.url}/audit`)
        await entries.waitFor()
        await entries.getByText("Ada Lovelace shared Sales overview with Finance team", { exact: true }).waitFor()
        await check(page, "audit-sentences-390")
        assert.deepStrictEqual(errors(), [], "no console errors")
        await context.close()
      })
    }).pipe(Effect.scoped), { timeout: 120_000 })
})
