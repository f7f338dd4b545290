/**
 * The console's product pass in real headless Chromium: every screen of the
 * console (each route of `Shell.routes`, each directory tab, sign-in,
 * accepting an invitation, a path that is nothing), opened by deep link
 * over the demo data (a workspace with a report, a dashboard, a dataset, a
 * schedule, a public link; a webhook with a delivery; audit entries;
 * directory users, teams, an executive role, an invitation, a SCIM token),
 * in light and dark and at 1280 and 390 px. On each: axe finds nothing
 * serious, no console error, nothing wider than the window, and by
 * keyboard: the first Tab reaches the skip link, then every control of the
 * screen's main content is reached by Tab and shows a focus indicator (its
 * outline or box shadow when focused differs from its unfocused look, and
 * is there to see). Charts draw no light background in the dark theme.
 * A member, signed in by their e-mailed link, reads "Not available to you"
 * at the admin screens and is not offered them in the navigation.
 * Screenshots `console-<screen>-<theme>-<width>.png` with
 * `VIEWER_SHOTS=<dir>`.
 *
 * Signed in through the session endpoints (`ConsoleSignIn`): the admin with
 * their API token, the member by their e-mailed link.
 */
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"
import { executiveDashboard, setup } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

const themes = ["light", "dark"] as const
const widths = [1280, 390] as const
type Theme = (typeof themes)[number]

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: true })
}

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

/** Records each screen's "ready" (`readyEvent` in console/Screen.ts) from the page's first script on. */
const watchReady = (context: BrowserContext) =>
  context.addInitScript(() => {
    const seen: Array<string> = []
    ;(globalThis as any).__ready = seen
    document.addEventListener("analytics-ready", (e) => seen.push(String((e as CustomEvent).detail)))
  })

/** Waits until the screen said it is ready, its charts on screen are live and two frames have been painted. */
const settle = async (page: Page) => {
  await page.waitForFunction(() => ((globalThis as any).__ready as Array<string>).length > 0, undefined, { timeout: 15_000 })
  await page.waitForFunction(
    () => [...document.querySelectorAll("main vega-chart")].every((c) => c.clientWidth === 0 || c.querySelector(".live svg") !== null),
    undefined,
    { timeout: 20_000 }
  )
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))))
}

/** What the keyboard walk found: problems in words (empty when all is well). */
interface Walk {
  readonly problems: ReadonlyArray<string>
  readonly controls: number
}

/**
 * The keyboard check: from the top of the page, the first Tab reaches the
 * skip link; then Tab reaches every control of `main` (through open shadow
 * roots; one radio per group), each showing a focus indicator: an outline
 * (at least 1 px, not transparent) or a box shadow, different from its look
 * when not focused.
 */
/** Nothing focused, the sequential navigation's starting point at the document's start, scrolled to the top. */
const fromTheTop = (page: Page) =>
  page.evaluate(() => {
    ;(document.activeElement as HTMLElement | null)?.blur?.()
    const mark = document.createElement("span")
    mark.tabIndex = -1
    document.body.prepend(mark)
    mark.focus()
    mark.remove()
    window.scrollTo(0, 0)
  })

