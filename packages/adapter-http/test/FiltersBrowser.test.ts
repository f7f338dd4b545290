/**
 * The report's filters as a person uses them, in real headless Chromium,
 * on the demo report ("Sales overview": Region, Channel, Order date) from a
 * public link and an embed, at 1280 and 390 px, axe clean, no console error:
 *
 * - the selects read the values in force after each change (never "All"
 *   while the charts are filtered), and ArrowDown moves on from the value
 *   chosen, focus staying on the select;
 * - the Order date range asks nothing while a date is typed (no year
 *   `0002`), only once both ends are whole dates; it keeps what was typed,
 *   and a reversed range says so in words without asking;
 * - the share page's Download PDF exports the filters on screen: the PDF's
 *   filter line and its revenue are the page's. An embed's locked filter
 *   wins over anything its viewer sends (refused, never widened).
 *
 * With `VIEWER_SHOTS=<dir>`, screenshots at both widths are saved there.
 */
import { Documents } from "@analytics/adapter-documents"
import { Axe, Chromium } from "@analytics/testing/browser"
import { Poppler } from "@analytics/testing/documents"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { grantsPath, setupWith } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `filters-${name}.png`), fullPage: true })
}

/** The filters the page asks its view for, each time it asks (`?filters=`, decoded). */
const askedFilters = (page: Page): Array<unknown> => {
  const asked: Array<unknown> = []
  page.on("request", (request) => {
    const filters = new URL(request.url()).searchParams.get("filters")
    if (filters !== null && request.resourceType() === "fetch") asked.push(JSON.parse(filters))
  })
  return asked
}

/** What a select shows a person: its chosen option's text. */
const shown = (page: Page, name: string) =>
  page.getByRole("combobox", { name, exact: true }).evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent ?? "")

/** Waits until the view asked for is shown (the loading status empty again). */
const settled = (page: Page) =>
  page.waitForFunction(() => document.querySelector("report-viewer p.loading[role=status]")?.textContent === "", undefined, { timeout: 20_000 })

/** Does what a person does, then waits for the view it asks for to be shown. */
const asking = async (page: Page, action: () => Promise<unknown>) => {
  const answered = page.waitForResponse((r) => new URL(r.url()).searchParams.has("filters") && r.request().resourceType() === "fetch", { timeout: 20_000 })
  await action()
  await answered
  await settled(page)
}

/** The revenue key figure on screen, exactly: a compact figure's exact value is its tooltip (decision 0014). */
const revenue = (page: Page) =>
  page.locator('[data-visual="revenue_total"] .kpi').evaluate((kpi) => kpi.getAttribute("title") ?? kpi.textContent ?? "")

const options = (page: Page, name: string) =>
  page.getByRole("combobox", { name, exact: true }).evaluate((select: HTMLSelectElement) => [...select.options].map((o) => o.textContent ?? ""))

