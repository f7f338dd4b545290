/**
 * Exports from the console in real headless Chromium, on core's demo
 * report ("Sales overview", `ReportViewerFixture`) with the document
 * renderers and the export worker running beside the server:
 *
 * - `<analytics-export-button>` on the workspace's report row: PDF, three
 *   of the four pages, the region filter the report shows; the job's
 *   progress, then a real download (`page.waitForEvent("download")`) whose
 *   file starts `%PDF` under its own name; `analytics-export-done`; a
 *   job canceled while queued; the UI class's 429 in words.
 * - The scheduled exports screen: a schedule created (cron in words),
 *   **Send now**, the mail arriving at the real SMTP test server with the
 *   PDF attached (the SMTP adapter is the app's Mailer), the run history,
 *   edit, off, delete after a confirmation; without a mail service, the
 *   history says "Logged (no SMTP)" rather than "Sent".
 *
 * Axe clean, no console error, screenshots at 1280 and 390 px
 * (`VIEWER_SHOTS=<dir>`). Signed in through the session endpoints (`ConsoleSignIn`).
 */
import { Documents } from "@analytics/adapter-documents"
import { SmtpMailer } from "@analytics/adapter-smtp"
import { Axe, Chromium } from "@analytics/testing/browser"
import { SmtpServer } from "@analytics/testing/smtp"
import { Mailer } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { simpleParser } from "mailparser"
import { mkdirSync, readFileSync } from "node:fs"
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

/** The demo report with PDF renderers, mail through a real SMTP server, and the export worker running until `working.pause()` (again from `working.resume()`). */
const setup = Effect.gen(function*() {
  const smtp = yield* SmtpServer.start()
  const fixture = yield* setupWith({
    atOwnUrl: true,
    renderers: Documents.layer,
    mailer: SmtpMailer.layer({ url: `smtp://127.0.0.1:${smtp.port}`, from: "Analytics <noreply@example.com>" })
  })
  // The export worker as a host runs it (`Workers.start`), stopped and started again from the browser steps' promises.
  const running = Effect.scoped(Effect.andThen(fixture.workers, Effect.never))
  let workers = yield* Effect.forkScoped(running)
  yield* Effect.addFinalizer(() => Effect.suspend(() => Fiber.interrupt(workers)))
  const working = {
    pause: () => Effect.runPromise(Fiber.interrupt(workers)),
    resume: () => void (workers = Effect.runFork(running))
  }
  // The admin the console signs in as, a user of the tenant who may receive the report.
  yield* fixture.ok("POST", "/v1/users", { email: "ada@example.com", name: "Ada Admin", roles: ["admin"] })
  return { ...fixture, smtp, working }
})

