/**
 * The browser kit's `watchErrors` in headless Chromium, against a loopback
 * server with one slow answer: a request the page's own code gives up on is
 * a failed request, one the test's navigation leaves behind (a reload while
 * it is on its way) is not.
 */
import { Chromium } from "@analytics/testing/browser"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser } from "playwright-core"

let server: Server
let base = ""
let browser: Browser | undefined

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === "/slow") return void setTimeout(() => response.writeHead(200, { "content-type": "text/plain" }).end("late"), 3_000)
    response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>t</title><p>page</p>")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  if (Chromium.available) browser = await Chromium.open()
})
afterAll(async () => {
  await browser?.close()
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe.skipIf(!Chromium.available)(Chromium.suiteTitle("Chromium.watchErrors"), () => {
  it("counts a request the page aborts, not one the test's navigation leaves behind", async () => {
    const page = await browser!.newPage()
    const errors = Chromium.watchErrors(page)
    await page.goto(`${base}/`)
    // The page's own code gives up on a request: a failure of the page.
    const started = page.waitForEvent("request", (r) => r.url().endsWith("/slow"))
    await page.evaluate(() => {
      const abort = new AbortController()
      void fetch("/slow", { signal: abort.signal }).catch(() => {})
      setTimeout(() => abort.abort(), 200)
    })
    await started
    await page.waitForEvent("requestfailed")
    assert.lengthOf(errors, 1)
    assert.match(errors[0]!, /\/slow net::ERR_ABORTED$/)
    // The test reloads while the page still waits for an answer: the page did nothing wrong.
    const again = page.waitForEvent("request", (r) => r.url().endsWith("/slow"))
    await page.evaluate(() => void fetch("/slow").catch(() => {}))
    await again
    const cut = page.waitForEvent("requestfailed")
    await page.reload()
    assert.match((await cut).failure()?.errorText ?? "", /ERR_ABORTED/)
    assert.lengthOf(errors, 1, errors.join("\n"))
    await page.close()
  }, 30_000)
})
