/**
 * The embed token's lifecycle in real headless Chromium (decision 0027), in
 * real time: a partner's page on another origin includes `/embed.js` and
 * embeds the demo report with tokens living 10 seconds, minted by its own
 * server for its own origin (the embedding guide's server sample).
 *
 * - Renewed: the embed asks before expiry, gets a fresh token and swaps it
 *   in place; past the first token's end it still answers a filter change,
 *   in two tabs at once, each renewing on its own. The partner's page hears
 *   ready, refreshed, page-change, filter-change and mark-click (the
 *   clicked bar's region).
 * - A fresh, valid token posted from a frame of another origin is ignored.
 * - Unanswered: at expiry the embed hides the report and says so in words
 *   (an alert), and the partner's page hears expired with those words.
 * - A dashboard's embed (drawn on the server, no viewer) renews the same
 *   way: its page runs the embed entry's token session; past its first
 *   token's end its tiles' CSV links carry the fresh token and answer, and
 *   unanswered it says so in words.
 *
 * At 1280 and 390 px, axe clean, no console error. With `VIEWER_SHOTS=<dir>`,
 * screenshots are saved there.
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import type { Frame, Page } from "playwright-core"
import { executiveDashboard, grantsPath, setupWith } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `embed-token-${name}.png`), fullPage: true })
}

/** How long each token lives: short enough to see several renewals, in real time. */
const lifetimeSeconds = 10

/**
 * The partner's app, on its own origin: its page (`?renew=no`: it stops
 * answering after the first token), `POST /token` minting a token for its
 * origin through the service's API (as docs/guides/embedding.md's sample),
 * and `/other`, a page the test opens on yet another origin (`localhost`).
 */
const partner = (service: string, mint: (origin: string) => Promise<string>, title = "Sales overview") =>
  Effect.acquireRelease(
    Effect.callback<{ readonly origin: string; readonly close: () => void }>((resume) => {
      let origin = ""
      const server = createServer((request, response) => {
        const url = new URL(request.url ?? "/", origin)
        if (request.method === "POST" && url.pathname === "/token") {
          void mint(origin).then((token) => {
            response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" })
            response.end(JSON.stringify({ token }))
          })
          return
        }
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        if (url.pathname === "/other") return void response.end(`<!doctype html><html lang="en"><head><title>Other site</title></head><body><p>Other site</p></body></html>`)
        const renew = url.searchParams.get("renew") !== "no"
        response.end(`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Partner portal</title>
  <script src="${service}/embed.js"></script>
  <style>body { margin: 0; font: 16px/1.5 system-ui, sans-serif; } main { padding: 8px 16px; }</style>
</head>
<body>
<main>
  <h1>Partner portal</h1>
  <div id="report"></div>
  <iframe title="Other site" src="http://localhost:${new URL(origin).port}/other" width="200" height="40"></iframe>
</main>
<script>
  window.events = []
  let minted = 0
  const element = document.getElementById("report")
  for (const type of ["ready", "refreshed", "expired", "page-change", "filter-change", "mark-click", "error"]) {
    element.addEventListener("analytics-" + type, (e) => window.events.push({ type, detail: e.detail }))
  }
  Analytics.embed(element, {
    url: "${service}/embed",
    title: ${JSON.stringify(title)},
    height: 700,
    fetchToken: () => (${renew} || minted++ === 0)
      ? fetch("/token", { method: "POST" }).then((r) => r.json()).then((b) => b.token)
      : new Promise(() => {})
  })
</script>
</body>
</html>`)
      })
      server.listen(0, "127.0.0.1", () => {
        origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
        resume(Effect.succeed({ origin, close: () => server.close() }))
      })
    }),
    (host) => Effect.sync(host.close)
  )

interface Told {
  readonly type: string
  readonly detail: Record<string, unknown>
}

const events = (page: Page) => page.evaluate(() => (window as unknown as { events: Array<Told> }).events)

const waitForEvents = (page: Page, type: string, count: number, timeout = 20_000) =>
  page.waitForFunction(([t, n]) => (window as unknown as { events: Array<Told> }).events.filter((e) => e.type === t).length >= n, [type, count] as const, { timeout })