const exportDialog = (page: Page) => page.locator("analytics-export-button dialog").first()

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("exports in the console, in headless Chromium"), () => {
  it.live("the export button: a PDF downloads under its name and starts %PDF; progress, cancel, the UI limit in words; 1280 and 390 px", () =>
    Effect.gen(function*() {
      const { admin, reportId, server, working, workspaceId } = yield* setup
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin }, { acceptDownloads: true })
        const errors = Chromium.watchErrors(page)
        await page.goto(`${server.url}/w/${workspaceId}`)
        const open = page.getByRole("button", { name: "Export Sales overview" })
        await open.waitFor()
        await page.getByRole("button", { name: "Share Sales overview" }).waitFor()
        await page.getByRole("link", { name: "Scheduled exports" }).waitFor()
        assert.deepStrictEqual(await Axe.serious(page), [], "workspace with Export buttons")
        await shoot(page, "workspace-export-1280")
        await page.evaluate(() => {
          const seen: Array<unknown> = []
          ;(globalThis as any).__done = seen
          document.addEventListener("analytics-export-done", (e) => seen.push((e as CustomEvent).detail))
          // The filters the report would show (the report screen hands its own).
          ;(document.querySelector("analytics-export-button") as any).filters = { region: ["EU", "US"] }
        })

        // The dialog: the eight formats, the report's four pages, the filters in words; focus on the chosen format.
        await open.click()
        const dialog = exportDialog(page)
        await dialog.getByRole("heading", { name: "Export Sales overview" }).waitFor()
        await dialog.getByRole("checkbox", { name: "Mix" }).waitFor()
        assert.strictEqual(await dialog.getByRole("radio").count(), 8)
        assert.isTrue(await dialog.getByRole("radio", { name: "PDF: the report, page by page" }).isChecked())
        assert.strictEqual(await dialog.getByRole("checkbox").count(), 4)
        const filters = await dialog.locator("dl").innerText()
        assert.include(filters, "Region")
        assert.include(filters, "EU, US")
        assert.deepStrictEqual(await Axe.serious(page), [], "export dialog")
        await shoot(page, "export-dialog-1280")

        // Three pages, then Export: progress, then the download.
        await dialog.getByRole("checkbox", { name: "Mix" }).uncheck()
        const downloading = page.waitForEvent("download", { timeout: 60_000 })
        await dialog.getByRole("button", { name: "Export", exact: true }).click()
        await dialog.getByRole("progressbar", { name: "Export progress" }).waitFor()
        await shoot(page, "export-progress-1280")
        const download = await downloading
        const filename = download.suggestedFilename()
        assert.match(filename, /\.pdf$/)
        const bytes = readFileSync(await download.path())
        assert.strictEqual(bytes.subarray(0, 4).toString("latin1"), "%PDF")
        await dialog.getByText(`${filename} (`).waitFor()
        const done = await page.evaluate(() => (globalThis as any).__done)
        assert.strictEqual(done.length, 1)
        assert.strictEqual(done[0].filename, filename)
        assert.match(done[0].url, /\/v1\/jobs\/[\w-]+\/file\?/)
        const job = await server.request("GET", `/v1/jobs/${done[0].job_id}`, { token: admin }).pipe(Effect.runPromise)
        assert.strictEqual(job.body.status, "succeeded")
        assert.deepStrictEqual(job.body.request.pages, ["Overview", "Trends", "Products"])
        assert.deepStrictEqual(job.body.request.filters, { region: ["EU", "US"] })
        assert.strictEqual(await dialog.getByRole("link", { name: "Download again" }).getAttribute("href"), done[0].url)
        assert.deepStrictEqual(await Axe.serious(page), [], "export done")
        await shoot(page, "export-done-1280")
        await page.emulateMedia({ colorScheme: "dark" })
        assert.deepStrictEqual(await Axe.serious(page), [], "export done, dark")
        await shoot(page, "export-done-1280-dark")
        await page.emulateMedia({ colorScheme: "light" })

        // A job canceled while it waits in the queue (the worker paused): the service says canceled.
        await working.pause()
        await dialog.getByRole("button", { name: "Export something else" }).click()
        await dialog.getByRole("radio", { name: "Excel: a sheet per visual" }).check()
        const posted = page.waitForResponse((r) => r.url().endsWith(`/v1/reports/${reportId}/export`) && r.request().method() === "POST")
        await dialog.getByRole("button", { name: "Export", exact: true }).click()
        const queued = await (await posted).json()
        await dialog.getByText("Waiting in the workspace's queue…").waitFor()
        await dialog.getByRole("button", { name: "Cancel export" }).click()
        await dialog.getByText("Export canceled.").waitFor()
        const canceled = await server.request("GET", `/v1/jobs/${queued.job_id}`, { token: admin }).pipe(Effect.runPromise)
        assert.strictEqual(canceled.body.status, "canceled")
        assert.strictEqual(canceled.body.format, "xlsx")
        working.resume()

        // The UI class's limit, as the service answers a 31st export in a minute: in words, with the wait.
        await page.route(/\/v1\/reports\/[^/]+\/export$/, (route) =>
          route.fulfill({
            status: 429,
            headers: { "retry-after": "42" },
            contentType: "application/problem+json",
            body: JSON.stringify({ type: "about:blank", title: "Export limit exceeded", status: 429, code: "rate-limit/exports-exceeded", detail: "You have started 30 exports in the last minute" })
          }))
        await dialog.getByRole("button", { name: "Export", exact: true }).click()
        const alert = dialog.getByRole("alert")
        await alert.waitFor()
        const text = await alert.innerText()
        assert.include(text, "Export limit reached")
        assert.include(text, "You have started 30 exports in the last minute")
        assert.include(text, "30 exports a minute per person: wait 42 seconds, then export again.")
        assert.deepStrictEqual(await Axe.serious(page), [], "limit reached")
        await shoot(page, "export-limit-1280")
        await page.unroute(/\/v1\/reports\/[^/]+\/export$/)
        await page.keyboard.press("Escape")
        await dialog.waitFor({ state: "hidden" })
        assert.deepStrictEqual(errors.filter((e) => !/status of 429/.test(e)), [], "only the refused export's 429")
        await context.close()

        // 390 px: the workspace's rows and the dialog fit.
        const { context: narrow, page: small } = await consolePage(browser, server.url, { token: admin }, { width: 390, height: 844 })
        const smallErrors = Chromium.watchErrors(small)
        await small.goto(`${server.url}/w/${workspaceId}`)
        await small.getByRole("button", { name: "Export Sales overview" }).waitFor()
        await shoot(small, "workspace-export-390")
        assert.isAtMost(await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0)
        await small.getByRole("button", { name: "Export Sales overview" }).click()
        const smallDialog = exportDialog(small)
        await smallDialog.getByRole("checkbox", { name: "Mix" }).waitFor()
        assert.deepStrictEqual(await Axe.serious(small), [], "export dialog at 390 px")
        await shoot(small, "export-dialog-390")
        assert.isAtMost(await smallDialog.evaluate((el) => el.scrollWidth - el.clientWidth), 0, "the dialog fits 390 px")
        assert.deepStrictEqual(smallErrors, [])
        await narrow.close()
      })
    }).pipe(Effect.scoped), 120_000)

  it.live("the element alone on a plain page: CSV of one visual by the stable elements script, its events, Escape gives focus back", () =>
    Effect.gen(function*() {
      const { admin, reportId, server } = yield* setup
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin }, { acceptDownloads: true })
        // An embedding app's page on the service's origin: the stable elements script and the element, CSV and JSON of one visual only.
        await context.route(/\/plain\.html$/, (route) =>
          route.fulfill({
            contentType: "text/html; charset=utf-8",
            body: `<!doctype html><html lang="en"><head><title>Partner portal</title><script type="module" src="/assets/analytics-elements.js"></script></head>
              <body><main><h1>Partner portal</h1>
              <analytics-export-button report-id="${reportId}" visual-id="revenue_by_region" formats="csv,json"></analytics-export-button></main></body></html>`
          }))
        const errors = Chromium.watchErrors(page)
        await page.goto(`${server.url}/plain.html`)
        await page.evaluate(async () => {
          await customElements.whenDefined("analytics-export-button")
          const seen: Array<string> = []
          ;(globalThis as any).__events = seen
          document.addEventListener("analytics-export-done", (e) => seen.push(`done ${(e as CustomEvent).detail.filename}`))
          document.addEventListener("analytics-problem", (e) => seen.push(`problem ${(e as CustomEvent).detail.problem.code}`))
        })
        const open = page.getByRole("button", { name: "Export" })
        await open.click()
        const dialog = exportDialog(page)
        // Its title is the report's name, asked of the service; the two formats only; no visual to pick (the page named it).
        await dialog.getByRole("heading", { name: "Export Sales overview" }).waitFor()
        assert.strictEqual(await dialog.getByRole("radio").count(), 2)
        assert.isTrue(await dialog.getByRole("radio", { name: "CSV: one visual's rows" }).isChecked())
        assert.strictEqual(await dialog.getByRole("combobox").count(), 0)
        assert.strictEqual(await dialog.getByRole("checkbox").count(), 0, "no pages for one visual's rows")
        await dialog.getByText("No filters: every row you may see.").waitFor()
        assert.include(await dialog.innerText(), "Visual: Revenue by region")
        assert.deepStrictEqual(await Axe.serious(page), [], "plain page")
        await shoot(page, "export-plain-1280")
        const downloading = page.waitForEvent("download", { timeout: 60_000 })
        await dialog.getByRole("button", { name: "Export", exact: true }).click()
        const download = await downloading
        assert.match(download.suggestedFilename(), /\.csv$/)
        const csv = readFileSync(await download.path(), "utf8")
        assert.match(csv.split("\n")[0]!, /region/i)
        assert.isAtLeast(csv.trim().split("\n").length, 4, "a header and a row per region")
        await dialog.getByRole("link", { name: "Download again" }).waitFor()
        await page.keyboard.press("Escape")
        await dialog.waitFor({ state: "hidden" })
        assert.strictEqual(
          await page.evaluate(() => document.querySelector("analytics-export-button")!.shadowRoot!.activeElement?.textContent?.trim()),
          "Export",
          "focus back on the button"
        )
        assert.deepStrictEqual(await page.evaluate(() => (globalThis as any).__events), [`done ${download.suggestedFilename()}`])
        assert.deepStrictEqual(errors, [])
        await context.close()
      })
    }).pipe(Effect.scoped), 90_000)

  it.live("the report screen's Export applies the filters a person chose on it, not those it opened with; 1280 and 390 px", () =>
    Effect.gen(function*() {
      const { admin, reportId, server, workspaceId } = yield* setup
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of [1280, 390]) {
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { width })
          const errors = Chromium.watchErrors(page)
          await page.goto(`${server.url}/w/${workspaceId}/reports/${reportId}`)
          const region = page.getByRole("combobox", { name: "Region", exact: true })
          await region.waitFor()
          await region.selectOption({ label: "EU" })
          // The filtered view is in (the address carries its filters) before the person reaches for Export.
          await page.waitForFunction(() => new URLSearchParams(location.search).get("filters")?.includes("EU") === true)
          await page.getByRole("button", { name: "Export Sales overview" }).click()
          const dialog = exportDialog(page)
          await dialog.getByRole("heading", { name: "Export Sales overview" }).waitFor()
          const filters = await dialog.locator("dl").innerText()
          assert.include(filters, "Region", `${width} px`)
          assert.include(filters, "EU", `${width} px: the filter chosen on the screen`)
          const requested = page.waitForRequest((request) => request.method() === "POST" && /\/v1\/reports\/[^/]+\/exports?/.test(request.url()))
          await dialog.getByRole("button", { name: "Export", exact: true }).click()
          const body = (await requested).postDataJSON()
          assert.deepStrictEqual(Object.keys(body.filters), ["region"], `${width} px: the export asks the filters on screen`)
          assert.deepStrictEqual([body.filters.region].flat(), ["EU"], `${width} px: the region chosen`)
          await shoot(page, `export-live-filters-${width}`)
          assert.deepStrictEqual(await Axe.serious(page), [], "report screen and export dialog")
          assert.deepStrictEqual(errors, [])
          await context.close()
        }
      })
    }).pipe(Effect.scoped), 90_000)

  it.live("scheduled exports: create (cron in words), Send now → the mail with the PDF arrives at the SMTP server; history, edit, off, delete", () =>
    Effect.gen(function*() {
      const { admin, server, smtp, workspaceId } = yield* setup
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin })
        const errors = Chromium.watchErrors(page)
        await page.goto(`${server.url}/w/${workspaceId}`)
        await page.getByRole("link", { name: "Scheduled exports" }).click()
        await page.getByRole("heading", { name: "Scheduled exports", level: 1 }).waitFor()
        await page.getByText("No scheduled exports in this workspace.").waitFor()
        assert.deepStrictEqual(await Axe.serious(page), [], "empty schedules")

        // A new schedule: the cron in words as it is typed, in the chosen zone.
        await page.getByRole("button", { name: "New schedule" }).click()
        const form = page.locator("section.card form")
        await form.getByLabel("Name").fill("Weekly sales")
        await form.getByLabel("Time zone").fill("Europe/Paris")
        await form.getByLabel("When (cron)").fill("0 9 * * 1")
        await form.getByText("Every Monday at 09:00 (Europe/Paris)").waitFor()
        await form.getByLabel("When (cron)").fill("0 9 1-7 * 1")
        await form.getByText("0 9 1-7 * 1 (Europe/Paris)").waitFor()
        await form.getByLabel("When (cron)").fill("0 9 * * 1")
        await form.getByLabel("Recipients").fill("ada@example.com")
        assert.deepStrictEqual(await Axe.serious(page), [], "schedule form")
        await shoot(page, "schedule-form-1280")
        await form.getByRole("button", { name: "Create schedule" }).click()
        await page.getByText("Weekly sales created.").waitFor()
        const row = page.locator("ul.schedules > li", { hasText: "Weekly sales" })
        assert.include(await row.innerText(), "Every Monday at 09:00 (Europe/Paris)")
        assert.include(await row.innerText(), "Sales overview · PDF · 1 recipient")
        assert.include(await row.innerText(), "On")

        // Send now: the mail arrives at the SMTP server with the PDF attached.
        await row.getByRole("button", { name: "Send now: Weekly sales" }).click()
        await page.getByText("Weekly sales is on its way to 1 recipient.").waitFor()
        for (let i = 0; i < 120 && smtp.received.length === 0; i++) await new Promise((r) => setTimeout(r, 250))
        assert.strictEqual(smtp.received.length, 1, "one mail")
        assert.deepStrictEqual(smtp.received[0]!.to, ["ada@example.com"])
        const mail = await simpleParser(smtp.received[0]!.raw)
        const attachment = mail.attachments[0]
        assert.isDefined(attachment)
        assert.match(attachment!.filename ?? "", /\.pdf$/)
        assert.strictEqual(attachment!.content.subarray(0, 4).toString("latin1"), "%PDF")

        // The history: ada's job, sent.
        await row.getByRole("button", { name: "History: Weekly sales" }).click()
        await row.getByText("Runs of Weekly sales").waitFor()
        await row.locator(".runs li", { hasText: "ada@example.com" }).getByText("Sent", { exact: true }).waitFor()
        assert.include(await row.innerText(), "Last sent")
        assert.deepStrictEqual(await Axe.serious(page), [], "history")
        await shoot(page, "schedules-history-1280")

        // Edit: weekdays at 07:30; then off.
        await row.getByRole("button", { name: "Edit: Weekly sales" }).click()
        await form.getByLabel("When (cron)").fill("30 7 * * 1-5")
        await form.getByText("Every weekday at 07:30 (Europe/Paris)").waitFor()
        await form.getByRole("button", { name: "Save" }).click()
        await page.getByText("Weekly sales saved.").waitFor()
        assert.include(await row.innerText(), "Every weekday at 07:30 (Europe/Paris)")
        await row.getByRole("button", { name: "Turn off: Weekly sales" }).click()
        await page.getByText("Weekly sales is off: it sends nothing until turned on.").waitFor()
        assert.include(await row.innerText(), "Not scheduled while off")
        assert.deepStrictEqual(await Axe.serious(page), [], "schedule off")
        await shoot(page, "schedules-1280")
        const listed = await server.request("GET", `/v1/export-schedules?workspace_id=${workspaceId}`, { token: admin }).pipe(Effect.runPromise)
        assert.deepStrictEqual(listed.body.data.map((s: any) => [s.cron, s.timezone, s.enabled]), [["30 7 * * 1-5", "Europe/Paris", false]])

        // 390 px, before it goes.
        const { context: narrow, page: small } = await consolePage(browser, server.url, { token: admin }, { width: 390, height: 844 })
        const smallErrors = Chromium.watchErrors(small)
        await small.goto(`${server.url}/w/${workspaceId}/schedules`)
        const smallRow = small.locator("ul.schedules > li").first()
        await smallRow.waitFor()
        await smallRow.getByRole("button", { name: "History: Weekly sales" }).click()
        await smallRow.locator(".runs li").getByText("Sent", { exact: true }).waitFor()
        await shoot(small, "schedules-390")
        assert.isAtMost(await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0)
        await small.getByRole("button", { name: "New schedule" }).click()
        await small.locator("section.card form").getByLabel("Name").waitFor()
        await shoot(small, "schedule-form-390")
        assert.deepStrictEqual(await Axe.serious(small), [], "schedules at 390 px")
        assert.isAtMost(await small.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0)
        assert.deepStrictEqual(smallErrors, [])
        await narrow.close()

        // Delete, behind a confirmation; "Keep it" keeps it.
        await row.getByRole("button", { name: "Delete: Weekly sales" }).click()
        const confirm = page.locator("dialog.analytics-confirm")
        await confirm.getByRole("heading", { name: "Delete this schedule?" }).waitFor()
        assert.include(await confirm.innerText(), "Weekly sales stops sending to 1 recipient. This cannot be undone.")
        assert.deepStrictEqual(await Axe.serious(page), [], "delete confirmation")
        await confirm.getByRole("button", { name: "Keep it" }).click()
        await confirm.waitFor({ state: "detached" })
        await row.getByRole("button", { name: "Delete: Weekly sales" }).click()
        await confirm.getByRole("button", { name: "Delete schedule" }).click()
        await page.getByText("Weekly sales deleted.").waitFor()
        await page.getByText("No scheduled exports in this workspace.").waitFor()
        const after = await server.request("GET", `/v1/export-schedules?workspace_id=${workspaceId}`, { token: admin }).pipe(Effect.runPromise)
        assert.strictEqual(after.body.data.length, 0)
        assert.deepStrictEqual(errors, [])
        await context.close()
      })
    }).pipe(Effect.scoped), 120_000)
  it.live("without a mail service, a sent-now run's history says Logged (no SMTP), not Sent", () =>
    Effect.gen(function*() {
      const fixture = yield* setupWith({ atOwnUrl: true, mailer: Mailer.Mailer.layerLog })
      const { admin, ok, reportId, server, worker, workspaceId } = fixture
      yield* ok("POST", "/v1/users", { email: "ada@example.com", name: "Ada Admin", roles: ["admin"] })
      const schedule = yield* ok("POST", "/v1/export-schedules", {
        report_id: reportId, name: "Weekly regions", cron: "0 9 * * 1", format: "csv", visual_id: "revenue_by_region", recipients: ["ada@example.com"]
      })
      yield* ok("POST", `/v1/export-schedules/${schedule.schedule_id}/send-now`)
      assert.strictEqual(yield* worker, 1)
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin })
        const errors = Chromium.watchErrors(page)
        await page.goto(`${server.url}/w/${workspaceId}/schedules`)
        const row = page.locator("ul.schedules > li", { hasText: "Weekly regions" })
        await row.getByRole("button", { name: "History: Weekly regions" }).click()
        const run = row.locator(".runs li", { hasText: "ada@example.com" })
        await run.getByText("Logged (no SMTP)", { exact: true }).waitFor()
        assert.strictEqual(await run.getByText("Sent", { exact: true }).count(), 0)
        assert.deepStrictEqual(await Axe.serious(page), [], "history, logged")
        assert.deepStrictEqual(errors, [])
        await context.close()
      })
    }).pipe(Effect.scoped), 90_000)
})
