/**
 * The API reference page (`/v1/docs`, decision 0001): drawn by Scalar in
 * headless Chromium, offline, under its strict policy: no inline script
 * (Scalar's bundle and its start are files of this origin, named by their
 * hash), a CSP with `script-src 'self'` and `frame-ancestors 'none'`,
 * `X-Frame-Options: DENY`, `nosniff` and no referrer. The trust probe found
 * it serving a 3.6 MB inline third-party script with none of those.
 */
import { Chromium } from "@analytics/testing/browser"
import { start } from "./TestServer.ts"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"

const shots = process.env.VIEWER_SHOTS

describe("the API reference page's headers", () => {
  it.live("no inline script; a strict CSP, no framing, nosniff, no referrer; its scripts are files of their own", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const page = yield* Effect.promise(() => fetch(`${server.url}/v1/docs`))
      const html = yield* Effect.promise(() => page.text())
      assert.strictEqual(page.status, 200)
      assert.strictEqual(page.headers.get("content-type"), "text/html; charset=utf-8")
      const csp = page.headers.get("content-security-policy") ?? ""
      const directives = new Map(csp.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]))
      assert.deepStrictEqual(directives.get("script-src"), ["'self'"], csp)
      assert.deepStrictEqual(directives.get("default-src"), ["'none'"], csp)
      assert.deepStrictEqual(directives.get("frame-ancestors"), ["'none'"], csp)
      assert.deepStrictEqual(directives.get("base-uri"), ["'none'"], csp)
      assert.strictEqual(page.headers.get("x-frame-options"), "DENY")
      assert.strictEqual(page.headers.get("x-content-type-options"), "nosniff")
      assert.strictEqual(page.headers.get("referrer-policy"), "no-referrer")
      // Every script is a file: no inline code, and the page is small.
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
      assert.lengthOf(scripts, 2)
      for (const [, attributes, body] of scripts) {
        assert.match(attributes!, /\ssrc="docs\/[a-z]+-[0-9a-f]{16}\.js"/)
        assert.strictEqual(body, "")
      }
      assert.isBelow(html.length, 2_000)
      for (const [, attributes] of scripts) {
        const src = /src="([^"]+)"/.exec(attributes!)![1]!
        const file = yield* Effect.promise(() => fetch(new URL(src, `${server.url}/v1/docs`)))
        assert.strictEqual(file.status, 200, src)
        assert.strictEqual(file.headers.get("content-type"), "text/javascript; charset=utf-8")
        assert.strictEqual(file.headers.get("x-content-type-options"), "nosniff")
        assert.strictEqual(file.headers.get("cache-control"), "public, max-age=31536000, immutable")
        assert.isAbove((yield* Effect.promise(() => file.text())).length, 100)
      }
      const unknown = yield* Effect.promise(() => fetch(`${server.url}/v1/docs/nothing.js`))
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual(unknown.headers.get("content-type"), "application/problem+json")
    }).pipe(Effect.scoped))
})

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("the API reference page in headless Chromium"), () => {
  it.live("renders every endpoint of the contract, offline, under its CSP", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const browser = yield* Chromium.launch
      const result = yield* Effect.promise(async () => {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
        const external: Array<string> = []
        page.on("request", (request) => {
          if (!request.url().startsWith(server.url) && !request.url().startsWith("data:")) external.push(request.url())
        })
        const errors: Array<string> = []
        page.on("pageerror", (error) => errors.push(error.message))
        // What the policy refused (Scalar feature-tests `new Function`, which the policy refuses on purpose).
        const refused: Array<string> = []
        page.on("console", (message) => {
          if (message.type() === "error" && /Content Security Policy/.test(message.text())) refused.push(message.text())
        })
        await page.goto(`${server.url}/v1/docs`, { waitUntil: "load" })
        await page.getByText("/v1/workspaces").first().waitFor({ timeout: 20_000 })
        const text = await page.locator("body").innerText()
        if (shots !== undefined) {
          mkdirSync(shots, { recursive: true })
          await page.screenshot({ path: join(shots, "reference-page.png") })
        }
        return { title: await page.title(), text, external, errors, refused }
      })
      assert.strictEqual(result.title, "Analytics Service API")
      for (const path of ["/v1/workspaces", "/v1/tenants", "/healthz", "/api/config/public"]) {
        assert.include(result.text, path)
      }
      assert.deepStrictEqual(result.errors, [])
      assert.deepStrictEqual(result.external, [], "the page loads nothing from outside the service")
      // Only string evaluation is refused: every script and style the page needs is allowed.
      for (const message of result.refused) assert.match(message, /unsafe-eval|evaluate a string/, message)
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
