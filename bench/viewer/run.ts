/**
 * `npm run bench:viewer`: the demo report opened from its public link in
 * headless Chromium, page by page (`#page=`), against the floor: the same
 * report served as static SVGs (the service's HTML of it without any
 * script, from a static file server). For each report page it measures,
 * from navigation start, when every chart of the page shows its marks
 * ("drawn") and when every one is a live view in the browser
 * ("interactive": tooltips, resizing; the floor has none), and what the
 * page weighs on the wire (the sum of every response's encoded bytes).
 *
 * Bar: every chart drawn within 1 s on loopback, and the time to draw at
 * most 1.5x the floor's.
 *
 * Environment:
 * - `BENCH_ROUNDS`      loads of each page per side, interleaved; medians reported (default 9)
 * - `BENCH_WIDTH`       the window's width in CSS pixels (default 1280; 390 for a phone)
 * - `BENCH_OUTPUT_DIR`  where `last-run.json` goes (default `bench/viewer`)
 * - `BENCH_DEBUG=1`     prints each load's navigation timings
 * - `CHROMIUM`          the browser (default Debian's `/usr/bin/chromium`)
 *
 * The packaged host runs in a child process with `ANALYTICS_DEMO=1`, as a
 * user starts it; the viewer's assets must be built (`npm run build`, which
 * `npm run bench:viewer` does first).
 */
import type { Server } from "node:http"
import { fileURLToPath } from "node:url"
import { Chromium } from "@analytics/testing/browser"
import { type Browser, chromium } from "playwright-core"
import { serveStatic, withMeasuredPage } from "../BrowserPage.ts"
import { startDemoHost } from "../DemoHost.ts"
import { writeRunRecord } from "../RunRecord.ts"
import { median, round } from "../Stats.ts"

const rounds = Number(process.env["BENCH_ROUNDS"] ?? 9)
const width = Number(process.env["BENCH_WIDTH"] ?? 1280)
const outputDir = process.env["BENCH_OUTPUT_DIR"] ?? fileURLToPath(new URL(".", import.meta.url))
const executablePath = process.env["CHROMIUM"] ?? Chromium.executablePath

/** The bar: each chart drawn within this many milliseconds, and at most `ratioBar` times the floor. */
const drawnBarMs = 1_000
const ratioBar = 1.5

/** A JSON call to the host. */
const call = async (base: string, token: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const json = await response.json() as any
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return json
}

/** The URL of one page of a shared report: the viewer opens the page its hash names. */
const pageUrl = (link: string, page: string) => `${link}#page=${encodeURIComponent(page)}`

/** The report's pages in the service's HTML: each `<section class="page">`, up to the next or the viewer's end. */
const sections = (html: string): Array<{ readonly start: number; readonly end: number }> => {
  const starts = [...html.matchAll(/<section class="page"/g)].map((m) => m.index!)
  return starts.map((start, i) => ({ start, end: starts[i + 1] ?? html.indexOf("</report-viewer>", start) }))
}

/**
 * The floor: the same report as static SVGs, that is the service's HTML of
 * it without any script (every page one after the other, each chart the
 * server's SVG, nothing to load or run).
 */
const floorOf = (html: string) =>
  html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
    .replace(/<link\b[^>]*rel="?modulepreload"?[^>]*>/gi, "")

/** How many charts report page `i` draws. */
const chartsOf = (html: string, i: number) => {
  const section = sections(html)[i]!
  return (html.slice(section.start, section.end).match(/<vega-chart/g) ?? []).length
}

/**
 * Runs in the page from its first script on, every frame: when each chart
 * of the report page `page` (the `page`-th `<section class="page">`) first
 * holds marks on screen, whether the server's SVG or the browser's, and
 * when every one of them is a live Vega view (its `.live` box drawn; the
 * floor has none).
 */
const recorder = (page: number) => {
  const state = { drawn: [] as Array<number>, interactiveAt: null as number | null }
  ;(globalThis as any).__bench = state
  const marks = "svg [role='graphics-symbol']"
  const tick = () => {
    const section = document.querySelectorAll("section.page")[page]
    const charts = section === undefined ? [] : Array.from(section.querySelectorAll("vega-chart"))
    charts.forEach((chart, i) => {
      if (state.drawn[i] === undefined && chart.getClientRects().length > 0 && chart.querySelector(marks) !== null) state.drawn[i] = performance.now()
    })
    if (state.interactiveAt === null && charts.length > 0 && charts.every((c) => c.querySelector(`.live ${marks}`) !== null)) {
      state.interactiveAt = performance.now()
    }
    requestAnimationFrame(tick)
  }
  requestAnimationFrame(tick)
}

interface Load {
  /** When the last chart of the page showed, ms from navigation start. */
  readonly lastDrawnMs: number
  /** When every chart was a live view; `null` on the floor. */
  readonly interactiveMs: number | null
  /** The sum of every response's encoded bytes. */
  readonly bytes: number
}

