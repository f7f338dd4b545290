/**
 * Embedding the analytics API in a plain `node:http` server: the API answers
 * under `/analytics`, the app keeps every other path.
 */
import { fileURLToPath } from "node:url"
import { App } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

export interface Options {
  /** The token allowed to provision tenants; provisioning is off without one. */
  readonly operatorToken?: string | undefined
}

export const start = async (port: number, options: Options = {}) => {
  // --- embedding: build the API once, as a Node (req, res) handler under /analytics
  const api = await App.nodeHandler({
    stores: MemoryStores.layer, // or a PostgreSQL layer from @analytics/adapter-postgres
    publicBaseUrl: process.env["PUBLIC_BASE_URL"] ?? `http://localhost:${port}/analytics`,
    prefix: "/analytics", // the handler strips it; it answers 404 to anything outside it
    operatorToken: options.operatorToken ?? process.env["ANALYTICS_OPERATOR_TOKEN"]
  })
  const isApi = (url = "/") => /^\/analytics(?:[/?]|$)/.test(url)
  // --- end of embedding

  const server = createServer((req, res) => {
    if (isApi(req.url)) return api.handler(req, res)
    // The app's own routes.
    if (req.method === "GET" && req.url === "/") {
      res.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end("Hello from the host app\n")
      return
    }
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found\n")
  })
  await new Promise<void>((resolve) => server.listen(port, resolve))
  const url = `http://localhost:${(server.address() as AddressInfo).port}`
  return {
    url,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await api.dispose() // releases the stores and in-flight request fibers
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
