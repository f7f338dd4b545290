/**
 * Embedding the analytics API in an Express 5 app with `app.use("/analytics", …)`.
 */
import { fileURLToPath } from "node:url"
import { App } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import express from "express"
import type { AddressInfo } from "node:net"

export interface Options {
  /** The token allowed to provision tenants; provisioning is off without one. */
  readonly operatorToken?: string | undefined
}

export const start = async (port: number, options: Options = {}) => {
  const app = express()

  // --- embedding: Express strips the mount path (req.url becomes "/healthz"), so no `prefix`.
  const api = await App.nodeHandler({
    stores: MemoryStores.layer,
    publicBaseUrl: process.env["PUBLIC_BASE_URL"] ?? `http://localhost:${port}/analytics`,
    operatorToken: options.operatorToken ?? process.env["ANALYTICS_OPERATOR_TOKEN"]
  })
  // Mount it before any body parser: the API reads (and caps) the raw body itself.
  app.use("/analytics", api.handler)
  // --- end of embedding

  // The app's own routes, with its own body parsing.
  app.use(express.json())
  app.get("/", (_req, res) => void res.type("text/plain").send("Hello from the Express app\n"))
  app.post("/echo", (req, res) => void res.json({ youSent: req.body }))

  const server = app.listen(port)
  await new Promise<void>((resolve, reject) => server.once("listening", resolve).once("error", reject))
  const url = `http://localhost:${(server.address() as AddressInfo).port}`
  return {
    url,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
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