const keyboardWalk = async (page: Page): Promise<Walk> => {
  await fromTheTop(page)
  const count = await page.evaluate(() => {
    const w = globalThis as any
    const selector = "a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]"
    const found: Array<HTMLElement> = []
    const collect = (root: ParentNode) => {
      for (const el of root.querySelectorAll<HTMLElement>("*")) {
        if (el.matches(selector)) found.push(el)
        if (el.shadowRoot !== null) collect(el.shadowRoot)
      }
    }
    const main = document.querySelector("main")
    if (main !== null) collect(main)
    const radios = new Set<string>()
    const controls = found.filter((el) => {
      if ((el as HTMLButtonElement).disabled === true || el.tabIndex < 0) return false
      if (el.tagName === "SUMMARY" && el.parentElement?.tagName !== "DETAILS") return false
      if (!el.checkVisibility({ visibilityProperty: true }) || el.getClientRects().length === 0) return false
      if (el instanceof HTMLInputElement && el.type === "radio") {
        // A radio group takes one Tab: its checked radio, else its first.
        const key = `${el.form?.id ?? ""}/${el.name}`
        if (el.name !== "" && radios.has(key)) return false
        radios.add(key)
      }
      return true
    })
    const look = (el: Element) => {
      const s = getComputedStyle(el)
      return { outline: `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`, outlineStyle: s.outlineStyle, outlineWidth: parseFloat(s.outlineWidth), outlineColor: s.outlineColor, shadow: s.boxShadow }
    }
    const radioNames = controls.map((el) => el instanceof HTMLInputElement && el.type === "radio" ? el.name : null)
    const unfocused = controls.map(look)
    const describe = (e: Element) => `${e.tagName.toLowerCase()}${e.id === "" ? "" : `#${e.id}`}${e.getAttribute("aria-label") === null ? "" : `[${e.getAttribute("aria-label")}]`} "${((e as HTMLElement).innerText ?? (e as HTMLInputElement).value ?? "").trim().slice(0, 30)}"`
    const walk = { controls, seen: new Set<number>(), steps: [] as Array<Record<string, unknown>>, done: false, stop: () => {} }
    // Each Tab's stop is read as focus lands there (focusin is composed: it reaches the document from shadow roots too).
    const landed = () => {
      if (walk.done) return
      let el: Element | null = document.activeElement
      while (el?.shadowRoot?.activeElement != null) el = el.shadowRoot.activeElement
      if (el === null || el === document.body) return
      const first = walk.steps.length === 0
      if (first) return void walk.steps.push({ first: true, skip: el.classList.contains("skip"), what: describe(el) })
      // Back at the skip link: the walk went round the page.
      if (el.classList.contains("skip")) return void (walk.done = true)
      let index = controls.indexOf(el as HTMLElement)
      if (index < 0 && el instanceof HTMLInputElement && el.type === "radio") index = radioNames.indexOf(el.name)
      if (index < 0) return void walk.steps.push({ inMain: el.closest("main") !== null || el.getRootNode() !== document, what: describe(el) })
      walk.seen.add(index)
      // The last Tab stop of a date input is its calendar button, in the browser's own shadow tree: the input is no longer
      // `:focus` and the browser draws the button's ring itself (author styles cannot reach it, nor remove it).
      if (el instanceof HTMLInputElement && /^(date|datetime-local|time|month|week)$/.test(el.type) && !el.matches(":focus")) return
      const now = look(el)
      const before = unfocused[index]!
      const outlined = now.outlineStyle !== "none" && now.outlineWidth >= 1 && !/rgba\(.*, 0\)$|transparent/.test(now.outlineColor) && now.outline !== before.outline
      const shadowed = now.shadow !== "none" && now.shadow !== before.shadow
      walk.steps.push({ index, indicator: outlined || shadowed, what: `${describe(el)} (focused: ${now.outline}, ${now.shadow}; not: ${before.outline}, ${before.shadow})` })
    }
    document.addEventListener("focusin", landed, true)
    walk.stop = () => document.removeEventListener("focusin", landed, true)
    w.__walk = walk
    return controls.length
  })
  // The skip link, the header's links and button, then main's controls (a date input has a stop per field), until the
  // walk comes round to the skip link; asked every ten presses.
  for (let pressed = 0; pressed < 8 * count + 40; pressed += 10) {
    for (let i = 0; i < 10; i++) await page.keyboard.press("Tab")
    if (await page.evaluate(() => (globalThis as any).__walk.done as boolean)) break
  }
  const steps = await page.evaluate(() => {
    const walk = (globalThis as any).__walk
    walk.stop()
    return walk.steps as Array<{ first?: boolean; skip?: boolean; inMain?: boolean; index?: number; indicator?: boolean; what: string }>
  })
  const problems: Array<string> = []
  if (steps[0]?.skip !== true) problems.push(`the first Tab reached ${steps[0]?.what ?? "nothing"}, not the skip link`)
  for (const step of steps.slice(1)) {
    if (step.index === undefined) {
      if (step.inMain === true) problems.push(`Tab reached ${step.what}, which is not a visible control`)
    } else if (step.indicator !== true) problems.push(`no visible focus indicator on ${step.what}`)
  }
  const missed = await page.evaluate(() => {
    const w = (globalThis as any).__walk
    return (w.controls as Array<HTMLElement>).filter((_, i) => !w.seen.has(i)).map((e) => `${e.tagName.toLowerCase()} "${(e.innerText ?? e.getAttribute("aria-label") ?? "").trim().slice(0, 30)}"`)
  })
  for (const m of missed) problems.push(`Tab never reached ${m}`)
  return { problems, controls: count }
}

