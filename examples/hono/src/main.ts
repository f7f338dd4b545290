/**
 * Embedding the analytics API in a Hono app served by `@hono/node-server`,
 * through the fetch-style handler (`Request` -> `Response`).
 */
import { fileURLToPath } from "node:url"
import { App } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import { serve } from "@hono/node-server"
import { Hono } from "hono"
import type { AddressInfo } from "node:net"

export interface Options {
  /** The token allowed to provision tenants; provisioning is off without one. */
  readonly operatorToken?: string | undefined
}

export const start = async (port: number, options: Options = {}) => {
  const app = new Hono()

  // --- embedding: a Request -> Response handler that strips "/analytics" itself.
  const api = App.webHandler({
    stores: MemoryStores.layer,
    publicBaseUrl: process.env["PUBLIC_BASE_URL"] ?? `http://localhost:${port}/analytics`,
    prefix: "/analytics",
    operatorToken: options.operatorToken ?? process.env["ANALYTICS_OPERATOR_TOKEN"]
  })
  // Hand over the raw Request: its body stream is still unread. ("/analytics/*" also matches "/analytics".)
  app.all("/analytics/*", (c) => api.handler(c.req.raw))
  // --- end of embedding

  // The app's own routes.
  app.get("/", (c) => c.text("Hello from the Hono app\n"))
  app.post("/echo", async (c) => c.json({ youSent: await c.req.json() }))

  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const server = serve({ fetch: app.fetch, port }, () => resolve(server))
  })
  const url = `http://localhost:${(server.address() as AddressInfo).port}`
  return {
    url,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        if ("closeAllConnections" in server) server.closeAllConnections()
      })
      await api.dispose()
    }
  }
}

// Run as a program (`npm start`), not when a test imports it; `import.meta.main` is Node 24 only.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, close } = await start(Number(process.env["PORT"] ?? 3000))
  console.log(`Listening on ${url} (analytics API under ${url}/analytics)`)
  process.once("SIGINT", () => void close())
  process.once("SIGTERM", () => void close())
}
