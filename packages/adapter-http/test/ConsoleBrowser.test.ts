/**
 * The console in real headless Chromium: the shell at `/` and under the
 * prefix `/analytics` (a deep link while signed out lands on the sign-in
 * screen and comes back after), with no policy violation and no console
 * error, axe-core clean, the sign-in form reachable by keyboard alone, the
 * skip link, and (with `VIEWER_SHOTS=<dir>`) screenshots at 1280 and
 * 390 px, light and dark.
 *
 * The signed-in screens are driven here with the session answered by the
 * test (`GET /api/session` fulfilled in the page, `/v1` calls given the
 * tenant admin's bearer token) because the session endpoints arrive with
 * slice S2; the journeys through them (the e-mailed link through a real
 * SMTP server, the API-token sign-in, reload, sign-out) are written below
 * against their contract and skipped until then.
 */
import { App, ViewerAssets } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import { SmtpMailer } from "@analytics/adapter-smtp"
import { Axe, Chromium } from "@analytics/testing/browser"
import { SmtpServer } from "@analytics/testing/smtp"
import * as Viewer from "@analytics/viewer/assets"
import { assert, describe, it } from "@effect/vitest"
import { Mailer } from "@analytics/core"
import { Effect, Layer } from "effect"
import { mkdirSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"

/** The page's errors, every one of them: the page says who is signed in, so a signed-out visit is refused nothing. */
const watchErrors = (page: Page) => Chromium.watchErrorsExcept(page, () => false)

const suite = Chromium.available ? describe : describe.skip
const shots = process.env.VIEWER_SHOTS
const operatorToken = "console-operator-token"
const assets = ViewerAssets.ViewerAssets.layer(Viewer.load())

/** The app on a loopback port, its public base URL the real one (links in e-mails work), under `prefix` when given. */
const serve = async (options: { readonly prefix?: string; readonly smtpPort?: number; readonly console?: App.Options<never>["console"] } = {}) => {
  let handle: (req: import("node:http").IncomingMessage, res: import("node:http").ServerResponse) => void = (_req, res) => res.writeHead(503).end()
  const server = createServer((req, res) => handle(req, res))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const memory = Mailer.makeMemory()
  const base = origin + (options.prefix ?? "")
  const api = await App.nodeHandler({
    stores: MemoryStores.layer,
    publicBaseUrl: base,
    prefix: options.prefix,
    operatorToken,
    viewerAssets: assets,
    console: options.console,
    mailer: options.smtpPort === undefined
      ? Layer.succeed(Mailer.Mailer, memory.mailer)
      : SmtpMailer.layer({ url: `smtp://127.0.0.1:${options.smtpPort}`, from: "Analytics <noreply@example.com>" })
  })
  handle = (req, res) => api.handler(req, res, () => res.writeHead(404).end())
  const call = async (method: string, path: string, token: string, body?: unknown) => {
    const response = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const json = await response.json() as any
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json
  }
  const tenant = await call("POST", "/v1/tenants", operatorToken, { name: "Acme", plan: "growth" })
  const close = async () => {
    await api.dispose()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
  const admin = tenant.token as string
  // A tenant admin who is a directory user, signing in with their personal token: the console names them.
  const ada = await call("POST", "/v1/users", admin, { email: "ada.admin@example.com", name: "Ada Admin", roles: ["admin"] })
  const adaToken = (await call("POST", `/v1/users/${ada.user_id}/tokens`, admin, {})).token as string
  return { origin, base, admin, ada: adaToken, tenantId: tenant.tenant_id as string, mails: memory.sent, call, close }
}

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: true })
}