/**
 * In the dark theme, nothing in a chart is drawn light: its background is not, and its text is;
 * its marks are in the spec's dark colours (none in a light one), each at least 3:1 on its card.
 */
const darkCharts = (page: Page) =>
  page.evaluate(() => {
    const luminance = (color: string) => {
      const m = /rgba?\(([\d.]+), ([\d.]+), ([\d.]+)(?:, ([\d.]+))?\)/.exec(color)
      if (m === null) return { l: 0, a: 0 }
      const [r, g, b] = [m[1], m[2], m[3]].map((c) => {
        const s = Number(c) / 255
        return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4
      })
      return { l: 0.2126 * r! + 0.7152 * g! + 0.0722 * b!, a: m[4] === undefined ? 1 : Number(m[4]) }
    }
    const problems: Array<string> = []
    const hex = (color: string) => {
      const m = /rgba?\(([\d.]+), ([\d.]+), ([\d.]+)/.exec(color)
      return m === null ? color.toLowerCase() : "#" + [m[1], m[2], m[3]].map((c) => Number(c).toString(16).padStart(2, "0")).join("")
    }
    for (const chart of document.querySelectorAll("main vega-chart")) {
      const colors = (chart as any).spec?.usermeta?.darkColors as { from: Array<string>; to: Array<string> } | undefined
      const svg = chart.querySelector("svg")
      if (colors === undefined || svg === null) continue
      const card = luminance(getComputedStyle(chart.closest("article") ?? document.body).backgroundColor).l
      for (const mark of svg.querySelectorAll(".role-mark path, .role-mark rect")) {
        for (const color of [getComputedStyle(mark).fill, getComputedStyle(mark).stroke].map(hex)) {
          if (colors.from.includes(color) && !colors.to.includes(color)) problems.push(`a chart mark in a light colour (${color}) on the dark theme`)
          if (!colors.to.slice(0, -1).includes(color)) continue
          const l = luminance(getComputedStyle(mark).fill === "none" ? getComputedStyle(mark).stroke : getComputedStyle(mark).fill).l
          const ratio = (Math.max(l, card) + 0.05) / (Math.min(l, card) + 0.05)
          if (ratio < 3) problems.push(`a chart mark (${color}) at ${ratio.toFixed(2)}:1 on its dark card`)
        }
      }
    }
    for (const svg of document.querySelectorAll("main vega-chart svg")) {
      for (const el of [svg, ...svg.querySelectorAll(".background, rect.background, path.background")]) {
        const fill = luminance(getComputedStyle(el).fill)
        const bg = luminance(getComputedStyle(el).backgroundColor)
        if ((fill.a > 0 && fill.l > 0.4 && el !== svg) || (bg.a > 0 && bg.l > 0.4)) problems.push(`a light chart background (${el.getAttribute("class") ?? el.tagName})`)
      }
      for (const text of svg.querySelectorAll(".role-axis-label text, .role-axis-title text, .role-legend-label text, .role-legend-title text, .role-title-text text")) {
        if (luminance(getComputedStyle(text).fill).l < 0.3) problems.push(`dark chart text on the dark theme: "${text.textContent}"`)
      }
    }
    return [...new Set(problems)]
  })

/** Selects whose chosen option's words do not fit in them (measured in their own font, less their padding and arrow). */
const clippedSelects = (page: Page) =>
  page.evaluate(() => {
    const context = document.createElement("canvas").getContext("2d")!
    // What Chromium keeps for the menu arrow, beside the padding.
    const arrow = 16
    const clipped: Array<string> = []
    for (const select of document.querySelectorAll<HTMLSelectElement>("main select")) {
      const option = select.selectedOptions[0]
      if (option === undefined || !select.checkVisibility()) continue
      const s = getComputedStyle(select)
      context.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`
      const room = select.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - arrow
      const needs = context.measureText(option.text.trim()).width
      if (needs > room) clipped.push(`the choice "${option.text.trim()}" is clipped in its select (${Math.round(needs)} px in ${Math.round(room)})`)
    }
    return clipped
  })

/** Opens `path`, then checks it in both widths: axe, overflow, keyboard, charts, and a screenshot each. */
const sweep = async (page: Page, base: string, path: string, name: string, theme: Theme, failures: Array<string>) => {
  await page.setViewportSize({ width: widths[0], height: 900 })
  // A document of its own each time (a new `#page=` alone would not load one).
  await page.goto("about:blank")
  await page.goto(`${base}/${path}`)
  await settle(page)
  for (const width of widths) {
    const label = `${name} ${theme} ${width}`
    if (width !== widths[0]) {
      await page.setViewportSize({ width, height: 844 })
      await settle(page)
    }
    for (const v of await Axe.serious(page)) failures.push(`${label}: axe ${v.id} (${v.help}) at ${v.targets.join(", ")}`)
    const wide = await overflow(page)
    if (wide > 0) failures.push(`${label}: ${wide} px wider than the window`)
    for (const c of await clippedSelects(page)) failures.push(`${label}: ${c}`)
    if (theme === "dark") for (const p of await darkCharts(page)) failures.push(`${label}: ${p}`)
    await fromTheTop(page)
    await shoot(page, `${name}-${theme}-${width}`)
    const walk = await keyboardWalk(page)
    for (const p of walk.problems) failures.push(`${label}: ${p}`)
  }
}

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("the console's product pass: every screen in headless Chromium"), () => {
  it.live("every route by deep link, light and dark, 1280 and 390 px: axe clean, no error, keyboard reachable with visible focus; a member is refused the admin screens in words", () =>
    Effect.gen(function*() {
      const { admin, datasetId, mails, ok, reportId, server, workspaceId } = yield* setup
      // The demo data: a dashboard, a member with a grant, a public link, a schedule, a webhook with a delivery, the directory's people.
      const dashboard = yield* ok("POST", "/v1/dashboards", executiveDashboard(workspaceId, reportId))
      const mia = yield* ok("POST", "/v1/users", { email: "mia@example.com", name: "Mia Member", roles: ["member"] })
      yield* ok("POST", "/v1/users", { email: "ada@example.com", name: "Ada Admin", roles: ["admin"] })
      const grant = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "user", principal_id: mia.user_id, actions: ["view"] })
      // The audit log's longest action, shown filtered below: its choice's label must not be clipped.
      yield* ok("PATCH", `/v1/sharing/grants/${grant.grant_id}`, { actions: ["view", "comment"] })
      yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"] })
      // An alert, checked: the Alerts screen has a row and a state.
      const alert = yield* ok("POST", "/v1/alerts", { dataset_id: datasetId, name: "Revenue high", measure: "revenue", condition: "gt", threshold: 1 })
      yield* ok("POST", `/v1/alerts/${alert.alert_id}/check`)
      yield* ok("POST", "/v1/export-schedules", {
        report_id: reportId,
        name: "Weekly sales",
        cron: "0 8 * * 1",
        timezone: "Europe/Paris",
        format: "csv",
        visual_id: "revenue_by_region",
        recipients: ["mia@example.com"]
      })
      const webhook = yield* ok("POST", "/v1/webhooks", { url: "https://hooks.example.com/orders", description: "Order system", events: ["export.succeeded", "export.failed"] })
      yield* ok("POST", `/v1/webhooks/${webhook.webhook_id}/test`, { type: "export.succeeded" })
      const team = yield* ok("POST", "/v1/teams", { name: "Finance" })
      yield* ok("POST", `/v1/teams/${team.team_id}/members`, { user_id: mia.user_id })
      yield* ok("POST", "/v1/executive-roles", { name: "CFO" })
      yield* ok("POST", "/v1/scim-tokens")
      yield* ok("POST", "/v1/invitations", { email: "newbie@example.com" })
      const invitation = /invitations\/accept\?token=([\w-]+)/.exec([...mails].reverse().find((m) => m.to.includes("newbie@example.com"))?.text ?? "")?.[1]
      assert.isDefined(invitation, "the invitation is mailed with its link")

      const w = `w/${workspaceId}`
      const adminScreens: ReadonlyArray<readonly [string, string]> = [
        ["", "workspaces"],
        [w, "workspace"],
        [`${w}/links`, "links"],
        [`${w}/schedules`, "schedules"],
        [`${w}/alerts`, "alerts"],
        [`${w}/ask`, "ask"],
        [`${w}/datasets`, "datasets"],
        [`${w}/datasets/${datasetId}`, "dataset"],
        [`${w}/reports/${reportId}`, "report"],
        // Its other pages' charts: lines, a ring with its legend, stacked bars, a combo, a scatter.
        [`${w}/reports/${reportId}#page=Trends`, "report-trends"],
        [`${w}/reports/${reportId}#page=Mix`, "report-mix"],
        [`${w}/dashboards/${dashboard.dashboard_id}`, "dashboard"],
        ["webhooks", "webhooks"],
        [`webhooks/${webhook.webhook_id}`, "webhook"],
        ["audit", "audit"],
        ["audit?action=grant.updated", "audit-filtered"],
        ["directory", "directory-users"],
        ["directory?tab=teams", "directory-teams"],
        ["directory?tab=roles", "directory-roles"],
        ["directory?tab=invitations", "directory-invitations"],
        ["directory?tab=scim", "directory-scim"],
        ["branding", "branding"],
        [`${w}/nothing-here`, "not-found"]
      ]
      const signedOutScreens: ReadonlyArray<readonly [string, string]> = [
        ["sign-in", "sign-in"],
        [`invitations/accept?token=${invitation}`, "invitation"]
      ]
      const browser: Browser = yield* Chromium.launch
      const failures: Array<string> = []
      yield* Effect.promise(async () => {
        for (const theme of themes) {
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { colorScheme: theme })
          await watchReady(context)
          const errors = Chromium.watchErrors(page)
          const policy = await Chromium.watchPolicy(page)
          for (const [path, name] of adminScreens) await sweep(page, server.url, path, name, theme, failures)
          // Every route of the shell is here: the admin's, and the public ones below.
          for (const p of await policy()) failures.push(`${theme}: policy violation ${p}`)
          // (A poll the test's own navigation cut short, the webhook screen asking every second, is not counted by the kit.)
          for (const e of errors) failures.push(`${theme}: ${e}`)
          await context.close()

          const signedOut = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: theme })
          await watchReady(signedOut)
          const outPage = await signedOut.newPage()
          // Signed out, the console asks who is signed in and is told 401: expected, once a screen.
          const outErrors = Chromium.watchErrorsExcept(outPage, (path, status) => path === "/api/session" && status === 401)
          for (const [path, name] of signedOutScreens) await sweep(outPage, server.url, path, name, theme, failures)
          for (const e of outErrors()) failures.push(`${theme} signed out: ${e}`)
          await signedOut.close()
        }

        // The member, by their e-mailed link: no admin navigation; the admin screens say so in words.
        const { context: memberContext, page: member } = await consolePage(browser, server.url, { email: "mia@example.com", mails })
        await watchReady(memberContext)
        const memberErrors = Chromium.watchErrors(member)
        await member.goto(`${server.url}/`)
        await member.getByRole("heading", { level: 1, name: "Workspaces" }).waitFor()
        const nav = member.getByRole("navigation", { name: "Main" })
        assert.deepStrictEqual(await nav.getByRole("link").allInnerTexts(), ["Workspaces"], "a member's navigation")
        for (const [path, name] of [["webhooks", "webhooks"], [`webhooks/${webhook.webhook_id}`, "webhook"], ["audit", "audit"], ["directory", "directory"], ["directory?tab=scim", "directory-scim"], ["branding", "branding"]] as const) {
          await member.goto(`${server.url}/${path}`)
          await member.getByRole("heading", { level: 1, name: "Not available to you" }).waitFor()
          await settle(member)
          assert.strictEqual(await member.locator("main .problem").count(), 0, `${path}: no problem box`)
          assert.isAbove(await member.locator("main a[href]").count(), 0, `${path}: a way back`)
          assert.deepStrictEqual(await nav.getByRole("link").allInnerTexts(), ["Workspaces"], `${path}: a member's navigation`)
          for (const v of await Axe.serious(member)) failures.push(`member ${path}: axe ${v.id} at ${v.targets.join(", ")}`)
          await shoot(member, `member-${name}-light-1280`)
          for (const p of (await keyboardWalk(member)).problems) failures.push(`member ${path}: ${p}`)
        }
        for (const e of memberErrors) failures.push(`member: ${e}`)
        await memberContext.close()
        assert.deepStrictEqual(failures, [], failures.join("\n"))
      })
    }).pipe(Effect.scoped), { timeout: 180_000 })
})
