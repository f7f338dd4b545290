/**
 * Errors and risks said in words, in real headless Chromium: an unknown
 * page is a page (not problem JSON), axe clean and narrow enough for a
 * phone; a 200-character name without a space wraps instead of widening
 * the console; making someone an admin and rotating a webhook's secret
 * each ask first, and a "no" changes nothing. Screenshots at 1280 and
 * 390 px with `VIEWER_SHOTS=<dir>`.
 */
import { ViewerAssets } from "@analytics/adapter-http"
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

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `words-${name}.png`), fullPage: true })
}

const scrollWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth)

/** A server with the console and a tenant; `ok` calls the API as its admin and fails on an error. */
const setup = Effect.gen(function*() {
  const server = yield* start(MemoryStores.layer, { viewerAssets: ViewerAssets.ViewerAssets.layer(Viewer.load()) })
  const { token: admin } = yield* server.tenant("scale")
  const ok = (method: string, path: string, body?: unknown) =>
    Effect.runPromise(Effect.map(server.request(method, path, { token: admin, body }), (r) => {
      if (r.status >= 400) throw new Error(`${method} ${path}: ${r.status} ${r.text}`)
      return r.body
    }))
  return { server, admin, ok }
})

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("errors and risks in words, in headless Chromium"), () => {
  it.live("an unknown page is a page in words with a way back, axe clean, no wider than a phone", () =>
    Effect.gen(function*() {
      const { server } = yield* setup
      const browser: Browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of [1280, 390]) {
          const page = await browser.newPage({ viewport: { width, height: 800 } })
          const answer = await page.goto(`${server.url}/nope`)
          assert.strictEqual(answer?.status(), 404)
          assert.match(answer?.headers()["content-type"] ?? "", /^text\/html/)
          await page.getByRole("heading", { level: 1, name: "This page does not exist" }).waitFor()
          assert.strictEqual(await page.title(), "Page not found")
          assert.deepStrictEqual(await Axe.serious(page), [], `not found at ${width}`)
          assert.isAtMost(await scrollWidth(page), width, `not found overflows at ${width}`)
          await shoot(page, `not-found-${width}`)
          // The way back is the console's root.
          await page.getByRole("link", { name: "Go to the console" }).click()
          await page.waitForURL(`${server.url}/sign-in`)
          await page.close()
        }
      })
    }).pipe(Effect.scoped))

  it.live("a 200-character name without a space wraps in the workspace list and on the workspace's screen", () =>
    Effect.gen(function*() {
      const { server, admin, ok } = yield* setup
      const name = "Quarterly".repeat(22).slice(0, 200)
      const workspace = yield* Effect.promise(() => ok("POST", "/v1/workspaces", { name }))
      const browser: Browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of [1280, 390]) {
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { width, height: 800 })
          await page.goto(`${server.url}/`)
          await page.getByRole("link", { name }).waitFor()
          assert.isAtMost(await scrollWidth(page), width, `workspace list at ${width}`)
          await shoot(page, `long-name-list-${width}`)
          await page.goto(`${server.url}/w/${workspace.workspace_id}`)
          await page.getByRole("heading", { level: 1, name }).waitFor()
          assert.isAtMost(await scrollWidth(page), width, `workspace at ${width}`)
          await shoot(page, `long-name-workspace-${width}`)
          await context.close()
        }
      })
    }).pipe(Effect.scoped))

  it.live("making someone an admin and rotating a webhook's secret each ask first; a no changes nothing", () =>
    Effect.gen(function*() {
      const { server, admin, ok } = yield* setup
      const mia = yield* Effect.promise(() => ok("POST", "/v1/users", { email: "mia@example.com", name: "Mia Member", roles: ["member"] }))
      const url = "https://hooks.example.com/analytics"
      const hook = yield* Effect.promise(() => ok("POST", "/v1/webhooks", { url, events: ["alert.fire"] }))
      const browser: Browser = yield* Chromium.launch
      yield* Effect.promise(async () => {
        for (const width of [1280, 390]) {
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { width })
          const errors = Chromium.watchErrorsExcept(page, () => false)

          // The role: choosing Admin asks, naming what it hands over; Cancel leaves Mia a member, the menu too.
          await page.goto(`${server.url}/directory`)
          const role = page.getByLabel("Role: Mia Member")
          await role.selectOption("admin")
          const ask = page.getByRole("dialog", { name: "Make Mia Member an admin?" })
          await ask.waitFor()
          assert.include(await ask.innerText(), "manage the whole tenant")
          assert.deepStrictEqual(await Axe.serious(page), [], `promote dialog at ${width}`)
          await shoot(page, `promote-confirm-${width}`)
          assert.deepStrictEqual((await ok("GET", `/v1/users/${mia.user_id}`)).roles, ["member"], "nothing changes before the answer")
          await ask.getByRole("button", { name: "Cancel" }).click()
          await ask.waitFor({ state: "detached" })
          await page.waitForFunction(() => document.querySelector<HTMLSelectElement>('select[aria-label="Role: Mia Member"]')?.value === "member", undefined, { timeout: 5_000 })
          assert.deepStrictEqual((await ok("GET", `/v1/users/${mia.user_id}`)).roles, ["member"], "a no changes nothing")

          // The secret: Rotate asks, naming the 24 hours; keeping it shows no secret and changes nothing.
          await page.goto(`${server.url}/webhooks`)
          const rotate = page.getByRole("button", { name: `Rotate secret: ${url}` })
          await rotate.click()
          const rotation = page.getByRole("dialog", { name: "Rotate this webhook's secret?" })
          await rotation.waitFor()
          assert.include(await rotation.innerText(), "24 hours")
          assert.deepStrictEqual(await Axe.serious(page), [], `rotate dialog at ${width}`)
          await shoot(page, `rotate-confirm-${width}`)
          await rotation.getByRole("button", { name: "Cancel" }).click()
          await rotation.waitFor({ state: "detached" })
          assert.strictEqual(await page.locator("#webhook-secret").count(), 0, "no new secret shown")
          assert.strictEqual((await ok("GET", `/v1/webhooks/${hook.webhook_id}`)).previous_secret_expires_at, null, "not rotated")
          await context.close()
          assert.deepStrictEqual(errors(), [])
        }
        // Yes goes ahead: once at the end, so each width starts from the same state.
        const { context, page } = await consolePage(browser, server.url, { token: admin })
        await page.goto(`${server.url}/directory`)
        await page.getByLabel("Role: Mia Member").selectOption("admin")
        await page.getByRole("dialog", { name: "Make Mia Member an admin?" }).getByRole("button", { name: "Make admin" }).click()
        await page.getByText("Mia Member is now: Admin.").waitFor()
        assert.deepStrictEqual((await ok("GET", `/v1/users/${mia.user_id}`)).roles, ["admin"])
        await page.goto(`${server.url}/webhooks`)
        await page.getByRole("button", { name: `Rotate secret: ${url}` }).click()
        await page.getByRole("dialog", { name: "Rotate this webhook's secret?" }).getByRole("button", { name: "Rotate secret" }).click()
        await page.getByText("Secret rotated. Copy the new secret now; a tenant admin can reveal it again on the webhook's page (each reveal is recorded in the audit log).").waitFor()
        assert.isNotNull((await ok("GET", `/v1/webhooks/${hook.webhook_id}`)).previous_secret_expires_at)
        await context.close()
      })
    }).pipe(Effect.scoped))
})