/** The walk through the filters: selects by mouse and keyboard, then the date range typed. */
const walk = async (page: Page, label: string) => {
  const asked = askedFilters(page)
  const region = page.getByRole("combobox", { name: "Region", exact: true })
  await region.waitFor({ timeout: 20_000 })
  const regions = (await options(page, "Region")).slice(1)
  const unfiltered = await revenue(page)

  // Chosen with the pointer: the select says EU once the view with EU is shown, and the figure changed.
  await asking(page, () => region.selectOption({ label: "EU" }))
  assert.strictEqual(await shown(page, "Region"), "EU", `${label}: Region reads the value in force`)
  assert.notStrictEqual(await revenue(page), unfiltered, `${label}: the charts are filtered`)

  // With the keyboard: each ArrowDown moves on from the value chosen, focus stays on the select.
  await region.focus()
  const next = regions[regions.indexOf("EU") + 1]
  const after = regions[regions.indexOf("EU") + 2]
  await asking(page, () => page.keyboard.press("ArrowDown"))
  assert.strictEqual(await shown(page, "Region"), next, `${label}: ArrowDown moves from EU`)
  assert.isTrue(await region.evaluate((el) => el === document.activeElement), `${label}: focus stays on Region`)
  await asking(page, () => page.keyboard.press("ArrowDown"))
  assert.strictEqual(await shown(page, "Region"), after, `${label}: ArrowDown moves on again`)

  // Another filter: both read what is in force.
  await asking(page, () => page.getByRole("combobox", { name: "Channel", exact: true }).selectOption({ label: "Online" }))
  assert.strictEqual(await shown(page, "Region"), after)
  assert.strictEqual(await shown(page, "Channel"), "Online")
  assert.deepStrictEqual(asked, [{ region: "EU" }, { region: next }, { region: after }, { region: after, channel: "Online" }])

  // The date range, typed digit by digit: nothing asked until both ends are whole dates; what was typed stays.
  const beforeRange = await revenue(page)
  const from = page.getByLabel("Order date from")
  const to = page.getByLabel("Order date to")
  await from.focus()
  await page.keyboard.type("01152025", { delay: 20 })
  await page.waitForTimeout(300)
  assert.strictEqual(asked.length, 4, `${label}: one end alone asks nothing`)
  await to.focus()
  await asking(page, () => page.keyboard.type("03312025", { delay: 20 }))
  await to.blur()
  assert.deepStrictEqual(asked.slice(4), [{ region: after, channel: "Online", period: ["2025-01-15", "2025-03-31"] }], `${label}: one request, with whole dates`)
  assert.strictEqual(await from.inputValue(), "2025-01-15")
  assert.strictEqual(await to.inputValue(), "2025-03-31")
  assert.strictEqual(await page.getByRole("alert").count(), 0, `${label}: no problem shown`)
  assert.notStrictEqual(await revenue(page), beforeRange, `${label}: the range filters the charts`)

  // Reversed: said in words, nothing asked, both ends kept.
  await from.focus()
  await page.keyboard.type("06012025", { delay: 20 })
  await from.blur()
  const alert = page.getByRole("alert").filter({ hasText: "The start date is after the end date." })
  await alert.waitFor()
  assert.strictEqual(await from.getAttribute("aria-invalid"), "true")
  assert.strictEqual(await from.inputValue(), "2025-06-01")
  assert.strictEqual(await to.inputValue(), "2025-03-31")
  assert.strictEqual(asked.length, 5, `${label}: a reversed range asks nothing`)
  assert.deepStrictEqual(await Axe.serious(page), [], `${label}: reversed range`)
  return asked
}

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("the report's filters in headless Chromium"), () => {
  it.live("the controls show the values in force, keys move from the value chosen, a date range asks only whole dates in order; link and embed, 1280 and 390 px", () =>
    Effect.gen(function*() {
      const { ok, reportId, server } = yield* setupWith({})
      const link = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"] })
      const embed = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view"] })
      const minted = yield* ok("POST", `${grantsPath}/${embed.grant_id}/embed-tokens`, { params: { region: "EU" } })
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of [1280, 390]) {
          const context = await browser.newContext({ viewport: { width, height: 900 }, locale: "en-US" })
          const page = await context.newPage()
          const errors = Chromium.watchErrors(page)
          await page.goto(`${server.url}${new URL(link.link_url).pathname}`)
          await walk(page, `link at ${width} px`)
          await shoot(page, `link-${width}`)
          assert.isAtMost(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth), 0, `no overflow at ${width} px`)
          // The address carries the filters in force; opened again, the controls show them.
          await page.reload()
          await page.getByRole("combobox", { name: "Channel", exact: true }).waitFor({ timeout: 20_000 })
          assert.strictEqual(await shown(page, "Channel"), "Online")
          assert.strictEqual(await page.getByLabel("Order date from").inputValue(), "2025-01-15")

          // The embed: the locked region stays as set; a choice reads its value in force.
          await page.goto(`${server.url}/embed?token=${encodeURIComponent(minted.token)}`)
          const channel = page.getByRole("combobox", { name: "Channel", exact: true })
          await channel.waitFor({ timeout: 20_000 })
          const [first, second] = (await options(page, "Channel")).slice(1)
          await asking(page, () => channel.selectOption({ label: first }))
          assert.strictEqual(await shown(page, "Channel"), first, `embed at ${width} px`)
          assert.strictEqual(await shown(page, "Region"), "EU")
          await channel.focus()
          await asking(page, () => page.keyboard.press("ArrowDown"))
          assert.strictEqual(await shown(page, "Channel"), second, `embed at ${width} px: ArrowDown from ${first}`)
          assert.deepStrictEqual(await Axe.serious(page), [], `embed at ${width} px`)
          await shoot(page, `embed-${width}`)
          assert.deepStrictEqual(errors, [])
          await context.close()
        }
      })
    }).pipe(Effect.scoped), 180_000)

  it.live("the share page's Download PDF exports the filters on screen: the PDF's filter line and revenue are the page's; an embed's locked filter wins", () =>
    Effect.gen(function*() {
      const { ok, reportId, server, workers } = yield* setupWith({ atOwnUrl: true, renderers: Documents.layer })
      yield* workers
      const link = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view", "download"] })
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of [1280, 390]) {
          const context = await browser.newContext({ viewport: { width, height: 900 }, locale: "en-US", acceptDownloads: true })
          const page = await context.newPage()
          const errors = Chromium.watchErrors(page)
          await page.goto(`${server.url}${new URL(link.link_url).pathname}`)
          const region = page.getByRole("combobox", { name: "Region", exact: true })
          await region.waitFor({ timeout: 20_000 })
          await asking(page, () => region.selectOption({ label: "EU" }))
          const figure = await revenue(page)
          assert.deepStrictEqual(await Axe.serious(page), [], `filtered share page at ${width} px`)
          await shoot(page, `pdf-page-${width}`)
          const downloading = page.waitForEvent("download", { timeout: 60_000 })
          await page.getByRole("button", { name: "Download PDF" }).click()
          const download = await downloading
          const pdf = Poppler.read(readFileSync((await download.path())!))
          assert.include(pdf.text, "Filters: Region: EU", `the PDF's filter line at ${width} px`)
          assert.include(pdf.text, figure, `the PDF's revenue is the page's (${figure})`)
          // The file's address, opened by the status page, becomes the download: Chromium calls that navigation aborted.
          assert.deepStrictEqual(errors.filter((e) => !/\/file\?.* net::ERR_ABORTED$/.test(e)), [])
          await context.close()
        }
      })

      // An embed locking the region: a value for it is refused in words; another filter is added to the lock, never in its place.
      const embed = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view", "download"] })
      const minted = yield* ok("POST", `${grantsPath}/${embed.grant_id}/embed-tokens`, { params: { region: "EU" } })
      const exportPath = `/embed/export?token=${encodeURIComponent(minted.token)}`
      const widened = yield* server.request("POST", exportPath, { body: { format: "pdf", filters: { region: "US" } }, headers: { accept: "application/json" } })
      assert.strictEqual(widened.status, 400, widened.text)
      assert.include(widened.body.detail, "set by the embedding app")
      const narrowed = yield* server.request("POST", exportPath, { body: { format: "pdf", filters: { channel: "Online" } }, headers: { accept: "application/json" } })
      assert.strictEqual(narrowed.status, 202, narrowed.text)
      const statusPath = new URL(narrowed.headers.get("location") ?? "", server.url)
      let job = narrowed.body
      for (let i = 0; i < 120 && job.status !== "succeeded" && job.status !== "failed"; i++) {
        yield* Effect.sleep("250 millis")
        job = (yield* server.request("GET", `${statusPath.pathname}${statusPath.search}`, { headers: { accept: "application/json" } })).body
      }
      assert.strictEqual(job.status, "succeeded", JSON.stringify(job))
      const file = yield* Effect.promise(() => fetch(job.url).then((r) => r.arrayBuffer()))
      const text = Poppler.read(new Uint8Array(file)).text
      assert.include(text, "Channel: Online")
      assert.include(text, 'region equals "EU"')
    }).pipe(Effect.scoped), 240_000)
})