/** The embed's frame, once its report is shown. */
const embedFrame = async (page: Page): Promise<Frame> => {
  await page.frameLocator("#report iframe").getByRole("heading", { name: "Sales overview", level: 1 }).waitFor({ timeout: 20_000 })
  return page.frames().find((f) => new URL(f.url()).pathname === "/embed")!
}

const tokenIn = (frame: Frame) => frame.evaluate(() => new URL(location.href).searchParams.get("token"))

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("the embed token's lifecycle in headless Chromium"), () => {
  it.live("renewed before expiry in place, in two tabs; events told to the host page; another origin's token ignored; unanswered, expired in words; 1280 and 390 px", () =>
    Effect.gen(function*() {
      const { admin, ok, reportId, server } = yield* setupWith({})
      const embed = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view"] })
      const mint = (origin: string, lifetime = lifetimeSeconds) =>
        fetch(`${server.url}${grantsPath}/${embed.grant_id}/embed-tokens`, {
          method: "POST",
          headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
          body: JSON.stringify({ origin, lifetime_seconds: lifetime })
        }).then((r) => r.json()).then((b: { token: string }) => b.token)
      const host = yield* partner(server.url, (origin) => mint(origin))
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of [1280, 390]) {
          const context = await browser.newContext({ viewport: { width, height: 900 }, locale: "en-US" })
          const page = await context.newPage()
          const errors = Chromium.watchErrors(page)
          const second = await context.newPage()
          const secondErrors = Chromium.watchErrors(second)
          await Promise.all([page.goto(`${host.origin}/`), second.goto(`${host.origin}/`)])
          const frame = await embedFrame(page)
          await embedFrame(second)
          await waitForEvents(page, "ready", 1)

          // A valid, longer-lived token for this grant and origin, posted from a frame of another origin: ignored.
          const foreign = await mint(host.origin, 60)
          const other = page.frames().find((f) => new URL(f.url()).pathname === "/other")!
          await other.evaluate((token) => window.top!.frames[0]!.postMessage({ type: "analytics:token", token }, "*"), foreign)
          await page.waitForTimeout(300)
          assert.notStrictEqual(await tokenIn(frame), foreign, `${width} px: the other origin's token is not taken`)
          // (A renewal of its own may come meanwhile: never one ending as late as the foreign token.)
          for (const e of (await events(page)).filter((e) => e.type === "refreshed")) {
            assert.isBelow(Date.parse(e.detail.expires_at as string), Date.now() + 30_000, `${width} px: nothing refreshed by it`)
          }

          // Past the first token's end, renewed twice, in place: the same document, a new token in its address.
          const first = await tokenIn(frame)
          const count = async (p: Page) => (await events(p)).filter((e) => e.type === "refreshed").length
          const [already, alreadySecond] = [await count(page), await count(second)]
          await frame.evaluate(() => Object.assign(window, { sameDocument: true }))
          await waitForEvents(page, "refreshed", already + 1, 30_000)
          await waitForEvents(second, "refreshed", alreadySecond + 1, 30_000)
          assert.isTrue(await frame.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true), "not reloaded")
          assert.notStrictEqual(await tokenIn(frame), first)
          await waitForEvents(page, "refreshed", 2, 30_000)
          const refreshed = (await events(page)).filter((e) => e.type === "refreshed")
          assert.isAbove(Date.parse(refreshed.at(-1)!.detail.expires_at as string), Date.now(), "told when the fresh token ends")

          // The fresh token works: a filter change answered, told to the host page.
          const embedded = page.frameLocator("#report iframe")
          const revenue = () => embedded.locator('[data-visual="revenue_total"] .kpi').innerText()
          const before = await revenue()
          const answered = page.waitForResponse((r) => new URL(r.url()).searchParams.has("filters"), { timeout: 20_000 })
          await embedded.getByRole("combobox", { name: "Channel", exact: true }).selectOption({ label: "Online" })
          const response = await answered
          assert.strictEqual(response.status(), 200, `${width} px: the filter change is answered with the fresh token`)
          assert.strictEqual(new URL(response.url()).searchParams.get("token"), await tokenIn(frame))
          await waitForEvents(page, "filter-change", 1)
          await frame.waitForFunction(() => document.querySelector("report-viewer p.loading[role=status]")?.textContent === "", undefined, { timeout: 20_000 })
          assert.notStrictEqual(await revenue(), before)
          assert.strictEqual(await embedded.getByRole("alert").count(), 0)

          // A click on a bar: its region, for drill-through.
          const bar = embedded.locator('[data-visual="revenue_by_region"] .live .mark-rect path').first()
          await bar.waitFor({ timeout: 20_000 })
          await bar.click()
          await waitForEvents(page, "mark-click", 1)
          // A page chosen.
          await embedded.getByRole("tab", { name: "Trends" }).click()
          await waitForEvents(page, "page-change", 1)
          const told = await events(page)
          assert.deepStrictEqual(told.find((e) => e.type === "filter-change")!.detail, { filters: { channel: "Online" } })
          const click = told.find((e) => e.type === "mark-click")!.detail
          assert.strictEqual(click.visual_id, "revenue_by_region")
          assert.deepStrictEqual(Object.keys(click.values as object), ["region"])
          assert.include(["APAC", "EU", "US", "LATAM"], (click.values as { region: string }).region)
          assert.deepStrictEqual(told.find((e) => e.type === "page-change")!.detail, { index: 1, name: "Trends" })
          assert.isUndefined(told.find((e) => e.type === "expired" || e.type === "error"))
          await embedded.getByRole("tab", { name: "Overview" }).click()
          assert.deepStrictEqual(await Axe.serious(page), [], `host page at ${width} px`)
          assert.deepStrictEqual(await Axe.serious(frame), [], `renewed embed at ${width} px`)
          await shoot(page, `renewed-${width}`)
          assert.strictEqual(await embedded.getByRole("alert").count(), 0, `${width} px: still alive`)
          assert.isUndefined((await events(page)).find((e) => e.type === "expired" || e.type === "error"))
          assert.deepStrictEqual([...errors, ...secondErrors], [])
          await context.close()

          // Nobody answers: at expiry the report is replaced by the words, and the host page hears it.
          const lone = await browser.newContext({ viewport: { width, height: 900 }, locale: "en-US" })
          const unanswered = await lone.newPage()
          const unansweredErrors = Chromium.watchErrors(unanswered)
          await unanswered.goto(`${host.origin}/?renew=no`)
          const dying = await embedFrame(unanswered)
          const alert = unanswered.frameLocator("#report iframe").getByRole("alert")
          await alert.waitFor({ timeout: 20_000 })
          assert.include(await alert.innerText(), "This embedded report has expired")
          assert.isTrue(await dying.locator("report-viewer").isHidden())
          await waitForEvents(unanswered, "expired", 1)
          const expired = (await events(unanswered)).find((e) => e.type === "expired")!
          assert.include(expired.detail.message as string, "Reload the page")
          assert.deepStrictEqual(await Axe.serious(dying), [], `expired embed at ${width} px`)
          await shoot(unanswered, `expired-${width}`)
          assert.deepStrictEqual(unansweredErrors, [])
          await lone.close()
        }
      })
    }).pipe(Effect.scoped), 180_000)

  it.live("a dashboard's embed renews its token through postMessage in place, its links carry the fresh one and answer; unanswered, expired in words; 1280 and 390 px", () =>
    Effect.gen(function*() {
      const { admin, ok, reportId, server, workspaceId } = yield* setupWith({})
      const dashboard = yield* ok("POST", "/v1/dashboards", executiveDashboard(workspaceId, reportId))
      const embed = yield* ok("POST", grantsPath, {
        subject_type: "dashboard",
        subject_id: dashboard.dashboard_id,
        principal_type: "embed",
        actions: ["view", "download"]
      })
      const mint = (origin: string) =>
        fetch(`${server.url}${grantsPath}/${embed.grant_id}/embed-tokens`, {
          method: "POST",
          headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
          body: JSON.stringify({ origin, lifetime_seconds: lifetimeSeconds })
        }).then((r) => r.json()).then((b: { token: string }) => b.token)
      const host = yield* partner(server.url, mint, "Executive")
      const browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of [1280, 390]) {
          const context = await browser.newContext({ viewport: { width, height: 900 }, locale: "en-US" })
          const page = await context.newPage()
          const errors = Chromium.watchErrors(page)
          await page.goto(`${host.origin}/`)
          const embedded = page.frameLocator("#report iframe")
          await embedded.getByRole("heading", { name: "Executive", level: 1 }).waitFor({ timeout: 20_000 })
          const frame = page.frames().find((f) => new URL(f.url()).pathname === "/embed")!
          assert.strictEqual(await frame.locator("report-viewer").count(), 0, "a dashboard's page runs no viewer")
          await waitForEvents(page, "ready", 1)
          const first = await tokenIn(frame)
          const firstEnds = JSON.parse(Buffer.from(first!.split(".")[1]!, "base64url").toString()).exp * 1000
          await frame.evaluate(() => Object.assign(window, { sameDocument: true }))

          // Renewed twice, past the first token's end, in place.
          await waitForEvents(page, "refreshed", 2, 30_000)
          if (Date.now() < firstEnds) await page.waitForTimeout(firstEnds - Date.now() + 500)
          assert.isTrue(await frame.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true), "not reloaded")
          const fresh = await tokenIn(frame)
          assert.notStrictEqual(fresh, first)
          const refreshed = (await events(page)).filter((e) => e.type === "refreshed")
          assert.isAbove(Date.parse(refreshed.at(-1)!.detail.expires_at as string), Date.now(), "told when the fresh token ends")

          // It keeps working: a tile's CSV link carries the fresh token and answers; the first token no longer does.
          const link = embedded.getByRole("link", { name: "Download CSV" }).first()
          const href = new URL((await link.getAttribute("href"))!, frame.url())
          assert.strictEqual(href.searchParams.get("token"), await tokenIn(frame), `${width} px: the link carries the token in force`)
          const csv = await context.request.get(href.href)
          assert.strictEqual(csv.status(), 200, `${width} px: the renewed link answers`)
          const stale = await context.request.get(`${server.url}/embed?token=${first}`, { headers: { accept: "application/json" } })
          assert.strictEqual(stale.status(), 401, "the first token has expired")
          const view = await context.request.get(`${server.url}/embed?token=${await tokenIn(frame)}`, { headers: { accept: "application/json" } })
          assert.strictEqual(view.status(), 200, "the fresh one is taken")
          assert.strictEqual(await embedded.getByRole("alert").count(), 0, `${width} px: still alive`)
          assert.isUndefined((await events(page)).find((e) => e.type === "expired" || e.type === "error"))
          assert.deepStrictEqual(await Axe.serious(frame), [], `renewed dashboard embed at ${width} px`)
          await shoot(page, `dashboard-renewed-${width}`)
          assert.deepStrictEqual(errors, [])
          await context.close()

          // Nobody answers: at expiry the dashboard is replaced by the words, and the host page hears it.
          const lone = await browser.newContext({ viewport: { width, height: 900 }, locale: "en-US" })
          const unanswered = await lone.newPage()
          const unansweredErrors = Chromium.watchErrors(unanswered)
          await unanswered.goto(`${host.origin}/?renew=no`)
          const dying = unanswered.frameLocator("#report iframe")
          await dying.getByRole("heading", { name: "Executive", level: 1 }).waitFor({ timeout: 20_000 })
          const alert = dying.getByRole("alert")
          await alert.waitFor({ timeout: 20_000 })
          assert.include(await alert.innerText(), "This embedded view has expired")
          assert.isTrue(await dying.locator(".dashboard").isHidden(), "the tiles are hidden")
          await waitForEvents(unanswered, "expired", 1)
          await shoot(unanswered, `dashboard-expired-${width}`)
          assert.deepStrictEqual(unansweredErrors, [])
          await lone.close()
        }
      })
    }).pipe(Effect.scoped), 180_000)
})
