import { start } from "@analytics/testing/http"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { chromium } from "playwright-core"

/** Debian's Chromium (`apt-get install chromium`); CI installs it. */
const executablePath = "/usr/bin/chromium"
const available = existsSync(executablePath)
if (!available && process.env.REQUIRE_CHROMIUM === "1") throw new Error(`REQUIRE_CHROMIUM=1 but ${executablePath} is missing`)

const suite = available ? describe : describe.skip

suite(`the API reference page in headless Chromium${available ? "" : " (skipped: no /usr/bin/chromium)"}`, () => {
  it.live("renders every endpoint of the contract, offline", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const browser = yield* Effect.acquireRelease(
        Effect.promise(() =>
          chromium.launch({
            executablePath,
            args: [
              "--no-sandbox",
              "--disable-gpu",
              "--disable-quic",
              "--no-first-run",
              "--disable-background-networking",
              "--disable-component-update",
              "--disable-sync"
            ]
          })
        ),
        (browser) => Effect.promise(() => browser.close())
      )
      const result = yield* Effect.promise(async () => {
        const page = await browser.newPage()
        const external: Array<string> = []
        page.on("request", (request) => {
          if (!request.url().startsWith(server.url) && !request.url().startsWith("data:")) external.push(request.url())
        })
        const errors: Array<string> = []
        page.on("pageerror", (error) => errors.push(error.message))
        await page.goto(`${server.url}/v1/docs`, { waitUntil: "load" })
        await page.getByText("/v1/workspaces").first().waitFor({ timeout: 20_000 })
        const text = await page.locator("body").innerText()
        return { title: await page.title(), text, external, errors }
      })
      assert.strictEqual(result.title, "Analytics Service API")
      for (const path of ["/v1/workspaces", "/v1/tenants", "/healthz", "/api/config/public"]) {
        assert.include(result.text, path)
      }
      assert.deepStrictEqual(result.errors, [])
      assert.deepStrictEqual(result.external, [], "the page loads nothing from outside the service")
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
