/**
 * Embedding the analytics API in a Fastify 5 app through `@fastify/middie`.
 */
import { fileURLToPath } from "node:url"
import { App } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import middie from "@fastify/middie"
import Fastify from "fastify"
import type { AddressInfo } from "node:net"

export interface Options {
  /** The token allowed to provision tenants; provisioning is off without one. */
  readonly operatorToken?: string | undefined
}

export const start = async (port: number, options: Options = {}) => {
  const app = Fastify()

  // --- embedding: middie runs (req, res) middleware in the onRequest hook, before Fastify
  // parses any body, so the raw stream reaches the API unread; it strips "/analytics" from req.url.
  const api = await App.nodeHandler({
    stores: MemoryStores.layer,
    publicBaseUrl: process.env["PUBLIC_BASE_URL"] ?? `http://localhost:${port}/analytics`,
    operatorToken: options.operatorToken ?? process.env["ANALYTICS_OPERATOR_TOKEN"]
  })
  await app.register(middie)
  app.use("/analytics", api.handler)
  app.addHook("onClose", () => api.dispose())
  // --- end of embedding

  // The app's own routes, with Fastify's own JSON parsing.
  app.get("/", () => "Hello from the Fastify app\n")
  app.post("/echo", (request) => ({ youSent: request.body }))

  await app.listen({ port, host: "localhost" })
  const url = `http://localhost:${(app.server.address() as AddressInfo).port}`
  return { url, close: () => app.close() }
}

// Run as a program (`npm start`), not when a test imports it; `import.meta.main` is Node 24 only.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, close } = await start(Number(process.env["PORT"] ?? 3000))
  console.log(`Listening on ${url} (analytics API under ${url}/analytics)`)
  process.once("SIGINT", () => void close())
  process.once("SIGTERM", () => void close())
}
