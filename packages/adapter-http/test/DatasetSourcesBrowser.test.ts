/**
 * A dataset's screen in the console by the type of its source, walked in
 * headless Chromium at 1280 and 390 px: an upload says it reads an uploaded
 * file and offers a file to send, no refresh; a table read in place names
 * its table and offers a refresh, no file, and "Refresh now" reads it again
 * (its rows counted, the refresh in the history). What each type shows
 * follows the type's row of core's table (`Dataset.sourceTypes`: `loaded`
 * or `in-place`), copied in `packages/viewer/src/console/Sources.ts`.
 *
 * The browser project has no PostgreSQL, so the table read in place is a
 * real DuckDB table served under the `postgres` key (an engine the test
 * builds itself and gives the app), read where it is as the operator's
 * PostgreSQL would be. Axe clean; screenshots with `VIEWER_SHOTS=<dir>`.
 */
import { ViewerAssets } from "@analytics/adapter-http"
import { DuckDbEngine } from "@analytics/adapter-duckdb"
import { MemoryStores } from "@analytics/adapter-memory"
import { AnalyticsEngine, Datasets } from "@analytics/core"
import { Axe, Chromium } from "@analytics/testing/browser"
import * as Viewer from "@analytics/viewer/assets"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { signIn } from "./ConsoleSignIn.ts"
import { start } from "./TestServer.ts"

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `sources-${name}.png`), fullPage: true })
}

const scrollWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth)

/** The text of the fact a dataset's screen lists under `term` ("Reads"). */
const fact = (page: Page, term: string) => page.locator("dl.facts dt", { hasText: term }).locator("xpath=following-sibling::dd[1]").innerText()

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("a dataset's screen by the type of its source, in headless Chromium"), () => {
  it.live("an upload offers a file and no refresh; a table read in place names its table, offers a refresh and no file, and is read again", () =>
    Effect.gen(function*() {
      // The table read in place: 30 orders in a DuckDB of the test's own.
      const dir = yield* Effect.acquireRelease(Effect.sync(() => mkdtempSync(join(tmpdir(), "sources-"))), (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true })))
      const csv = join(dir, "orders.csv")
      writeFileSync(csv, `region,amount\n${Array.from({ length: 30 }, (_, i) => `${["EU", "US", "APAC"][i % 3]},${i}`).join("\n")}\n`)
      const inPlace = Context.get(yield* Layer.build(DuckDbEngine.layer(":memory:")), AnalyticsEngine.AnalyticsEngine)
      yield* inPlace.importFile(["main", "orders"], { path: csv, format: "csv" })
      const server = yield* start(MemoryStores.layer, {
        engines: { ...Datasets.Engines.layersOf({ postgres: inPlace }), upload: DuckDbEngine.layer(":memory:") },
        viewerAssets: ViewerAssets.ViewerAssets.layer(Viewer.load())
      })
      const { token: admin } = yield* server.tenant("scale")
      const ok = (method: string, path: string, body?: unknown) =>
        Effect.runPromise(Effect.map(server.request(method, path, { token: admin, body }), (r) => {
          if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${r.text}`)
          return r.body
        }))
      const workspace = yield* Effect.promise(() => ok("POST", "/v1/workspaces", { name: "Sales" }))
      const upload = yield* Effect.promise(() => ok("POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Uploaded orders", source: { type: "upload" } }))
      const table = yield* Effect.promise(() =>
        ok("POST", "/v1/datasets", { workspace_id: workspace.workspace_id, name: "Orders in place", source: { type: "postgres", schema: "main", table: "orders" } })
      )
      const browser: Browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of [1280, 390]) {
          const context = await browser.newContext({ viewport: { width, height: 900 } })
          await signIn(context.request, server.url, { token: admin })
          const page = await context.newPage()
          const errors = Chromium.watchErrors(page)
          const screen = (id: string) => `${server.url}/w/${workspace.workspace_id}/datasets/${id}`

          // An upload: a file to send, no refresh.
          await page.goto(screen(upload.dataset_id))
          await page.getByRole("heading", { level: 1, name: "Uploaded orders" }).waitFor()
          assert.strictEqual(await fact(page, "Reads"), "An uploaded file (CSV or Parquet)")
          await page.getByRole("heading", { level: 2, name: "Upload rows" }).waitFor()
          assert.strictEqual(await page.getByLabel("File", { exact: true }).count(), 1)
          assert.strictEqual(await page.getByRole("button", { name: "Refresh now" }).count(), 0)
          assert.deepStrictEqual(await Axe.serious(page), [], `upload at ${width}`)
          assert.isAtMost(await scrollWidth(page), width, `upload overflows at ${width}`)
          await shoot(page, `upload-${width}`)

          // A table read in place: its name, a refresh, no file; the refresh reads it again.
          await page.goto(screen(table.dataset_id))
          await page.getByRole("heading", { level: 1, name: "Orders in place" }).waitFor()
          assert.strictEqual(await fact(page, "Reads"), "The PostgreSQL table main.orders")
          await page.getByRole("heading", { level: 2, name: "Refresh", exact: true }).waitFor()
          assert.strictEqual(await page.getByRole("heading", { level: 2, name: "Upload rows" }).count(), 0)
          assert.strictEqual(await page.getByLabel("File", { exact: true }).count(), 0)
          await page.getByRole("button", { name: "Refresh now" }).click()
          await page.getByRole("status").filter({ hasText: "Refreshed: the dataset now holds 30 rows." }).waitFor()
          assert.strictEqual((await fact(page, "Rows")).trim(), "30")
          await page.getByRole("region", { name: "Refresh history" }).getByRole("cell", { name: "Succeeded" }).first().waitFor()
          assert.deepStrictEqual(await Axe.serious(page), [], `in place at ${width}`)
          assert.isAtMost(await scrollWidth(page), width, `in place overflows at ${width}`)
          await shoot(page, `in-place-${width}`)
          await context.close()
          assert.deepStrictEqual(errors, [])
        }
      })
    }).pipe(Effect.scoped), 240_000)
})
