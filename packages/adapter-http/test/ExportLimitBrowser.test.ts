/**
 * The UI-initiated export limit for real, in headless Chromium (decisions
 * 0009, 0015, 0022): a person signed in to the console starts exports
 * through their session until the service refuses one (30 a minute per
 * user, the UI class), then presses Export in the dialog: the 429 the
 * server really answers is shown in words with its `Retry-After`, the
 * button holds and counts down, and once the wait is over the dialog says
 * so and the next export starts. An export with the tenant's API token in
 * the same minute is not refused: the classes are apart.
 *
 * Time: the limit is the service's own (30, a token bucket refilling one
 * every 2 seconds), so the rate-limit store this server is given sees a
 * clock the test holds still while the bucket is emptied (else refills
 * between requests would make the count depend on the machine's speed)
 * and moves by the `Retry-After` the page was told. Everything else is
 * real: the Limiter, the memory store's arithmetic, HTTP, the cookie, CSRF,
 * the page's countdown in the browser's own time.
 * Axe clean; screenshots at 1280 and 390 px (`VIEWER_SHOTS=<dir>`).
 */
import { RateLimitStore } from "@analytics/core"
import { Axe, Chromium } from "@analytics/testing/browser"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { consolePage } from "./ConsoleSignIn.ts"
import { setupWith } from "./ReportViewerFixture.ts"

const shots = process.env.VIEWER_SHOTS

const shoot = async (page: Page, name: string) => {
  if (shots === undefined) return
  mkdirSync(shots, { recursive: true })
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: false })
}

/** A memory rate-limit store whose clock the test may hold (`heldAt`) and move; real time when not held. */
const heldClockStore = () => {
  const clock = { heldAt: undefined as number | undefined }
  const memory = RateLimitStore.makeMemory()
  const at = (now: number) => clock.heldAt ?? now
  const store: RateLimitStore.RateLimitStore["Service"] = {
    consume: (quotas, now) => memory.consume(quotas, at(now)),
    refund: (quotas, countedAt, now) => memory.refund(quotas, countedAt, at(now)),
    acquireSlot: (key, lease, capacity, now, expiresAt) => memory.acquireSlot(key, lease, capacity, at(now), at(now) + (expiresAt - now)),
    releaseSlot: memory.releaseSlot
  }
  return { clock, layer: Layer.succeed(RateLimitStore.RateLimitStore, store) }
}

const limitCode = "rate-limit/exports-exceeded"

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("the UI export limit in the console, in headless Chromium"), () => {
  for (const width of [1280, 390]) {
    it.live(`${width} px: a session exhausts the UI class; the dialog says the 429 in words with its wait, holds Export, recovers; a token export is not refused`, () =>
      Effect.gen(function*() {
        const { clock, layer } = heldClockStore()
        const { admin, reportId, server, workspaceId } = yield* setupWith({ atOwnUrl: true, server: { rateLimitStore: layer } })
        const browser = yield* Chromium.launch
        yield* Effect.promise(async () => {
          const { context, page } = await consolePage(browser, server.url, { token: admin }, { width })
          // The loop's 429 and the dialog's are refusals the page expects; nothing else may fail.
          const errors = Chromium.watchErrorsExcept(page, (path, status) => path.endsWith("/export") && status === 429)
          await page.goto(`${server.url}/w/${workspaceId}/reports/${reportId}`)
          const open = page.getByRole("button", { name: "Export Sales overview" })
          await open.waitFor({ timeout: 20_000 })

          // The clock held: the person's exports through the page's own session (cookie and CSRF token) until one is refused.
          clock.heldAt = Date.now()
          const loop = await page.evaluate(async ({ reportId, code }) => {
            const session = await (await fetch("api/session")).json()
            const statuses: Array<number> = []
            for (let i = 0; i < 40; i++) {
              const answer = await fetch(`v1/reports/${reportId}/export`, {
                method: "POST",
                headers: { "content-type": "application/json", "x-csrf-token": session.csrf_token },
                body: JSON.stringify({ format: "csv", visual_id: "revenue_by_region" })
              })
              statuses.push(answer.status)
              if (answer.status !== 202) {
                const problem = await answer.json()
                return { statuses, code: problem.code === code ? code : problem.code, retryAfter: answer.headers.get("retry-after") }
              }
            }
            return { statuses, code: "", retryAfter: null }
          }, { reportId, code: limitCode })
          assert.deepStrictEqual(loop.statuses, [...Array(30).fill(202), 429], "30 a minute per user, then refused")
          assert.strictEqual(loop.code, limitCode)

          // The dialog's Export now meets the same refusal: in words, with the wait the service gave.
          await open.click()
          const dialog = page.locator("analytics-export-button dialog").first()
          await dialog.getByRole("radio", { name: "CSV: one visual's rows" }).check()
          const refusal = page.waitForResponse((r) => r.url().endsWith(`/v1/reports/${reportId}/export`) && r.request().method() === "POST")
          await dialog.getByRole("button", { name: "Export", exact: true }).click()
          const refused = await refusal
          assert.strictEqual(refused.status(), 429)
          const retryAfter = Number(refused.headers()["retry-after"])
          assert.isTrue(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`)
          const alert = dialog.getByRole("alert")
          await alert.waitFor()
          const text = await alert.innerText()
          assert.include(text, "Export limit reached")
          assert.include(text, "You have started 30 exports in the last minute")
          assert.include(text, `30 exports a minute per person: wait ${retryAfter} second`)
          const held = dialog.getByRole("button", { name: /^Export again in \d+ s$/ })
          assert.isTrue(await held.isDisabled(), "Export holds while the wait lasts")
          assert.deepStrictEqual(await Axe.serious(page), [], "limit reached")
          await shoot(page, `export-limit-real-${width}`)

          // The same minute, with the tenant's API token: the API class, untouched by the console's exports.
          const byToken = await Effect.runPromise(server.request("POST", `/v1/reports/${reportId}/export`, {
            token: admin,
            body: { format: "csv", visual_id: "revenue_by_region" }
          }))
          assert.strictEqual(byToken.status, 202, byToken.text)

          // The wait passes (the store's clock by the Retry-After; the page counts in its own time): the dialog says so, Export starts.
          clock.heldAt! += retryAfter * 1000
          await dialog.getByText("The wait is over: you can export again.").waitFor({ timeout: (retryAfter + 5) * 1000 })
          assert.strictEqual(await dialog.getByRole("alert").count(), 0, "the refusal gives way")
          const again = dialog.getByRole("button", { name: "Export", exact: true })
          assert.isTrue(await again.isEnabled())
          const accepted = page.waitForResponse((r) => r.url().endsWith(`/v1/reports/${reportId}/export`) && r.request().method() === "POST")
          await again.click()
          assert.strictEqual((await accepted).status(), 202, "one export again after the wait")
          await dialog.getByRole("button", { name: "Cancel export" }).click()
          await dialog.getByText("Export canceled.").waitFor()
          clock.heldAt = undefined
          assert.deepStrictEqual(errors(), [], "only the two refusals, each told in words or counted")
          await context.close()
        })
      }).pipe(Effect.scoped), { timeout: 120_000 })
  }
})
