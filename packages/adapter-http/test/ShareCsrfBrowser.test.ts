/**
 * A browser signed in to the console opens a password link in real
 * headless Chromium (Debian's, through playwright-core): the password form
 * unlocks it and "Download PDF" downloads the PDF, though the console's
 * session cookie goes with every one of those posts (decision 0022: the
 * share pages act with the link's authority, not the session's).
 */
import { Documents } from "@analytics/adapter-documents"
import { Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { consolePage } from "./ConsoleSignIn.ts"
import * as ExportFixture from "./ExportFixture.ts"

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("a password link in a browser signed in to the console"), () => {
  it.live("unlocks with its password and downloads its PDF", () =>
    Effect.gen(function*() {
      const { admin, ok, reportId, server, workers } = yield* ExportFixture.setup({
        atOwnUrl: true,
        renderers: Documents.layer,
        rowLevelSecurity: [{ roles: ["admin", "link"], all_rows: true }]
      })
      const link = yield* ok("POST", "/v1/sharing/grants", {
        subject_type: "report",
        subject_id: reportId,
        principal_type: "link",
        actions: ["view", "download"],
        password: "correct horse battery"
      })
      // The export worker, as a host runs it beside the service, for the test's scope.
      yield* workers
      const browser = yield* Chromium.launch
      const seen = yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin }, { acceptDownloads: true })
        const cookies = (await context.cookies()).map((c) => c.name)
        await page.goto(`${server.url}${new URL(link.link_url).pathname}`)
        await page.fill("#password", "correct horse battery")
        await Promise.all([page.waitForLoadState("load"), page.click("button[type=submit]")])
        await page.getByRole("heading", { name: "Sales overview" }).waitFor({ timeout: 20_000 })
        const downloading = page.waitForEvent("download", { timeout: 60_000 })
        await page.getByRole("button", { name: "Download PDF" }).click()
        const download = await downloading
        const bytes = readFileSync((await download.path())!)
        return { cookies, filename: download.suggestedFilename(), head: bytes.subarray(0, 5).toString("latin1") }
      })
      assert.include(seen.cookies, "analytics_session", "the browser is signed in to the console")
      assert.match(seen.filename, /\.pdf$/)
      assert.strictEqual(seen.head, "%PDF-")
    }).pipe(Effect.scoped), 120_000)
})
