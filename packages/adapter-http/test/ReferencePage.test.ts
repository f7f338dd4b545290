import { Chromium } from "@analytics/testing/browser"
import { start } from "@analytics/testing/http"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("the API reference page in headless Chromium"), () => {
  it.live("renders every endpoint of the contract, offline", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const browser = yield* Chromium.launch
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
