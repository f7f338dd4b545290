/**
 * The console's Ask and dataset screens in real headless Chromium, over the
 * demo dataset (core's `SampleSales`, 3,000 orders, and its model):
 * a dataset created from the console, a CSV uploaded with its progress
 * shown up to 100 % and the rows counted, a second upload (an upload
 * dataset's refresh) listed in the refresh history; a measure's title
 * renamed in the model editor and still there after a reload; a bad
 * currency code refused by the API and said beside its field; a question
 * answered word by word, then drawn as a chart (the viewer's lazy Vega
 * chunk). Each screen axe clean, no console error but the expected
 * refusal, nothing overflowing at 1280 and 390 px (screenshots with
 * `VIEWER_SHOTS=<dir>`).
 *
 * The answers come from the built-in answerer (the service's default,
 * offline and deterministic), its words paced 120 ms apart by a test
 * wrapper so the stream is seen arriving rather than all at once.
 */
import { Answerer, BuiltInAnswerer, Mailer, SampleReport, SampleSales } from "@analytics/core"
import { Axe, Chromium } from "@analytics/testing/browser"
import * as Viewer from "@analytics/viewer/assets"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Layer, Stream } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { ViewerAssets } from "../src/routes/ViewerAssets.ts"
import { consolePage } from "./ConsoleSignIn.ts"
import * as ExportFixture from "./ExportFixture.ts"

const shots = process.env.VIEWER_SHOTS

/** The built-in answerer, its answer's pieces 120 ms apart. */
const paced = Layer.succeed(Answerer.Answerer, {
  plan: (question) => Effect.sync(() => BuiltInAnswerer.plan(question)),
  narrate: (question, result) =>
    Stream.fromIterable(BuiltInAnswerer.narrate(question, result)).pipe(Stream.tap(() => Effect.sleep(Duration.millis(120))))
})

const setup = Effect.gen(function*() {
  const memory = Mailer.makeMemory()
  const fixture = yield* ExportFixture.serve({
    server: { viewerAssets: ViewerAssets.layer(Viewer.load()), answerer: paced },
    mailer: Layer.succeed(Mailer.Mailer, memory.mailer)
  })
  const { server } = fixture
  const tenant = yield* ExportFixture.provision(server)
  const workspaceId = (yield* tenant.ok("POST", "/v1/workspaces", { name: "Demo" })).workspace_id as string
  const datasetId = (yield* tenant.ok("POST", "/v1/datasets", { workspace_id: workspaceId, name: "Sales", source: { type: "upload" } })).dataset_id as string
  const loaded = yield* server.request("PUT", `/v1/datasets/${datasetId}/data`, { token: tenant.admin, body: SampleSales.csv(3_000), headers: { "content-type": "text/csv" } })
  assert.strictEqual(loaded.status, 200, loaded.text)
  yield* tenant.ok("PATCH", `/v1/datasets/${datasetId}`, { model: SampleSales.model })
  yield* tenant.ok("POST", "/v1/reports", SampleReport.create(workspaceId as never, datasetId as never))
  return { ...fixture, ...tenant, workspaceId, datasetId }
})

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: true })
}

/** Console errors but the failed loads `expected` allows (Chromium logs a refused fetch without its URL). */
const watch = (page: Page) => {
  const errors = Chromium.watchErrors(page)
  const refused: Array<number> = []
  page.on("response", (r) => {
    if (r.status() >= 400) refused.push(r.status())
  })
  return {
    refused,
    errors: (allowed: ReadonlyArray<number> = []) => {
      const left = [...allowed]
      return errors.filter((e) => {
        const status = /status of (\d+)/.exec(e)?.[1]
        const i = status === undefined ? -1 : left.indexOf(Number(status))
        if (i < 0) return true
        left.splice(i, 1)
        return false
      })
    }
  }
}

