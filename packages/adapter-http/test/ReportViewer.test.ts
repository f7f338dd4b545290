/**
 * The report viewer in real headless Chromium: the demo report opened from
 * a public link draws its charts (as many marks as the server's drawing of
 * the same spec), shows titles and formatted periods (no member name, no
 * raw timestamp), overflows nothing at 1280 and 390 px, logs no error and
 * passes axe-core (no serious or critical violation); its pages switch by
 * keyboard, a filter redraws it with fewer rows; an embed shows its locked
 * parameter as a disabled control. A watermarked link is the server's
 * drawing under the watermark: no script, no data behind its charts
 * (decision 0014), at 1280 and 390 px. With
 * `VIEWER_SHOTS=<dir>`, full-page screenshots of each page and the embed at
 * both widths are saved there.
 */
import { toSvg } from "@analytics/charts/svg"
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { Documents } from "@analytics/adapter-documents"
import { grantsPath, setup, setupWith } from "./ReportViewerFixture.ts"

const suite = Chromium.available ? describe : describe.skip
const shots = process.env.VIEWER_SHOTS

/** The live charts drawn on the page shown: each one's visual id and its data marks (bars, points, slices, line paths). */
const drawnCharts = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll("section.page:not([hidden]) vega-chart")].map((chart) => ({
      id: chart.closest("[data-visual]")?.getAttribute("data-visual") ?? "",
      live: chart.querySelector(".live svg") !== null,
      // data marks only (role-mark), not a legend's symbols or an axis's ticks
      marks: [...chart.querySelectorAll(".live svg g.role-mark:is(.mark-rect, .mark-arc, .mark-symbol) > path")].length +
        [...chart.querySelectorAll(".live svg g.role-mark:is(.mark-line, .mark-area)")].filter((g) => g.querySelector("path") !== null).length
    }))
  )

/** Waits until every chart of the page shown is live. */
const chartsDrawn = (page: Page) =>
  page.waitForFunction(() => [...document.querySelectorAll("section.page:not([hidden]) vega-chart")].every((c) => c.querySelector(".live svg") !== null), undefined, {
    timeout: 20_000
  })

/** What a person reads on the page shown: its text and its charts' labels. */
const readable = (page: Page) =>
  page.evaluate(() => {
    const main = document.querySelector("main") as HTMLElement
    const labels = [...document.querySelectorAll("section.page:not([hidden]) svg text")].map((t) => t.textContent ?? "")
    return `${main.innerText}\n${labels.join("\n")}`
  })

/** Whether anything is wider than the viewport. */
const overflow = (page: Page) =>
  page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))