/** What has focus: its tag, name or text, for reading a keyboard path. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null
    if (el === null) return ""
    const name = el.getAttribute("name")
    return `${el.tagName.toLowerCase()}${name === null ? "" : `[name=${name}]`}:${(el.innerText ?? "").trim().slice(0, 40)}`
  })

const withBrowser = async (run: (browser: Browser) => Promise<void>) => {
  const browser = await Chromium.open()
  try {
    await run(browser)
  } finally {
    await browser.close()
  }
}

suite(Chromium.suiteTitle("the console in headless Chromium"), () => {
  it("at /: signed out, the sign-in screen; no policy violation or error; axe clean at 1280 and 390 px, light and dark; the interactive mark set", async () => {
    const app = await serve()
    try {
      await withBrowser(async (browser) => {
        for (const [width, scheme] of [[1280, "light"], [390, "light"], [1280, "dark"], [390, "dark"]] as const) {
          const page = await browser.newPage({ viewport: { width, height: 800 }, colorScheme: scheme })
          const errors = watchErrors(page)
          const violations = await Chromium.watchPolicy(page)
          await page.goto(`${app.origin}/`)
          await page.getByRole("heading", { name: "Sign in" }).waitFor()
          assert.strictEqual(new URL(page.url()).pathname, "/sign-in")
          assert.strictEqual(await page.title(), "Sign in · Analytics")
          await page.waitForFunction(() => performance.getEntriesByName("analytics:interactive").length === 1)
          assert.deepStrictEqual(await Axe.serious(page), [], `${width} px ${scheme}`)
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
          assert.isAtMost(overflow, 0, `${width} px overflows`)
          await shoot(page, `sign-in-${width}-${scheme}`)
          assert.deepStrictEqual(await violations(), [])
          assert.deepStrictEqual(errors(), [], `${width} px ${scheme}`)
          await page.close()
        }
      })
    } finally {
      await app.close()
    }
  }, 60_000)

  it("by keyboard alone: the skip link, the e-mail form, the token form; sending the address says to check the mail", async () => {
    const app = await serve()
    try {
      await withBrowser(async (browser) => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
        const errors = watchErrors(page)
        // The sign-in-links endpoint arrives with slice S2: its contract's answer, 202 whatever the address.
        let asked: unknown
        await page.route(/\/api\/session\/sign-in-links$/, async (route) => {
          asked = route.request().postDataJSON()
          await route.fulfill({ status: 202, contentType: "application/json", body: JSON.stringify({ sent: true }) })
        })
        await page.goto(`${app.origin}/sign-in`)
        await page.getByRole("heading", { name: "Sign in" }).waitFor()
        const path: Array<string> = []
        for (let i = 0; i < 5; i++) {
          await page.keyboard.press("Tab")
          path.push(await focused(page))
        }
        assert.deepStrictEqual(path, [
          "a:Skip to content",
          "a:Analytics",
          "input[name=email]:",
          "button:Send me a link",
          "summary:Sign in with an API token (admins)"
        ])
        // The token form opens from the keyboard and its field and button follow.
        await page.keyboard.press("Enter")
        await page.keyboard.press("Tab")
        assert.strictEqual(await focused(page), "input[name=api_token]:")
        await page.keyboard.press("Tab")
        assert.strictEqual(await focused(page), "button:Sign in with the token")
        // The skip link moves focus to the content.
        for (let i = 0; i < 6; i++) await page.keyboard.press("Shift+Tab")
        assert.strictEqual(await focused(page), "a:Skip to content")
        await page.keyboard.press("Enter")
        assert.strictEqual(await page.evaluate(() => document.activeElement?.id), "main")
        // The e-mail form, typed and sent with Enter.
        await page.keyboard.press("Tab")
        await page.keyboard.type("ada@example.com")
        await page.keyboard.press("Enter")
        await page.getByRole("heading", { name: "Check your mail" }).waitFor()
        assert.deepStrictEqual(asked, { email: "ada@example.com" })
        assert.include(await page.getByRole("status").innerText(), "ada@example.com")
        assert.deepStrictEqual(await Axe.serious(page), [])
        await shoot(page, "check-mail-1280")
        assert.deepStrictEqual(errors(), [])
      })
    } finally {
      await app.close()
    }
  })

  it("under /analytics: a deep link signed out lands on sign-in with where to come back; the assets load below the prefix", async () => {
    const app = await serve({ prefix: "/analytics" })
    try {
      await withBrowser(async (browser) => {
        const page = await browser.newPage({ viewport: { width: 390, height: 800 } })
        const errors = watchErrors(page)
        const violations = await Chromium.watchPolicy(page)
        const requested: Array<string> = []
        page.on("request", (request) => requested.push(new URL(request.url()).pathname))
        await page.goto(`${app.base}/w/ws_1/reports/rep_1`)
        await page.getByRole("heading", { name: "Sign in" }).waitFor()
        const url = new URL(page.url())
        assert.strictEqual(url.pathname, "/analytics/sign-in")
        assert.strictEqual(url.searchParams.get("next"), "w/ws_1/reports/rep_1")
        for (const path of requested) assert.match(path, /^\/analytics\//, "every request stays below the prefix")
        assert.isTrue(requested.some((p) => p.startsWith("/analytics/assets/console-")))
        // Who is signed in came with the page: no request asked it.
        assert.isFalse(requested.includes("/analytics/api/session"))
        assert.deepStrictEqual(await Axe.serious(page), [])
        assert.deepStrictEqual(await violations(), [])
        assert.deepStrictEqual(errors(), [])
      })
    } finally {
      await app.close()
    }
  })

  it("signed in: workspaces listed, created, loaded more; a workspace's reports; sign-out; under /analytics", async () => {
    const app = await serve({ prefix: "/analytics" })
    try {
      for (let i = 1; i <= 22; i++) await app.call("POST", "/v1/workspaces", app.admin, { name: `Team ${String(i).padStart(2, "0")}` })
      await withBrowser(async (browser) => {
        for (const width of [1280, 390]) {
          const { context, page } = await consolePage(browser, app.base, { token: app.ada }, { width, height: 800 })
          const errors = watchErrors(page)
          const violations = await Chromium.watchPolicy(page)
          await page.goto(`${app.base}/`)
          await page.getByRole("heading", { name: "Workspaces" }).waitFor()
          await page.locator("ul.items li").first().waitFor()
          assert.strictEqual(await page.locator("ul.items li").count(), 20)
          assert.include(await page.locator("header").innerText(), "Signed in as Ada Admin")
          await page.getByRole("button", { name: "Load more" }).click()
          // 22, and at 390 px the one the 1280 px round created
          await page.waitForFunction((n) => document.querySelectorAll("ul.items li").length === n, width === 1280 ? 22 : 23)
          assert.strictEqual(await page.getByRole("button", { name: "Load more" }).count(), 0)
          assert.deepStrictEqual(await Axe.serious(page), [], `workspaces at ${width} px`)
          await shoot(page, `workspaces-${width}`)
          if (width === 1280) {
            // Create one: it comes first, the form says so.
            await page.getByLabel("Name", { exact: true }).fill("Finance")
            await page.getByRole("button", { name: "Create workspace" }).click()
            await page.getByText("Workspace Finance created.").waitFor()
            assert.strictEqual(await page.locator("ul.items li a").first().innerText(), "Finance")
          }
          // A workspace: its (empty) reports and dashboards.
          await page.locator("ul.items a").first().click()
          await page.getByRole("heading", { name: "Reports" }).waitFor()
          await page.getByText("No reports in this workspace yet.").waitFor()
          assert.match(new URL(page.url()).pathname, /^\/analytics\/w\/[^/]+$/)
          // Once the screen is ready (its reports and dashboards both answered), focus moves to its heading.
          await page.waitForFunction(() => document.activeElement?.tagName === "H1", undefined, { timeout: 5_000 }).catch(() => undefined)
          assert.strictEqual(await page.evaluate(() => document.activeElement?.tagName), "H1", "focus moves to the new screen's heading")
          assert.deepStrictEqual(await Axe.serious(page), [], `workspace at ${width} px`)
          await shoot(page, `workspace-${width}`)
          await page.goBack()
          await page.getByRole("heading", { name: "Workspaces" }).waitFor()
          // (the list loads again; leaving before it arrives would abort its request)
          await page.locator("ul.items li").first().waitFor()
          // A report's and a dashboard's screens: ReportsBrowser.test.ts.
          await page.getByRole("button", { name: "Sign out" }).click()
          await page.getByRole("heading", { name: "Sign in" }).waitFor()
          assert.deepStrictEqual(await violations(), [])
          assert.deepStrictEqual(errors(), [], `${width} px`)
          await context.close()
        }
      })
    } finally {
      await app.close()
    }
  }, 120_000)

  it("signed in already, the sign-in address goes on to where it was for", async () => {
    const app = await serve()
    try {
      await withBrowser(async (browser) => {
        const { page } = await consolePage(browser, app.base, { token: app.ada }, { height: 800 })
        await page.goto(`${app.origin}/sign-in?next=${encodeURIComponent("w/ws_1")}`)
        await page.getByRole("heading", { name: "Reports" }).waitFor()
        assert.strictEqual(new URL(page.url()).pathname, "/w/ws_1")
      })
    } finally {
      await app.close()
    }
  })

  it("an unknown console path says so, and a problem is told in words with what to do", async () => {
    const app = await serve()
    try {
      await withBrowser(async (browser) => {
        const { page } = await consolePage(browser, app.base, { token: app.ada }, { height: 800 })
        await page.route(/\/v1\/workspaces\?/, (route) =>
          route.fulfill({
            status: 429,
            contentType: "application/problem+json",
            headers: { "retry-after": "12" },
            body: JSON.stringify({ type: "about:blank", title: "Too many requests", status: 429, code: "rate-limit/exceeded", detail: "The tenant's burst limit is spent." })
          }))
        await page.goto(`${app.origin}/`)
        const alert = page.getByRole("alert")
        await alert.waitFor()
        const text = await alert.innerText()
        assert.include(text, "Too many requests")
        assert.include(text, "The tenant's burst limit is spent.")
        assert.include(text, "Wait 12 seconds, then try again.")
        assert.deepStrictEqual(await Axe.serious(page), [])
        await shoot(page, "problem-1280")
        await page.goto(`${app.origin}/w/ws_1/nothing/here/at-all`)
        await page.getByRole("heading", { name: "Nothing here" }).waitFor()
        await page.getByRole("link", { name: "Go to the workspaces" }).waitFor()
      })
    } finally {
      await app.close()
    }
  })

  it("the invitation screen: without a token it says so; with the e-mailed one, a name, then signed in on the workspaces", async () => {
    const app = await serve()
    try {
      await withBrowser(async (browser) => {
        const page = await browser.newPage({ viewport: { width: 390, height: 800 } })
        const errors = watchErrors(page)
        const violations = await Chromium.watchPolicy(page)
        await page.goto(`${app.origin}/invitations/accept`)
        await page.getByText("This address holds no invitation.").waitFor()
        await app.call("POST", "/v1/invitations", app.admin, { email: "bo@example.com" })
        const accept = /https?:\/\/\S+\/invitations\/accept\?token=[\w%-]+/.exec(app.mails.find((m) => m.to.includes("bo@example.com"))?.text ?? "")?.[0]
        assert.isDefined(accept, "the invitation mail holds the acceptance link")
        await page.goto(accept!)
        await page.getByRole("heading", { name: "Accept your invitation" }).waitFor()
        assert.deepStrictEqual(await Axe.serious(page), [])
        await shoot(page, "invitation-390")
        await page.getByLabel("Your name").fill("Bo")
        await page.getByRole("button", { name: "Accept and sign in" }).click()
        await page.getByRole("heading", { name: "Workspaces" }).waitFor()
        assert.strictEqual(new URL(page.url()).pathname, "/")
        assert.include(await page.locator("header").innerText(), "Signed in as Bo")
        // A member: no form to create a workspace.
        await page.getByText("No workspaces yet.").waitFor()
        assert.strictEqual(await page.getByRole("button", { name: "Create workspace" }).count(), 0)
        assert.deepStrictEqual(await violations(), [])
        assert.deepStrictEqual(errors(), [])
      })
    } finally {
      await app.close()
    }
  })

  it("embedded: the sign-in screen sends people to the embedding app's sign-in", async () => {
    const app = await serve({ prefix: "/analytics", console: { signIn: "embedded", signInUrl: "https://app.example.com/login" } })
    try {
      await withBrowser(async (browser) => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
        await page.goto(`${app.base}/w/ws_1`)
        const link = page.getByRole("link", { name: "Go to sign-in" })
        await link.waitFor()
        assert.strictEqual(await link.getAttribute("href"), "https://app.example.com/login")
        assert.strictEqual(await page.getByLabel("E-mail address").count(), 0)
        assert.deepStrictEqual(await Axe.serious(page), [])
      })
    } finally {
      await app.close()
    }
  })

  // The journeys through the session endpoints (docs/guides/console.md, contract in the OpenAPI document's "session" group).

  it.live("signs in by the e-mailed link through a real SMTP server, lands on the workspaces; reload keeps the session; sign-out ends it", () =>
    Effect.gen(function*() {
      const smtp = yield* SmtpServer.start()
      const app = yield* Effect.promise(() => serve({ prefix: "/analytics", smtpPort: smtp.port }))
      yield* Effect.addFinalizer(() => Effect.promise(app.close))
      yield* Effect.promise(() => app.call("POST", "/v1/users", app.admin, { email: "ada@example.com", name: "Ada", roles: ["admin"] }))
      yield* Effect.promise(() =>
        withBrowser(async (browser) => {
          const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
          // The one refusal expected, told in words: the spent link's `POST api/session` (401 auth/sign-in-link-invalid).
          const errors = Chromium.watchErrorsExcept(page, (path, status) => path === "/analytics/api/session" && status === 401)
          await page.goto(`${app.base}/w/ws_1`)
          await page.getByLabel("E-mail address").fill("ada@example.com")
          await page.getByRole("button", { name: "Send me a link" }).click()
          await page.getByRole("heading", { name: "Check your mail" }).waitFor()
          const deadline = Date.now() + 10_000
          while (smtp.received.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
          assert.deepStrictEqual(smtp.received[0]?.to, ["ada@example.com"])
          const raw = smtp.received[0]!.raw.replace(/=\r?\n/g, "").replace(/=3D/gi, "=")
          const link = /https?:\/\/\S+\/sign-in#token=[\w-]+/.exec(raw)?.[0]
          assert.isDefined(link, "the mail holds the sign-in link")
          assert.isTrue(link!.startsWith(`${app.base}/sign-in#token=`))
          await page.goto(link!)
          await page.getByRole("heading", { name: "Workspaces" }).waitFor()
          assert.strictEqual(new URL(page.url()).hash, "", "the token leaves the address bar")
          await page.reload()
          await page.getByRole("heading", { name: "Workspaces" }).waitFor()
          await page.getByRole("button", { name: "Sign out" }).click()
          await page.getByRole("heading", { name: "Sign in" }).waitFor()
          await page.goto(`${app.base}/`)
          await page.getByRole("heading", { name: "Sign in" }).waitFor()
          // The link was spent: opening it again says to ask for a new one.
          await page.goto(link!)
          assert.include(await page.getByRole("alert").innerText(), "Ask for a new link")
          assert.deepStrictEqual(errors(), [])
        })
      )
    }).pipe(Effect.scoped), 90_000)

  it("signs in with an admin's API token and lists the tenant's workspaces; a member's token is refused in words", async () => {
    const app = await serve()
    try {
      await app.call("POST", "/v1/workspaces", app.admin, { name: "Sales" })
      await withBrowser(async (browser) => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
        await page.goto(`${app.origin}/sign-in`)
        await page.getByText("Sign in with an API token (admins)").click()
        await page.getByLabel("API token").fill(app.admin)
        await page.getByRole("button", { name: "Sign in with the token" }).click()
        await page.getByRole("heading", { name: "Workspaces" }).waitFor()
        await page.getByRole("link", { name: "Sales" }).waitFor()
        const cookies = await page.context().cookies()
        const session = cookies.find((c) => c.name === "analytics_session")
        assert.isTrue(session?.httpOnly)
        assert.strictEqual(session?.sameSite, "Lax")
        await page.reload()
        await page.getByRole("link", { name: "Sales" }).waitFor()
      })
    } finally {
      await app.close()
    }
  })
})
