/**
 * The whole analytics service inside an Express 5 app, under `/analytics`,
 * with one call: the API, the console, the share and embed pages, and the
 * background work (exports, webhook deliveries, scheduled exports) in this
 * process. Configured by the host's own environment variables: PGlite in
 * `ANALYTICS_DATA_DIR` (default `.data`), or PostgreSQL when `DATABASE_URL`
 * is set; `SMTP_URL` for mail; `PUBLIC_BASE_URL` is the mounted URL
 * (`https://example.com/analytics`).
 */
import { fileURLToPath } from "node:url"
import { HostConfig, Service } from "@analytics/host"
import express from "express"
import type { AddressInfo } from "node:net"

export interface Options {
  /** The token allowed to provision tenants (`ANALYTICS_OPERATOR_TOKEN`). */
  readonly operatorToken?: string | undefined
  /** Where the service's configuration is read from; default this process's environment. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
}

export const start = async (port: number, options: Options = {}) => {
  const env = options.env ?? process.env
  // The host's variables; this app's defaults first: PostgreSQL when DATABASE_URL is set, and the mounted URL.
  const config = await HostConfig.fromEnv({
    ANALYTICS_STORE: env["DATABASE_URL"] === undefined ? "pglite" : "postgres",
    PUBLIC_BASE_URL: `http://localhost:${port}/analytics`,
    ...env,
    ...(options.operatorToken === undefined ? {} : { ANALYTICS_OPERATOR_TOKEN: options.operatorToken })
  })

  const app = express()

  // --- embedding: the whole service. Express strips the mount path, so no `prefix`;
  // PUBLIC_BASE_URL names it, so the console's links and the signed URLs include it.
  const analytics = await Service.nodeHandler({ config })
  // Mount it before any body parser: the API reads (and caps) the raw body itself.
  app.use("/analytics", analytics.handler)
  // --- end of embedding

  // The app's own routes, with its own body parsing.
  app.use(express.json())
  app.get("/", (_req, res) => void res.type("text/plain").send("Hello from the Express app; analytics at /analytics/\n"))

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
      // Stops the background work and closes the database.
      await analytics.dispose()
    }
  }
}

// Run as a program (`npm start`), not when a test imports it; `import.meta.main` is Node 24 only.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url, close } = await start(Number(process.env["PORT"] ?? 3000))
  console.log(`Listening on ${url} (analytics under ${url}/analytics/)`)
  const stop = () => void close().then(() => process.exit(0))
  process.once("SIGINT", stop)
  process.once("SIGTERM", stop)
}
