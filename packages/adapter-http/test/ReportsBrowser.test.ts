/**
 * The console's report and dashboard screens and the public
 * `<analytics-report>` element in real headless Chromium, over the demo
 * report (core's `SampleReport` on 3,000 sample orders): a deep link shows
 * the workspace's real name; a filter leaves fewer rows and the address
 * keeps it (a reload too); pages by keyboard and by `#page=`; the Vega
 * chunk fetched only once a chart is on screen; comments read, added,
 * edited and deleted by their author, no form for a reader, no panel
 * when the list is refused; 403 and 404 in words; a dashboard's tiles; the
 * element on a plain same-origin HTML page (examples/embed-elements), its
 * properties and events. Each screen axe clean, with no console error and
 * no policy violation, nothing overflowing at 1280 and 390 px
 * (screenshots with `VIEWER_SHOTS=<dir>`).
 *
 * Signed in through the session endpoints (`ConsoleSignIn`): the admin with
 * their API token, members by their e-mailed link.
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"
import { executiveDashboard, setup } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

/**
 * The page's console errors, its policy violations, and the answers it
 * asked for: Chromium logs every failed fetch as an error without its URL,
 * so the failures `expected` names (a refusal the screen shows in words)
 * are matched against them.
 */
const watch = async (page: Page, expected: (path: string, status: number) => boolean = () => false) => {
  const errors = Chromium.watchErrorsExcept(page, expected)
  const requested: Array<string> = []
  page.on("request", (request) => requested.push(new URL(request.url()).pathname))
  return {
    requested,
    vega: () => requested.some((p) => /\/assets\/VegaRuntime-[^/]+\.js$/.test(p)),
    errors,
    violations: await Chromium.watchPolicy(page)
  }
}

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: true })
}

/** The rows of the "Revenue by region" chart's data table: one per region shown. */
const regionRows = (page: Page) => page.locator(`[data-visual="revenue_by_region"] details.data tbody tr`).count()

const selectedTab = (page: Page) => page.locator("[role=tab][aria-selected=true]").innerText()

