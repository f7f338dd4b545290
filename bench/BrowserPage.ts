/**
 * What the browser benchmarks (`bench/console`, `bench/viewer`) share: a
 * fresh page that counts its bytes on the wire with the cache off, and a
 * static server for the floor they compare against.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { Browser, BrowserContext, Page } from "playwright-core"

/** A page in its own context, cache off, and the encoded bytes of every response so far. */
export interface MeasuredPage {
  readonly page: Page
  readonly bytes: () => number
  /** Every page error and console error so far. */
  readonly errors: ReadonlyArray<string>
}

/**
 * Runs `use` on a fresh page `width` CSS pixels wide (signed in by `signIn`
 * first, when given) with the cache off, then closes its context.
 */
export const withMeasuredPage = async <A>(
  browser: Browser,
  width: number,
  use: (measured: MeasuredPage) => Promise<A>,
  signIn?: (context: BrowserContext) => Promise<void>
): Promise<A> => {
  const context = await browser.newContext({ viewport: { width, height: 900 } })
  try {
    if (signIn !== undefined) await signIn(context)
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send("Network.enable")
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true })
    let bytes = 0
    cdp.on("Network.loadingFinished", (event) => (bytes += event.encodedDataLength))
    const errors: Array<string> = []
    page.on("console", (message) => message.type() === "error" && errors.push(message.text()))
    page.on("pageerror", (error) => errors.push(error.message))
    return await use({ page, bytes: () => bytes, errors })
  } finally {
    await context.close()
  }
}

/** Serves fixed HTML documents by path on loopback; any other path answers 204 (the favicon, quietly). */
export const serveStatic = (documents: ReadonlyMap<string, string>) =>
  new Promise<{ readonly url: string; readonly server: Server }>((resolve) => {
    const server = createServer((request, response) => {
      const body = documents.get(new URL(request.url ?? "/", "http://x").pathname)
      if (body === undefined) return void response.writeHead(204).end()
      response.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(body)
    })
    server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }))
  })