/** Loads `url` in a fresh context (no cache) and waits until the `charts` charts of report page `index` are drawn (and live, when `live`). */
const load = (browser: Browser, url: string, index: number, charts: number, live: boolean): Promise<Load> =>
  withMeasuredPage(browser, width, async ({ page, bytes, errors }) => {
    await page.addInitScript(recorder, index)
    await page.goto(url, { waitUntil: "commit" })
    await page.waitForFunction(
      ([n, needLive]) => {
        const state = (globalThis as any).__bench
        return state !== undefined && state.drawn.filter((t: number | undefined) => t !== undefined).length >= n && (!needLive || state.interactiveAt !== null)
      },
      [charts, live] as const,
      { timeout: 20_000, polling: "raf" }
    )
    await page.waitForLoadState("networkidle")
    if (errors.length > 0) throw new Error(`console errors on ${url}: ${errors.join("; ")}`)
    const state = await page.evaluate(() => (globalThis as any).__bench as { drawn: Array<number>; interactiveAt: number | null })
    if (process.env["BENCH_DEBUG"] === "1") {
      console.log(url, await page.evaluate(() => {
        const n = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming
        return JSON.stringify({ responseStart: n.responseStart, responseEnd: n.responseEnd, domInteractive: n.domInteractive, dcl: n.domContentLoadedEventEnd, fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime })
      }), JSON.stringify(state.drawn))
    }
    return { lastDrawnMs: Math.max(...state.drawn.slice(0, charts)), interactiveMs: live ? state.interactiveAt : null, bytes: bytes() }
  })

const main = async () => {
  const host = await startDemoHost("viewer")
  const browser = await chromium.launch({ executablePath, args: [...Chromium.args] })
  let floor: { readonly url: string; readonly server: Server } | undefined
  try {
    const [workspace] = (await call(host.url, host.token, "GET", "/v1/workspaces")).data
    const [report] = (await call(host.url, host.token, "GET", `/v1/reports?workspace_id=${workspace.workspace_id}`)).data
    const grant = await call(host.url, host.token, "POST", "/v1/sharing/grants", {
      subject_type: "report",
      subject_id: report.report_id,
      principal_type: "link",
      actions: ["view"]
    })
    const link: string = grant.link_url
    const pages: Array<string> = report.pages.map((p: { name: string }) => p.name)

    // The floor: the report as the service serves it, without script.
    const html = await (await fetch(link, { headers: { accept: "text/html" } })).text()
    if (sections(html).length !== pages.length) throw new Error(`the page has ${sections(html).length} sections for ${pages.length} report pages`)
    const documents = new Map([["/", floorOf(html)]])
    const charts = new Map(pages.map((name, i) => [name, chartsOf(html, i)] as const))
    floor = await serveStatic(documents)

    const results = []
    for (const [i, name] of pages.entries()) {
      const n = charts.get(name)!
      if (n === 0) continue
      const ours: Array<Load> = []
      const floors: Array<Load> = []
      // Interleaved, a warm-up load of each first.
      await load(browser, pageUrl(link, name), i, n, true)
      await load(browser, `${floor.url}/`, i, n, false)
      for (let r = 0; r < rounds; r++) {
        ours.push(await load(browser, pageUrl(link, name), i, n, true))
        floors.push(await load(browser, `${floor.url}/`, i, n, false))
      }
      const drawn = median(ours.map((l) => l.lastDrawnMs))
      const floorDrawn = median(floors.map((l) => l.lastDrawnMs))
      results.push({
        page: name,
        charts: n,
        ours: {
          drawnMs: round(drawn),
          slowestChartMs: round(Math.max(...ours.map((l) => l.lastDrawnMs))),
          interactiveMs: round(median(ours.map((l) => l.interactiveMs ?? 0))),
          bytes: median(ours.map((l) => l.bytes))
        },
        floor: { drawnMs: round(floorDrawn), bytes: median(floors.map((l) => l.bytes)) },
        ratio: round((drawn / floorDrawn) * 100) / 100
      })
    }

    console.log(`bench/viewer: the demo report from its public link, ${width} px wide, ${rounds} loads per page and side (medians)`)
    console.log("page        charts  drawn ms  floor ms  ratio  interactive ms  KB (ours/floor)")
    for (const r of results) {
      console.log(
        `${r.page.padEnd(11)} ${String(r.charts).padStart(6)}  ${String(r.ours.drawnMs).padStart(8)}  ${String(r.floor.drawnMs).padStart(8)}  ${
          r.ratio.toFixed(2).padStart(5)
        }x  ${String(r.ours.interactiveMs).padStart(14)}  ${(r.ours.bytes / 1024).toFixed(1)}/${(r.floor.bytes / 1024).toFixed(1)}`
      )
    }
    const slowest = Math.max(...results.map((r) => r.ours.slowestChartMs))
    const worstRatio = Math.max(...results.map((r) => r.ratio))
    const met = slowest <= drawnBarMs && worstRatio <= ratioBar
    console.log(`slowest chart of any load: ${slowest} ms (bar ${drawnBarMs} ms); worst ratio to the floor: ${worstRatio.toFixed(2)}x (bar ${ratioBar}x): ${met ? "met" : "NOT met"}`)
    const written = writeRunRecord(outputDir, { settings: { rounds, width }, bar: { drawnMs: drawnBarMs, ratio: ratioBar }, met, pages: results })
    console.log(`written to ${written}`)
  } finally {
    floor?.server.close()
    await browser.close()
    await host.stop()
  }
}

await main()
