/**
 * An app's page embedding a report that stays alive (docs/guides/embedding.md,
 * "Keeping an embed alive"): `node:http`, no dependency.
 *
 * - `GET /` is the page (src/page.html): it includes the service's
 *   `/embed.js` and calls `Analytics.embed(…, { fetchToken })`;
 * - `POST /embed-token` mints an embed token for this page's origin with
 *   the service's API (`mintEmbedToken`, the server sample to copy): the
 *   API token stays on this server, the browser only ever holds embed
 *   tokens, each for a few minutes.
 *
 * Run it with the service's URL, an API token allowed to share the report,
 * and an embed grant's id (POST /v1/sharing/grants with principal_type "embed"):
 *
 *     ANALYTICS_URL=http://localhost:8080 ANALYTICS_TOKEN=… GRANT_ID=… PORT=3000 node src/main.ts
 *
 * In your app, decide here who the viewer is (your own session) and give
 * their `attributes` (row-level security) and locked `params`.
 */
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

/** What minting needs: the service, an API token that may manage the grant, the grant, and this page's origin. */
export interface MintOptions {
  /** The service's public URL, with its mount path: `https://analytics.example.com`. */
  readonly analyticsUrl: string
  /** An API token of a member who may manage the grant (its maker, or an admin). Keep it on the server. */
  readonly apiToken: string
  /** The embed grant's id. */
  readonly grantId: string
  /** The origin of the page that shows the embed (`https://app.example.com`): the only one that may frame it and renew it. */
  readonly origin: string
  /** How long each token lives, in seconds: at most (and by default) 600. */
  readonly lifetimeSeconds?: number
  /** The viewer's attributes, which the dataset's row-level security for the role `embed` reads. */
  readonly attributes?: Readonly<Record<string, string | number | boolean>>
  /** Filters locked to one value each. */
  readonly params?: Readonly<Record<string, string | number | boolean>>
}

/** The server sample: one embed token for `options.origin`, from the service's API. */
export const mintEmbedToken = async (options: MintOptions): Promise<{ readonly token: string; readonly expires_at: string }> => {
  const response = await fetch(`${options.analyticsUrl}/v1/sharing/grants/${encodeURIComponent(options.grantId)}/embed-tokens`, {
    method: "POST",
    headers: { authorization: `Bearer ${options.apiToken}`, "content-type": "application/json" },
    body: JSON.stringify({
      origin: options.origin,
      ...(options.lifetimeSeconds === undefined ? {} : { lifetime_seconds: options.lifetimeSeconds }),
      ...(options.attributes === undefined ? {} : { attributes: options.attributes }),
      ...(options.params === undefined ? {} : { params: options.params })
    })
  })
  const body = await response.json() as { token?: string; expires_at?: string; detail?: string }
  if (!response.ok || body.token === undefined || body.expires_at === undefined) {
    throw new Error(`The service minted no embed token (${response.status}): ${body.detail ?? "no detail"}`)
  }
  return { token: body.token, expires_at: body.expires_at }
}

/** The page, for the service at `analyticsUrl`. */
export const page = (analyticsUrl: string): string =>
  readFileSync(new URL("page.html", import.meta.url), "utf8").replaceAll("ANALYTICS_URL", analyticsUrl)

/** What the app needs: the service, an API token, the grant; `origin` when it is served under another name than it listens on. */
export interface AppOptions extends Omit<MintOptions, "origin"> {
  readonly origin?: string
}

/** Starts the app on `port` (0: any free one); resolves with its URL. */
export const start = (port: number, options: AppOptions): Promise<{ readonly url: string; readonly server: Server }> =>
  new Promise((resolve) => {
    let origin = options.origin ?? ""
    const server = createServer((request, response) => {
      if (request.method === "POST" && request.url === "/embed-token") {
        mintEmbedToken({ ...options, origin }).then(
          (minted) => {
            response.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" })
            response.end(JSON.stringify(minted))
          },
          (error: Error) => {
            response.writeHead(502, { "content-type": "application/problem+json" })
            response.end(JSON.stringify({ title: "No embed token", status: 502, detail: error.message }))
          }
        )
        return
      }
      if (request.method === "GET" && (request.url === "/" || request.url?.startsWith("/?"))) {
        response.writeHead(200, { "content-type": "text/html; charset=utf-8" })
        response.end(page(options.analyticsUrl))
        return
      }
      response.writeHead(404, { "content-type": "text/plain; charset=utf-8" })
      response.end("Not found")
    })
    server.listen(port, () => {
      const url = `http://localhost:${(server.address() as AddressInfo).port}`
      origin ||= url
      resolve({ url, server })
    })
  })

if (import.meta.main) {
  const env = (name: string) => {
    const value = process.env[name]
    if (value === undefined || value === "") throw new Error(`Set ${name}`)
    return value
  }
  const { url } = await start(Number(process.env.PORT ?? 3000), {
    analyticsUrl: env("ANALYTICS_URL").replace(/\/$/, ""),
    apiToken: env("ANALYTICS_TOKEN"),
    grantId: env("GRANT_ID"),
    ...(process.env.ORIGIN === undefined ? {} : { origin: process.env.ORIGIN })
  })
  console.log(`Open ${url}`)
}