/** A CSV of `n` orders, big enough (about 1.5 MB for 30,000) that its upload reports progress more than once. */
const orders = (n: number) => ["region,product,amount", ...Array.from({ length: n }, (_, i) => `${["EU", "US", "APAC"][i % 3]},Product ${i % 17},${(i % 500) + 0.5}`)].join("\n")

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("Ask and datasets in the console, in headless Chromium"), () => {
  it.live("datasets: create, upload with progress, history; the model editor saves and shows the API's field errors; Ask streams then draws", () =>
    Effect.gen(function*() {
      const { admin, server, workspaceId, datasetId } = yield* setup
      const browser: Browser = yield* Chromium.launch
      const base = `${server.url}/w/${workspaceId}`

      for (const width of [1280, 390]) {
        yield* Effect.promise(async () => {
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { width })
          const seen = watch(page)

          // From the workspace to its datasets.
          await page.goto(base)
          await page.getByRole("link", { name: "Datasets" }).click()
          await page.getByRole("heading", { level: 1, name: "Datasets" }).waitFor()
          await page.getByRole("link", { name: "Sales" }).waitFor()
          assert.deepStrictEqual(await Axe.serious(page), [], `datasets at ${width}`)
          assert.isAtMost(await overflow(page), 0, `datasets overflow at ${width}`)
          await shoot(page, `datasets-${width}`)

          // A new dataset, then its CSV with progress to 100 % and the rows counted.
          const name = `Orders ${width}`
          await page.getByLabel("Name", { exact: true }).fill(name)
          await page.getByRole("button", { name: "Create dataset" }).click()
          await page.getByRole("heading", { level: 1, name }).waitFor()
          await page.evaluate(() => {
            const seenPercents: Array<string> = []
            ;(globalThis as any).__percents = seenPercents
            new MutationObserver(() => {
              const text = document.querySelector(".upload-progress [role=status]")?.textContent
              if (text != null && seenPercents.at(-1) !== text) seenPercents.push(text)
            }).observe(document.body, { subtree: true, childList: true, characterData: true })
          })
          await page.getByLabel("File").setInputFiles({ name: "orders.csv", mimeType: "text/csv", buffer: Buffer.from(orders(30_000)) })
          await page.getByRole("button", { name: "Upload" }).click()
          await page.getByText("Uploaded: the dataset now holds 30,000 rows.").waitFor({ timeout: 30_000 })
          assert.strictEqual(await page.locator("progress").getAttribute("value"), "100")
          const percents: Array<string> = await page.evaluate(() => (globalThis as any).__percents)
          assert.include(percents, "100 % sent")
          assert.strictEqual(await page.locator(".row-count").innerText(), "30,000")
          // The history lists the upload; a second one (an upload dataset's refresh) is listed above it.
          const history = page.getByRole("region", { name: "Refresh history" })
          await history.locator("tbody tr").first().waitFor()
          assert.match(await history.locator("tbody tr").first().innerText(), /An upload\s+Succeeded\s+30,000/)
          await page.getByLabel("File").setInputFiles({ name: "orders.csv", mimeType: "text/csv", buffer: Buffer.from(orders(300)) })
          await page.getByRole("button", { name: "Upload" }).click()
          await page.getByText("Uploaded: the dataset now holds 300 rows.").waitFor({ timeout: 30_000 })
          await page.waitForFunction(() => document.querySelectorAll(".history tbody tr").length === 2)
          assert.match(await history.locator("tbody tr").first().innerText(), /An upload\s+Succeeded\s+300/)
          assert.deepStrictEqual(await Axe.serious(page), [], `new dataset at ${width}`)
          assert.isAtMost(await overflow(page), 0, `dataset overflow at ${width}`)
          await shoot(page, `dataset-upload-${width}`)

          // The model editor on the demo dataset: a measure's title renamed and saved, still there after a reload.
          await page.goto(`${base}/datasets/${datasetId}`)
          await page.getByRole("heading", { level: 1, name: "Sales" }).waitFor()
          const revenue = SampleSales.model.measures.find((m) => m.name === "revenue")!
          const title = page.getByLabel("Title of revenue")
          await title.fill(`Net revenue ${width}`)
          await page.getByRole("button", { name: "Save the model" }).click()
          await page.getByText("Model saved.").waitFor()
          await page.reload()
          await page.getByLabel("Title of revenue").waitFor()
          assert.strictEqual(await page.getByLabel("Title of revenue").inputValue(), `Net revenue ${width}`)
          assert.isDefined(revenue)
          // A bad currency code: the API's error, by the field.
          await page.getByLabel("Format of revenue").selectOption("currency")
          await page.getByLabel("Currency code of revenue").fill("euro")
          await page.getByRole("button", { name: "Save the model" }).click()
          const currency = page.getByLabel("Currency code of revenue")
          await page.locator("input[aria-invalid=true]").first().waitFor()
          assert.strictEqual(await currency.getAttribute("aria-invalid"), "true")
          const describedBy = await currency.getAttribute("aria-describedby")
          assert.match(await page.locator(`#${describedBy}`).innerText(), /ISO 4217/)
          assert.deepStrictEqual(await Axe.serious(page), [], `model editor at ${width}`)
          assert.isAtMost(await overflow(page), 0, `model editor overflow at ${width}`)
          await shoot(page, `dataset-model-${width}`)

          // Ask: the words as they arrive, then the chart.
          await page.goto(base)
          await page.getByRole("link", { name: "Ask a question" }).click()
          await page.getByRole("heading", { level: 1, name: "Ask" }).waitFor()
          await page.getByLabel("Dataset").selectOption({ label: "Sales" })
          await page.getByLabel("Your question").fill("revenue by region")
          await page.evaluate(() => {
            const texts: Array<string> = []
            ;(globalThis as any).__texts = texts
            new MutationObserver(() => {
              const text = document.querySelector(".answer-text")?.textContent?.replace("▍", "").trim()
              if (text != null && text !== "" && texts.at(-1) !== text) texts.push(text)
            }).observe(document.body, { subtree: true, childList: true, characterData: true })
          })
          await page.getByRole("button", { name: "Ask", exact: true }).click()
          await page.locator("analytics-ask vega-chart .live svg").waitFor({ timeout: 20_000 })
          const texts: Array<string> = await page.evaluate(() => (globalThis as any).__texts)
          assert.isAtLeast(texts.length, 2, `the answer arrived in pieces: ${JSON.stringify(texts)}`)
          for (let i = 1; i < texts.length; i++) assert.isTrue(texts[i]!.startsWith(texts[i - 1]!.slice(0, 10)), "each piece adds to the words before it")
          assert.match(texts.at(-1)!, /EU|US|APAC/)
          assert.deepStrictEqual(await Axe.serious(page), [], `ask at ${width}`)
          assert.isAtMost(await overflow(page), 0, `ask overflow at ${width}`)
          await shoot(page, `ask-${width}`)

          // The one 400 is the refused currency code. Chromium reports a no-store response read to its end through
          // `body.getReader()` as "net::ERR_ABORTED" when it came in more than one write (microsoft/playwright#42742,
          // open); the answer was whole (its last words and the chart are on screen), so that report alone is let through.
          assert.deepStrictEqual(seen.errors([400]).filter((e) => !/\/v1\/ai\/ask net::ERR_ABORTED$/.test(e)), [], `console errors at ${width}`)
          await context.close()
        })
      }

      // The AI question limit (30 a minute per user): asked again and again, the console's next question is refused in words.
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, { token: admin })
        const seen = watch(page)
        await page.goto(`${base}/ask`)
        await page.getByLabel("Your question").fill("orders")
        const alert = page.getByRole("alert")
        for (let i = 0; i < 40 && !(await alert.isVisible()); i++) {
          await page.getByRole("button", { name: "Ask", exact: true }).click()
          await page.waitForFunction(() => document.querySelector("analytics-ask button[type=submit]:not([disabled])") !== null)
        }
        await alert.waitFor({ timeout: 5_000 })
        assert.match(await alert.innerText(), /Too many questions for now[\s\S]*Wait (\d+ seconds|a second), then try again\./)
        assert.deepStrictEqual(await Axe.serious(page), [], "ask refused")
        await shoot(page, "ask-limited-1280")
        assert.deepStrictEqual(seen.errors([429]).filter((e) => !/\/v1\/ai\/ask net::ERR_ABORTED$/.test(e)), [], "console errors when refused")
        await context.close()
      })
    }).pipe(Effect.scoped), { timeout: 180_000 })
})
