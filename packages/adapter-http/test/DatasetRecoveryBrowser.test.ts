/**
 * Recovering a dataset in the console, walked as a person in headless
 * Chromium at 1280 and 390 px (decision 0013, "Recovering from a file that
 * does not fit"): a malformed CSV is refused naming its line and what is
 * wrong there; a dataset whose model was made from a misread file (one
 * column named `a,b`) refuses the correct file, told in words (the column
 * the model reads that the file lacks, the file's columns it does not
 * read), with "Replace the model with the file's columns", asked first;
 * then the file loads; "Delete this dataset" names its rows, asks first,
 * and while a report and a dashboard use it is refused (409
 * `dataset/in-use`) in words with a link to each, nothing deleted; once
 * they are gone it deletes it. Axe clean at each step; screenshots with
 * `VIEWER_SHOTS=<dir>`.
 */
import { ViewerAssets } from "@analytics/adapter-http"
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { MemoryStores } from "@analytics/adapter-memory"
import { Axe, Chromium } from "@analytics/testing/browser"
import { start } from "./TestServer.ts"
import * as Viewer from "@analytics/viewer/assets"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"
import * as ExportFixture from "./ExportFixture.ts"

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `recovery-${name}.png`), fullPage: true })
}

const scrollWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth)

/** The file the model was made from before CSV was read strictly: one column, named `a,b`. */
const misread = "\"a,b\"\n\"1,2\"\n"
const malformed = "a,b\n1,2,3\n\"unterminated"
const good = "region,amount\nEU,1\nUS,2\nEU,4\n"

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("recovering a dataset from a file its model does not fit, in headless Chromium"), () => {
  it.live("bad file told in words, the model replaced from the good file's columns (asked first); deleting while a report and a dashboard use it refused in words with links, then deleted", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer, {
        engines: { upload: DuckDbEngine.layer(":memory:") },
        viewerAssets: ViewerAssets.ViewerAssets.layer(Viewer.load())
      })
      const { token: admin } = yield* server.tenant("scale")
      const ok = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
        Effect.runPromise(Effect.map(server.request(method, path, { token: admin, body, ...(headers === undefined ? {} : { headers }) }), (r) => {
          if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${r.text}`)
          return r.body
        }))
      const workspace = yield* Effect.promise(() => ok("POST", "/v1/workspaces", { name: "Sales" }))
      const browser: Browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of [1280, 390]) {
          // Each width on a dataset of its own, in the state a misread file left it.
          const dataset = await ok("POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: `Orders ${width}`, source: { type: "upload" } })
          await ok("PUT", `/v1/datasets/${dataset.dataset_id}/data`, misread, { "content-type": "text/csv" })
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { width })
          const errors = Chromium.watchErrorsExcept(page, (path, status) => (path.endsWith("/data") && status === 400) || (path === `/v1/datasets/${dataset.dataset_id}` && status === 409))
          await page.goto(`${server.url}/w/${workspace.workspace_id}/datasets/${dataset.dataset_id}`)
          await page.getByRole("heading", { level: 1, name: `Orders ${width}` }).waitFor()
          const send = async (name: string, text: string) => {
            await page.getByLabel("File", { exact: true }).setInputFiles({ name, mimeType: "text/csv", buffer: Buffer.from(text) })
            await page.getByRole("button", { name: "Upload", exact: true }).click()
          }

          // A malformed file: its line and what is wrong there, no value of it.
          await send("broken.csv", malformed)
          const refusal = page.getByRole("alert").filter({ hasText: "Line 2 of the file" })
          await refusal.waitFor()
          assert.include(await refusal.innerText(), "Line 2 of the file has a different number of fields than the header (3 fields where the header has 2); no row was changed")
          assert.notInclude(await refusal.innerText(), "unterminated")
          assert.deepStrictEqual(await Axe.serious(page), [], `malformed at ${width}`)
          await shoot(page, `malformed-${width}`)

          // The correct file, which the misread model does not fit: told which columns, and the way out.
          await send("orders.csv", good)
          const misfit = page.getByRole("alert").filter({ hasText: "does not fit the dataset's model" })
          await misfit.waitFor()
          const words = await misfit.innerText()
          assert.include(words, "This file does not fit the dataset's model, so no row was changed.")
          assert.include(words, "Column \"a,b\", read by the dimension a_b")
          assert.include(words, "Columns of the file the model does not read: \"region\", \"amount\".")
          assert.notInclude(words, "Dimension a_b reads column")
          assert.deepStrictEqual(await Axe.serious(page), [], `misfit at ${width}`)
          assert.isAtMost(await scrollWidth(page), width, `misfit overflows at ${width}`)
          await shoot(page, `misfit-${width}`)
          assert.strictEqual((await ok("GET", `/v1/datasets/${dataset.dataset_id}`)).row_count, 1, "no row changed")

          // Replacing the model asks first; "Keep the model" changes nothing.
          const replace = misfit.getByRole("button", { name: "Replace the model with the file's columns" })
          await replace.click()
          let ask = page.getByRole("dialog", { name: `Replace the model of Orders ${width}?` })
          await ask.waitFor()
          assert.include(await ask.innerText(), "Row-level security policies are kept")
          assert.include(await ask.innerText(), "region, amount")
          assert.deepStrictEqual(await Axe.serious(page), [], `replace dialog at ${width}`)
          await shoot(page, `replace-confirm-${width}`)
          await ask.getByRole("button", { name: "Keep the model" }).click()
          await ask.waitFor({ state: "detached" })
          assert.deepStrictEqual((await ok("GET", `/v1/datasets/${dataset.dataset_id}`)).model.dimensions.map((d: any) => d.name), ["a_b"], "a no changes nothing")
          await replace.click()
          ask = page.getByRole("dialog", { name: `Replace the model of Orders ${width}?` })
          await ask.getByRole("button", { name: "Replace the model" }).click()
          await page.getByRole("status").filter({ hasText: "The model was replaced with one made from the file's columns; the dataset now holds 3 rows." }).waitFor()
          await page.locator(".row-count", { hasText: "3" }).waitFor()
          await page.getByLabel("Title of total_amount").waitFor()
          assert.strictEqual(await page.getByRole("alert").count(), 0, "the refusal is gone")
          assert.deepStrictEqual(await Axe.serious(page), [], `replaced at ${width}`)
          await shoot(page, `replaced-${width}`)
          const replaced = await ok("GET", `/v1/datasets/${dataset.dataset_id}`)
          assert.deepStrictEqual(replaced.model.dimensions.map((d: any) => d.name), ["region", "amount"])

          // A report and a dashboard use it: deleting asks first (naming its rows), then the service refuses, said in
          // words with a link to each; nothing is deleted.
          const report = await ok("POST", "/v1/reports", { workspace_id: workspace.workspace_id, name: `Sales overview ${width}`, pages: [{ name: "Overview", visuals: [ExportFixture.byRegion(dataset.dataset_id)] }] })
          const dashboard = await ok("POST", "/v1/dashboards", {
            workspace_id: workspace.workspace_id,
            name: `Executive ${width}`,
            tiles: [{ id: "regions", report_id: report.report_id, visual_id: "by_region", x: 0, y: 0, width: 12, height: 6 }]
          })
          await page.getByRole("button", { name: "Delete this dataset" }).click()
          let deleting = page.getByRole("dialog", { name: `Delete Orders ${width}?` })
          await deleting.waitFor()
          const said = await deleting.innerText()
          assert.include(said, "Its 3 rows and its model are deleted for good.")
          assert.include(said, "A dataset that reports, dashboards or alerts use is not deleted: you are told which use it.")
          assert.deepStrictEqual(await Axe.serious(page), [], `delete dialog at ${width}`)
          await shoot(page, `delete-confirm-${width}`)
          await deleting.getByRole("button", { name: "Delete the dataset" }).click()
          const inUse = page.getByRole("alert").filter({ hasText: `Orders ${width} was not deleted` })
          await inUse.waitFor()
          const refusedWords = await inUse.innerText()
          assert.include(refusedWords, `Orders ${width} was not deleted: it is in use, and nothing was changed.`)
          assert.include(refusedWords, "These reports have visuals of it:")
          assert.include(refusedWords, "These dashboards show those reports' visuals:")
          assert.notInclude(refusedWords, "These alerts watch it:")
          assert.include(refusedWords, "Delete them, or take this dataset out of them, then delete the dataset.")
          const reportLink = inUse.getByRole("link", { name: `Sales overview ${width}` })
          assert.match((await reportLink.getAttribute("href"))!, new RegExp(`w/${workspace.workspace_id}/reports/${report.report_id}$`))
          assert.match((await inUse.getByRole("link", { name: `Executive ${width}` }).getAttribute("href"))!, new RegExp(`w/${workspace.workspace_id}/dashboards/${dashboard.dashboard_id}$`))
          assert.isTrue(await inUse.evaluate((el) => el === document.activeElement), "focus on the refusal")
          assert.deepStrictEqual(await Axe.serious(page), [], `in use at ${width}`)
          assert.isAtMost(await scrollWidth(page), width, `in use overflows at ${width}`)
          await shoot(page, `delete-in-use-${width}`)
          if (shots !== undefined) await inUse.screenshot({ path: join(shots, `recovery-delete-in-use-box-${width}.png`) })
          assert.strictEqual((await ok("GET", `/v1/datasets/${dataset.dataset_id}`)).row_count, 3, "nothing deleted")

          // The report's link leads to it; back, with them deleted, the dataset is deleted.
          await reportLink.click()
          await page.getByRole("heading", { level: 1, name: `Sales overview ${width}` }).waitFor()
          await page.goBack()
          await page.getByRole("heading", { level: 1, name: `Orders ${width}` }).waitFor()
          await ok("DELETE", `/v1/dashboards/${dashboard.dashboard_id}`)
          await ok("DELETE", `/v1/reports/${report.report_id}`)
          await page.getByRole("button", { name: "Delete this dataset" }).click()
          deleting = page.getByRole("dialog", { name: `Delete Orders ${width}?` })
          await deleting.waitFor()
          await deleting.getByRole("button", { name: "Delete the dataset" }).click()
          await page.getByRole("status").filter({ hasText: `Orders ${width} was deleted, with its rows.` }).waitFor()
          assert.deepStrictEqual(await Axe.serious(page), [], `deleted at ${width}`)
          await shoot(page, `deleted-${width}`)
          const gone = await Effect.runPromise(server.request("GET", `/v1/datasets/${dataset.dataset_id}`, { token: admin }))
          assert.strictEqual(gone.status, 404)
          await page.getByRole("link", { name: "Back to the datasets" }).click()
          await page.getByRole("heading", { level: 1, name: "Datasets" }).waitFor()
          assert.strictEqual(await page.getByRole("link", { name: `Orders ${width}` }).count(), 0)
          await context.close()
          assert.deepStrictEqual(errors(), [])
        }
      })
    }).pipe(Effect.scoped), 240_000)
})