const chartsLive = (page: Page) =>
  page.waitForFunction(() => [...document.querySelectorAll("section.page:not([hidden]) vega-chart")].every((c) => c.querySelector(".live svg") !== null), undefined, { timeout: 20_000 })

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("reports and dashboards in the console, and <analytics-report>, in headless Chromium"), () => {
  it.live("the demo report: workspace by name, filters in the address, pages by keyboard and #page=, Vega only with a chart; comments; refusals in words; a dashboard", () =>
    Effect.gen(function*() {
      const { admin, mails, ok, reportId, server, workspaceId } = yield* setup
      const dashboard = yield* ok("POST", "/v1/dashboards", executiveDashboard(workspaceId, reportId))
      const member = (email: string, name: string, actions: ReadonlyArray<string> | undefined) =>
        Effect.gen(function*() {
          const user = yield* ok("POST", "/v1/users", { email, name, roles: ["member"] })
          const token = (yield* ok("POST", `/v1/users/${user.user_id}/tokens`, {})).token as string
          if (actions !== undefined) {
            yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "user", principal_id: user.user_id, actions })
          }
          return { token, email, mails, userId: user.user_id as string }
        })
      const ada = yield* member("ada@example.com", "Ada Lovelace", ["view", "comment"])
      // Ada leads the EU: her row-level security leaves her that region's rows (the sample model's executive roles).
      const lead = yield* ok("POST", "/v1/executive-roles", { name: "EU Lead" })
      yield* ok("POST", `/v1/executive-roles/${lead.role_id}/members`, { user_id: ada.userId })
      const carol = yield* member("carol@example.com", "Carol", ["view"])
      const dave = yield* member("dave@example.com", "Dave", undefined)
      const asAdmin = { token: admin }
      const browser: Browser = yield* Chromium.launch
      const reportPath = `/w/${workspaceId}/reports/${reportId}`

      for (const width of [1280, 390]) {
        yield* Effect.promise(async () => {
          const { context, page } = await consolePage(browser, server.url, asAdmin, { width })
          const seen = await watch(page)
          // A deep link to the workspace: its real name, no chart code.
          await page.goto(`${server.url}/w/${workspaceId}`)
          await page.getByRole("heading", { level: 1, name: "Demo" }).waitFor()
          await page.getByRole("link", { name: "Sales overview" }).waitFor()
          assert.isFalse(seen.vega(), "no Vega on the workspace")
          // The report, opened on its table page: no chart on screen, no Vega yet.
          await page.goto(`${server.url}${reportPath}#page=Products`)
          await page.getByRole("heading", { level: 1, name: "Sales overview" }).waitFor({ timeout: 20_000 })
          await page.locator(`[data-visual="products"] table`).waitFor()
          assert.strictEqual(await selectedTab(page), "Products")
          assert.strictEqual(await page.title(), "Sales overview · Analytics")
          const crumbs = await page.getByRole("navigation", { name: "Breadcrumbs" }).innerText()
          assert.match(crumbs, /Workspaces\s*›?\s*Demo\s*›?\s*Sales overview/)
          await page.waitForTimeout(300)
          assert.isFalse(seen.vega(), "no Vega while only a table is shown")
          assert.deepStrictEqual(await Axe.serious(page), [], `products at ${width}`)
          // By keyboard: the selected tab, then the left arrow: Trends and its charts, now with Vega.
          await page.locator("[role=tab][aria-selected=true]").focus()
          await page.keyboard.press("ArrowLeft")
          assert.strictEqual(await selectedTab(page), "Trends")
          assert.strictEqual(new URL(page.url()).hash, "#page=Trends")
          await chartsLive(page)
          assert.isTrue(seen.vega(), "Vega once a chart is shown")
          assert.strictEqual(await page.evaluate(() => document.activeElement?.textContent), "Trends")
          // By address: #page= moves to the page, on the same screen (the charts stay drawn, no new request for the view).
          const views = seen.requested.filter((p) => p.endsWith("/view")).length
          await page.goto(`${server.url}${reportPath}#page=Overview`)
          await page.locator("[role=tab][aria-selected=true]", { hasText: "Overview" }).waitFor()
          await chartsLive(page)
          assert.strictEqual(seen.requested.filter((p) => p.endsWith("/view")).length, views)
          assert.strictEqual(await regionRows(page), 4)
          assert.deepStrictEqual(await Axe.serious(page), [], `overview at ${width}`)
          assert.isAtMost(await overflow(page), 0, `overview overflows at ${width}`)
          await shoot(page, `report-${width}`)
          // A filter: one region left, the address carries it, and a reload keeps it.
          const reply = page.waitForResponse((r) => r.url().includes("/view?filters="))
          await page.selectOption("#filter-region", { label: "EU" })
          assert.strictEqual((await reply).status(), 200)
          await page.waitForFunction(() => document.querySelectorAll(`[data-visual="revenue_by_region"] details.data tbody tr`).length === 1)
          const url = new URL(page.url())
          assert.strictEqual(url.pathname, reportPath)
          assert.strictEqual(url.searchParams.get("filters"), `{"region":"EU"}`)
          assert.strictEqual(url.hash, "#page=Overview")
          await page.reload()
          await page.locator("[role=tab][aria-selected=true]", { hasText: "Overview" }).waitFor({ timeout: 20_000 })
          assert.strictEqual(await regionRows(page), 1)
          assert.strictEqual(await page.locator("#filter-region option:checked").innerText(), "EU")
          await chartsLive(page)
          await shoot(page, `report-filtered-${width}`)
          // Back to the workspace by the breadcrumbs.
          await page.getByRole("navigation", { name: "Breadcrumbs" }).getByRole("link", { name: "Demo" }).click()
          await page.getByRole("heading", { level: 1, name: "Demo" }).waitFor()
          // The dashboard: its tiles in the grid's order.
          await page.getByRole("link", { name: "Executive" }).click()
          await page.getByRole("heading", { level: 1, name: "Executive" }).waitFor()
          await page.locator(`.tiles visual-card[data-visual="products"] table`).waitFor({ timeout: 20_000 })
          await page.waitForFunction(() => [...document.querySelectorAll(".tiles vega-chart")].every((c) => c.querySelector(".live svg") !== null), undefined, { timeout: 20_000 })
          assert.deepStrictEqual(await page.locator(".tiles visual-card h3").allInnerTexts(), ["Revenue", "Revenue by region", "Products"])
          assert.deepStrictEqual(await Axe.serious(page), [], `dashboard at ${width}`)
          assert.isAtMost(await overflow(page), 0, `dashboard overflows at ${width}`)
          await shoot(page, `dashboard-${width}`)
          assert.deepStrictEqual(await seen.violations(), [])
          assert.deepStrictEqual(seen.errors(), [], `${width} px`)
          await context.close()
        })
      }

      // The dark theme: the same report readable, axe clean.
      for (const width of [1280, 390]) {
        yield* Effect.promise(async () => {
          const { context, page } = await consolePage(browser, server.url, asAdmin, { width, colorScheme: "dark" })
          const seen = await watch(page)
          await page.goto(`${server.url}${reportPath}#page=Trends`)
          await page.locator("[role=tab][aria-selected=true]", { hasText: "Trends" }).waitFor({ timeout: 20_000 })
          await chartsLive(page)
          assert.deepStrictEqual(await Axe.serious(page), [], `dark at ${width}`)
          assert.isAtMost(await overflow(page), 0)
          await shoot(page, `report-dark-${width}`)
          assert.deepStrictEqual(seen.errors(), [])
          await context.close()
        })
      }

      // Comments: Ada (comment granted) adds, edits and deletes hers; Carol (view) reads, with no form to add.
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, ada)
        const seen = await watch(page)
        await page.goto(`${server.url}${reportPath}`)
        const panel = page.getByRole("region", { name: "Comments" })
        await panel.getByText("No comments yet.").waitFor({ timeout: 20_000 })
        // Her rows only: one region, the filter offering no other.
        await page.waitForFunction(() => document.querySelectorAll(`[data-visual="revenue_by_region"] details.data tbody tr`).length === 1)
        assert.deepStrictEqual(await page.locator("#filter-region option").allInnerTexts(), ["All", "EU"])
        await panel.getByLabel("Add a comment").fill("Revenue in APAC looks off.")
        await panel.getByRole("button", { name: "Comment", exact: true }).click()
        await panel.getByText("Revenue in APAC looks off.").waitFor()
        assert.strictEqual(await panel.getByLabel("Add a comment").inputValue(), "")
        await panel.getByRole("button", { name: "Edit" }).click()
        assert.strictEqual(await page.evaluate(() => document.activeElement?.tagName), "TEXTAREA")
        await panel.getByLabel("Your comment").fill("Revenue in APAC looks right after all.")
        await panel.getByRole("button", { name: "Save" }).click()
        await panel.getByText("Revenue in APAC looks right after all.").waitFor()
        assert.include(await panel.innerText(), "edited")
        assert.deepStrictEqual(await Axe.serious(page), [])
        await shoot(page, "report-comments-1280")
        await panel.getByRole("button", { name: "Delete" }).click()
        await panel.getByRole("button", { name: "Delete it" }).click()
        await panel.getByText("No comments yet.").waitFor()
        assert.deepStrictEqual(await seen.violations(), [])
        assert.deepStrictEqual(seen.errors(), [])
        await context.close()
      })
      yield* ok("POST", `/v1/reports/${reportId}/comments`, { text: "Looks good." }, ada.token)
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, carol, { width: 390 })
        const seen = await watch(page, (path, status) => path.endsWith("/comments") && status === 403)
        await page.goto(`${server.url}${reportPath}`)
        const panel = page.getByRole("region", { name: "Comments" })
        await panel.getByText("Looks good.").waitFor({ timeout: 20_000 })
        assert.strictEqual(await panel.getByRole("button", { name: "Edit" }).count(), 0, "not hers to edit")
        // Her grant gives view only (the view's actions): no form, no Reply (rule 1: the comment controls are hidden).
        assert.strictEqual(await panel.getByLabel("Add a comment").count(), 0)
        assert.strictEqual(await panel.getByRole("button", { name: /Reply/ }).count(), 0)
        assert.deepStrictEqual(await Axe.serious(page), [])
        assert.deepStrictEqual(seen.errors(), [])
        await context.close()
      })

      // Refusals in words: Dave has no grant (403); an unknown report (404); a list the policy refuses hides the panel.
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, dave, { width: 390 })
        const seen = await watch(page, (path, status) => path.endsWith("/view") && (status === 403 || status === 404))
        await page.goto(`${server.url}${reportPath}`)
        await page.getByRole("alert").getByText("You cannot open this report").waitFor({ timeout: 20_000 })
        assert.strictEqual(await page.getByRole("heading", { level: 1 }).innerText(), "Report")
        assert.include(await page.getByRole("alert").innerText(), "Ask whoever shared it")
        assert.strictEqual(await page.getByRole("region", { name: "Comments" }).count(), 0)
        assert.deepStrictEqual(await Axe.serious(page), [])
        await shoot(page, "report-forbidden-390")
        await page.goto(`${server.url}/w/${workspaceId}/reports/0190a7e2-0000-7000-8000-000000000000`)
        await page.getByRole("alert").getByText("This report does not exist").waitFor({ timeout: 20_000 })
        assert.include(await page.getByRole("navigation", { name: "Breadcrumbs" }).innerText(), "Demo")
        await page.goto(`${server.url}/w/${workspaceId}/dashboards/${dashboard.dashboard_id}`)
        await page.getByRole("alert").getByText("You cannot open this dashboard").waitFor({ timeout: 20_000 })
        assert.strictEqual(await page.getByRole("heading", { level: 1 }).innerText(), "Dashboard")
        assert.deepStrictEqual(seen.errors(), [])
        await context.close()
      })
      yield* Effect.promise(async () => {
        const { context, page } = await consolePage(browser, server.url, asAdmin)
        await page.route(/\/comments\?/, (route) =>
          route.fulfill({ status: 403, contentType: "application/problem+json", body: JSON.stringify({ type: "about:blank", title: "Forbidden", status: 403, code: "auth/forbidden", detail: "No." }) }))
        const seen = await watch(page, (path, status) => path.endsWith("/comments") && status === 403)
        const refused = page.waitForResponse((r) => r.url().includes("/comments?"), { timeout: 20_000 })
        await page.goto(`${server.url}${reportPath}`)
        await refused
        await page.locator("[role=tab]").first().waitFor({ timeout: 20_000 })
        await page.waitForTimeout(100)
        assert.strictEqual(await page.getByRole("heading", { name: "Comments" }).count(), 0)
        assert.strictEqual(await page.getByRole("alert").count(), 0)
        assert.deepStrictEqual(seen.errors(), [])
        await context.close()
      })
    }).pipe(Effect.scoped), { timeout: 180_000 })

  it.live("<analytics-report> on a plain same-origin page (examples/embed-elements): its attributes, properties and events; the host's address untouched", () =>
    Effect.gen(function*() {
      const { admin, reportId, server } = yield* setup
      const example = readFileSync(new URL("../../../examples/embed-elements/index.html", import.meta.url), "utf8").replace(`report-id="REPORT_ID"`, `report-id="${reportId}"`)
      const browser: Browser = yield* Chromium.launch
      for (const width of [1280, 390]) {
        yield* Effect.promise(async () => {
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { width })
          // The embedding app's page, on the service's origin.
          await page.route(`${server.url}/portal/sales`, (route) => route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: example }))
          const seen = await watch(page, (path, status) => path.endsWith("/view") && status === 404)
          await page.goto(`${server.url}/portal/sales`)
          const report = page.locator("analytics-report")
          await report.getByRole("heading", { name: "Sales overview" }).waitFor({ timeout: 20_000 })
          await report.locator("[role=tab][aria-selected=true]", { hasText: "Overview" }).waitFor()
          // The filters attribute applied: one channel.
          assert.strictEqual(await report.locator("#filter-channel option:checked").innerText(), "Online")
          await chartsLiveIn(page)
          assert.deepStrictEqual(await Axe.serious(page), [], `${width}`)
          assert.isAtMost(await overflow(page), 0)
          if (shots !== undefined) await page.screenshot({ path: join(shots, `element-report-${width}.png`), fullPage: true })
          const events = await page.evaluate(() => {
            const seen: Array<string> = []
            ;(globalThis as any).__events = seen
            for (const type of ["analytics-filters-change", "analytics-page-change", "analytics-problem"]) {
              document.addEventListener(type, (e) => seen.push(`${type} ${JSON.stringify((e as CustomEvent).detail)}`))
            }
            return seen
          })
          assert.deepStrictEqual(events, [])
          // A person's filter: the event and the property follow; the host's address does not change.
          await report.locator("#filter-region").selectOption({ label: "EU" })
          await page.waitForFunction(() => ((globalThis as any).__events as Array<string>).length === 1)
          assert.deepStrictEqual(await page.evaluate(() => (globalThis as any).__events), [`analytics-filters-change {"filters":{"channel":"Online","region":"EU"}}`])
          assert.deepStrictEqual(await report.evaluate((el: any) => el.filters), { channel: "Online", region: "EU" })
          assert.strictEqual(await page.locator("#log").innerText(), `Filters: {"channel":"Online","region":"EU"}`)
          // Pages by keyboard, then by the property.
          await report.locator("[role=tab][aria-selected=true]").focus()
          await page.keyboard.press("End")
          await report.locator("[role=tab][aria-selected=true]", { hasText: "Mix" }).waitFor()
          assert.strictEqual(await report.getAttribute("page"), "Mix")
          await report.evaluate((el: any) => (el.page = "Products"))
          await report.locator("[role=tab][aria-selected=true]", { hasText: "Products" }).waitFor()
          assert.strictEqual(new URL(page.url()).pathname + new URL(page.url()).search + new URL(page.url()).hash, "/portal/sales")
          // A locked filter shows as set by the app; an unknown report is told as a problem event.
          await report.evaluate((el: any) => el.setAttribute("locked-filters", JSON.stringify({ region: "US" })))
          await report.locator("#filter-region[disabled]").waitFor()
          assert.include(await report.locator(".filter.locked").innerText(), "US")
          await report.evaluate((el: any) => (el.reportId = "0190a7e2-0000-7000-8000-000000000000"))
          await page.waitForFunction(() => ((globalThis as any).__events as Array<string>).some((e) => e.startsWith("analytics-problem")))
          const problem = (await page.evaluate(() => (globalThis as any).__events as Array<string>)).find((e) => e.startsWith("analytics-problem"))!
          assert.include(problem, `"status":404`)
          assert.deepStrictEqual(await page.evaluate(() => (globalThis as any).__events.map((e: string) => e.split(" ")[0])), [
            "analytics-filters-change",
            "analytics-page-change",
            "analytics-problem"
          ])
          assert.deepStrictEqual(await seen.violations(), [])
          assert.deepStrictEqual(seen.errors(), [], `${width}`)
          await context.close()
        })
      }
    }).pipe(Effect.scoped), { timeout: 120_000 })
})

/** Every chart of the element's shown page drawn live (inside its shadow root). */
const chartsLiveIn = (page: Page) =>
  page.waitForFunction(() => {
    const root = document.querySelector("analytics-report")?.shadowRoot
    const charts = [...(root?.querySelectorAll("section.page:not([hidden]) vega-chart") ?? [])]
    return charts.length > 0 && charts.every((c) => c.querySelector(".live svg") !== null)
  }, undefined, { timeout: 20_000 })