suite(Chromium.suiteTitle("the report viewer in headless Chromium"), () => {
  it.live("the demo report from a link: charts drawn as the server draws them, readable labels, no overflow, no error, axe clean; pages by keyboard, a filter redraws; an embed's locked parameter", () =>
    Effect.gen(function*() {
      const { ok, reportId, server, workspaceId } = yield* setup
      const link = yield* ok("POST", grantsPath, {
        subject_type: "report",
        subject_id: reportId,
        principal_type: "link",
        actions: ["view"]
      })
      const path = new URL(link.link_url).pathname
      const json = yield* server.request("GET", path, { headers: { accept: "application/json" } })
      assert.strictEqual(json.status, 200, json.text)
      const visuals = new Map<string, any>((json.body.pages as Array<any>).flatMap((p) => p.visuals.map((v: any) => [v.id, v])))
      /** The marks the server draws for a visual: the same spec and rows through vega in Node. */
      const expected = (id: string) => Effect.promise(() => toSvg(visuals.get(id).vega, visuals.get(id).rows)).pipe(Effect.map((d) => d.marks))
      if (shots !== undefined) mkdirSync(shots, { recursive: true })
      const browser = yield* Chromium.launch

      for (const width of [1280, 390]) {
        const seen = yield* Effect.promise(async () => {
          const page = await browser.newPage({ viewport: { width, height: 900 } })
          const errors = Chromium.watchErrors(page)
          await page.goto(`${server.url}${path}`)
          await page.locator("report-viewer [role=tablist]").waitFor({ timeout: 20_000 })
          const pages: Array<{ name: string; charts: Awaited<ReturnType<typeof drawnCharts>>; text: string; overflow: { scroll: number; client: number }; axe: ReadonlyArray<Axe.Violation> }> = []
          const names = await page.locator("[role=tab]").allInnerTexts()
          for (const [index, name] of names.entries()) {
            if (index > 0) {
              // Keyboard: the selected tab has focus; the right arrow selects the next page.
              await page.locator("[role=tab][aria-selected=true]").focus()
              await page.keyboard.press("ArrowRight")
            }
            await page.locator(`[role=tab][aria-selected=true]`, { hasText: name }).waitFor()
            await chartsDrawn(page)
            pages.push({ name, charts: await drawnCharts(page), text: await readable(page), overflow: await overflow(page), axe: await Axe.serious(page) })
            if (shots !== undefined) await page.screenshot({ path: join(shots, `link-${width}-${index + 1}-${name.toLowerCase()}.png`), fullPage: true })
          }
          const hash = await page.evaluate(() => location.hash)
          if (process.env.VIEWER_TIMINGS === "1") {
            // What a person waits for, from navigation: the first paint (the server's charts) and the charts going live.
            await page.goto(`${server.url}${path}`)
            await chartsDrawn(page)
            const timings = await page.evaluate(() => ({
              firstPaint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime,
              live: performance.now(),
              response: (performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming).responseEnd
            }))
            console.info(`${width} px: response ${timings.response.toFixed(0)} ms, first paint ${timings.firstPaint?.toFixed(0)} ms, charts live by ${timings.live.toFixed(0)} ms`)
          }
          await page.close()
          return { pages, hash, errors, names }
        })
        assert.deepStrictEqual(seen.names, ["Overview", "Trends", "Products", "Mix"])
        assert.strictEqual(seen.hash, "#page=Mix")
        assert.deepStrictEqual(seen.errors, [], `${width} px`)
        for (const p of seen.pages) {
          assert.isAtMost(p.overflow.scroll, p.overflow.client, `${p.name} at ${width} px overflows`)
          assert.deepStrictEqual(p.axe, [], `${p.name} at ${width} px`)
          assert.notMatch(p.text, /__/, `${p.name}: a member's name shows`)
          assert.notMatch(p.text, /\d{2}:\d{2}:\d{2}/, `${p.name}: a raw timestamp shows`)
          for (const chart of p.charts) {
            assert.isTrue(chart.live, `${chart.id} drawn live`)
            assert.strictEqual(chart.marks, yield* expected(chart.id), `${chart.id}'s marks at ${width} px`)
          }
        }
        const drawn = seen.pages.flatMap((p) => p.charts.map((c) => c.id))
        for (const id of ["revenue_by_region", "revenue_by_month", "orders_by_channel"]) assert.include(drawn, id)
        assert.include(seen.pages[0].text, "Revenue by region")
      }

      // A filter: the region EU leaves one bar, from the service, the URL keeping it.
      const filtered = yield* Effect.promise(async () => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
        const errors = Chromium.watchErrors(page)
        await page.goto(`${server.url}${path}`)
        await page.locator("#filter-region").waitFor({ timeout: 20_000 })
        await chartsDrawn(page)
        const before = (await drawnCharts(page)).find((c) => c.id === "revenue_by_region")?.marks
        const reply = page.waitForResponse((r) => r.url().includes("filters="))
        await page.selectOption("#filter-region", { label: "EU" })
        const response = await reply
        await page.waitForFunction(() => document.querySelector("visual-card[busy]") === null)
        await chartsDrawn(page)
        const after = (await drawnCharts(page)).find((c) => c.id === "revenue_by_region")?.marks
        const url = page.url()
        // A tooltip on the bar, in the model's words and formats.
        await page.hover(`[data-visual="revenue_by_region"] .live svg g.role-mark.mark-rect path`)
        const tooltip = await page.locator("#vg-tooltip-element.visible").innerText({ timeout: 5_000 })
        await page.close()
        return { before, after, status: response.status(), type: response.headers()["content-type"], url, errors, tooltip }
      })
      assert.strictEqual(filtered.status, 200)
      assert.include(filtered.type, "application/json")
      assert.strictEqual(filtered.before, 4)
      assert.strictEqual(filtered.after, 1)
      assert.include(decodeURIComponent(filtered.url), `filters={"region":"EU"}`)
      assert.deepStrictEqual(filtered.errors, [])
      assert.match(filtered.tooltip, /Region\s+EU/)
      assert.match(filtered.tooltip, /Revenue\s+€[\d,]+\.\d{2}/)

      // Without script: the server's drawing alone, every page in turn, nothing overflowing on a phone.
      const plain = yield* Effect.promise(async () => {
        const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 900 } })
        const page = await context.newPage()
        await page.goto(`${server.url}${path}`)
        const seen = { charts: await page.locator("vega-chart > svg").count(), headings: await page.locator("section.page h2").allInnerTexts(), overflow: await overflow(page) }
        if (shots !== undefined) await page.screenshot({ path: join(shots, "link-390-no-script.png"), fullPage: true })
        await context.close()
        return seen
      })
      assert.strictEqual(plain.charts, 7)
      assert.deepStrictEqual(plain.headings, ["Overview", "Trends", "Products", "Mix"])
      assert.isAtMost(plain.overflow.scroll, plain.overflow.client)

      // Nothing matches: messages instead of empty charts, still accessible; a chart's data opens as a table.
      const empty = yield* Effect.promise(async () => {
        const page = await browser.newPage({ viewport: { width: 390, height: 900 } })
        const errors = Chromium.watchErrors(page)
        await page.goto(`${server.url}${path}?filters=${encodeURIComponent(JSON.stringify({ period: ["2031-01-01", "2031-12-31"] }))}#page=Trends`)
        await page.locator("#filter-region").waitFor({ timeout: 20_000 })
        const seen = {
          messages: await page.locator("section.page:not([hidden]) .state.no_rows").allInnerTexts(),
          from: await page.locator("#filter-period-from").inputValue(),
          axe: await Axe.serious(page),
          overflow: await overflow(page),
          errors
        }
        if (shots !== undefined) await page.screenshot({ path: join(shots, "link-390-no-rows.png"), fullPage: true })
        await page.goto(`${server.url}${path}#page=Overview`)
        await chartsDrawn(page)
        await page.locator("details.data summary").first().press("Enter")
        const table = await page.locator("details.data[open] table").innerText()
        if (shots !== undefined) await page.screenshot({ path: join(shots, "link-390-show-data.png"), fullPage: true })
        await page.close()
        return { ...seen, table }
      })
      assert.deepStrictEqual(empty.messages, ["No rows match.", "No rows match."])
      assert.strictEqual(empty.from, "2031-01-01")
      assert.deepStrictEqual(empty.axe, [])
      assert.isAtMost(empty.overflow.scroll, empty.overflow.client)
      assert.deepStrictEqual(empty.errors, [])
      assert.include(empty.table, "LATAM")

      // A dashboard of the report's visuals: each tile a card, its chart drawn, one column on a phone.
      const dashboard = yield* ok("POST", "/v1/dashboards", {
        workspace_id: workspaceId,
        name: "Board",
        tiles: [
          { id: "revenue", report_id: reportId, visual_id: "revenue_total", x: 0, y: 0, width: 8, height: 4 },
          { id: "regions", report_id: reportId, visual_id: "revenue_by_region", x: 8, y: 0, width: 16, height: 8 },
          { id: "months", report_id: reportId, visual_id: "revenue_by_month", x: 0, y: 8, width: 12, height: 8 },
          { id: "channels", report_id: reportId, visual_id: "orders_by_channel", x: 12, y: 8, width: 12, height: 8 }
        ]
      })
      const dashLink = yield* ok("POST", grantsPath, { subject_type: "dashboard", subject_id: dashboard.dashboard_id, principal_type: "link", actions: ["view"] })
      for (const width of [1280, 390]) {
        const board = yield* Effect.promise(async () => {
          const page = await browser.newPage({ viewport: { width, height: 900 } })
          const errors = Chromium.watchErrors(page)
          await page.goto(`${server.url}${new URL(dashLink.link_url).pathname}`)
          const seen = { charts: await page.locator("article.tile vega-chart > svg").count(), overflow: await overflow(page), axe: await Axe.serious(page), errors }
          if (shots !== undefined) await page.screenshot({ path: join(shots, `dashboard-${width}.png`), fullPage: true })
          await page.close()
          return seen
        })
        assert.strictEqual(board.charts, 3)
        assert.isAtMost(board.overflow.scroll, board.overflow.client, `dashboard at ${width} px`)
        assert.deepStrictEqual(board.axe, [], `dashboard at ${width} px`)
        assert.deepStrictEqual(board.errors, [])
      }

      // An embed whose app locks the region: shown, disabled, saying so; the service refuses to lift it.
      const embed = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view"] })
      const minted = yield* ok("POST", `${grantsPath}/${embed.grant_id}/embed-tokens`, { params: { region: "EU" } })
      const embedPath = `/embed?token=${encodeURIComponent(minted.token)}`
      for (const width of [1280, 390]) {
        const framed = yield* Effect.promise(async () => {
          const page = await browser.newPage({ viewport: { width, height: 900 } })
          const errors = Chromium.watchErrors(page)
          await page.goto(`${server.url}${embedPath}`)
          await page.locator("#filter-region").waitFor({ timeout: 20_000 })
          await chartsDrawn(page)
          const region = page.locator("#filter-region")
          const seen = {
            disabled: await region.isDisabled(),
            value: await region.locator("option").innerText(),
            note: await page.locator(".filter.locked small").innerText(),
            charts: await drawnCharts(page),
            overflow: await overflow(page),
            axe: await Axe.serious(page),
            errors
          }
          if (shots !== undefined) await page.screenshot({ path: join(shots, `embed-${width}.png`), fullPage: true })
          await page.close()
          return seen
        })
        assert.isTrue(framed.disabled)
        assert.strictEqual(framed.value, "EU")
        assert.strictEqual(framed.note, "Set by the embedding app")
        assert.strictEqual(framed.charts.find((c) => c.id === "revenue_by_region")?.marks, 1)
        assert.isAtMost(framed.overflow.scroll, framed.overflow.client)
        assert.deepStrictEqual(framed.axe, [])
        assert.deepStrictEqual(framed.errors, [])
      }
      if (shots !== undefined) {
        yield* Effect.promise(async () => {
          const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
          await page.goto(`${server.url}${path}`)
          await chartsDrawn(page)
          await page.emulateMedia({ media: "print" })
          await page.pdf({ path: join(shots, "print.pdf"), format: "A4", printBackground: true })
          await page.close()
        })
      }
    }).pipe(Effect.scoped), { timeout: 180_000 })

  it.live("a watermarked link: the server's drawing under the watermark, every page, no script, no data behind the charts; 1280 and 390 px", () =>
    Effect.gen(function*() {
      const { ok, reportId, server } = yield* setupWith({ renderers: Documents.layer })
      const link = yield* ok("POST", grantsPath, {
        subject_type: "report",
        subject_id: reportId,
        principal_type: "link",
        actions: ["view", "download"],
        watermark: true,
        email: "board@example.com"
      })
      const path = new URL(link.link_url).pathname
      const browser = yield* Chromium.launch
      for (const width of [1280, 390]) {
        const seen = yield* Effect.promise(async () => {
          const page = await browser.newPage({ viewport: { width, height: 900 } })
          const errors = Chromium.watchErrors(page)
          const requests: Array<string> = []
          page.on("request", (r) => requests.push(r.url()))
          await page.goto(`${server.url}${path}`)
          await page.locator(".watermark").waitFor({ state: "attached", timeout: 20_000 })
          const seen = {
            watermark: await page.locator(".watermark").getAttribute("data-watermark"),
            image: decodeURIComponent(await page.locator(".watermark").evaluate((el) => getComputedStyle(el).backgroundImage)),
            charts: await page.locator("vega-chart > svg").count(),
            headings: await page.locator("section.page h2").allInnerTexts(),
            showData: await page.locator("details.data").count(),
            tables: await page.locator("table").count(),
            scripts: await page.locator("script").count(),
            pdf: await page.getByRole("button", { name: "Download PDF" }).count(),
            overflow: await overflow(page),
            axe: await Axe.serious(page),
            errors,
            requests: requests.filter((u) => u.startsWith(server.url) && !u.endsWith(path))
          }
          if (shots !== undefined) await page.screenshot({ path: join(shots, `link-watermarked-${width}.png`), fullPage: true })
          await page.close()
          return seen
        })
        assert.strictEqual(seen.watermark, "board@example.com")
        assert.include(seen.image, "board@example.com", "the watermark is drawn over the page")
        assert.strictEqual(seen.charts, 7, "every chart drawn by the server")
        assert.deepStrictEqual(seen.headings, ["Overview", "Trends", "Products", "Mix"])
        assert.strictEqual(seen.showData, 0, "no data behind the charts")
        assert.strictEqual(seen.scripts, 0, "no viewer script, no rows for it")
        assert.deepStrictEqual(seen.requests, [], "nothing fetched: no JSON view")
        assert.strictEqual(seen.pdf, 1, "its PDF, which carries the watermark")
        assert.isAtMost(seen.overflow.scroll, seen.overflow.client, `${width} px overflows`)
        assert.deepStrictEqual(seen.axe, [], `${width} px`)
        assert.deepStrictEqual(seen.errors, [], `${width} px`)
      }
    }).pipe(Effect.scoped), { timeout: 120_000 })
})
