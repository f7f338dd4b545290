/**
 * The whole service embedded with one call (`Service.nodeHandler` /
 * `Service.webHandler`), in this process, behind a plain `node:http` server
 * under `/analytics`: the API, the console with its assets under the mount
 * path, and the background work, from the host's configuration read by
 * `HostConfig.fromEnv`.
 */
import { HostConfig, Service } from "@analytics/host"
import { until } from "@analytics/testing"
import { randomUUID } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, describe, expect, it } from "vitest"

const cleanups: Array<() => Promise<void>> = []
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
})

/** A `node:http` server on a free port whose requests go to `handler` once it is set; its URL. */
const listen = async () => {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined
  const server: Server = createServer((req, res) => handler === undefined ? res.writeHead(503).end() : handler(req, res))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  cleanups.push(() => new Promise((resolve) => server.close(() => resolve())))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    use: (h: (req: IncomingMessage, res: ServerResponse) => void) => void (handler = h)
  }
}

/** A demo service on the memory store, mounted under `/analytics`; its URL and admin token. */
const embedded = async (options: { readonly workers?: boolean } = {}) => {
  const server = await listen()
  const token = `embed-${randomUUID()}`
  const config = await HostConfig.fromEnv({
    ANALYTICS_STORE: "memory",
    ANALYTICS_BOOTSTRAP_TOKEN: token,
    ANALYTICS_DEMO: "1",
    PUBLIC_BASE_URL: `${server.url}/analytics`,
    LOG_LEVEL: "warn"
  })
  const service = await Service.nodeHandler({ config, prefix: "/analytics", ...options })
  cleanups.push(service.dispose)
  server.use((req, res) => service.handler(req, res, () => void res.writeHead(200).end("the app's own page")))
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}/analytics${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, body: await response.json() as any }
  }
  const [workspace] = (await api("GET", "/v1/workspaces")).body.data
  const [report] = (await api("GET", `/v1/reports?workspace_id=${workspace.workspace_id}`)).body.data
  return { url: server.url, api, report }
}

describe("Service: the whole service embedded in one call", () => {
  it("an export requested through the mounted API is run by the workers in process and downloads under the mount path", async () => {
    const { api, report, url } = await embedded()
    const queued = await api("POST", `/v1/reports/${report.report_id}/export`, { format: "csv", visual_id: report.pages[0].visuals[0].id })
    expect(queued.status).toBe(202)
    const job = await until(async () => (await api("GET", `/v1/jobs/${queued.body.job_id}`)).body, (job) => job.status === "succeeded", {
      what: "the export succeeded",
      timeoutMillis: 20_000,
      intervalMillis: 200
    })
    const result = await api("GET", `/v1/jobs/${job.job_id}/result`)
    expect(result.body.url.startsWith(`${url}/analytics/v1/jobs/${job.job_id}/file?`)).toBe(true)
    const file = await fetch(result.body.url)
    expect(file.status).toBe(200)
    expect((await file.text()).split("\r\n").length).toBeGreaterThan(1)
  }, 60_000)

  it("the console and its assets answer under the mount path; paths outside it go to the app", async () => {
    const { url } = await embedded()
    const page = await fetch(`${url}/analytics/`)
    expect(page.status).toBe(200)
    const html = await page.text()
    // Its links and assets resolve against the mount path.
    expect(html).toContain(`<base href="/analytics/">`)
    const assets = [...html.matchAll(/(?:src|href)="(assets\/[^"]+\.js)"/g)].map((m) => m[1]!)
    expect(assets.length).toBeGreaterThan(0)
    for (const asset of assets) expect((await fetch(new URL(asset, `${url}/analytics/`))).status, asset).toBe(200)
    expect(await (await fetch(`${url}/elsewhere`)).text()).toBe("the app's own page")
  }, 60_000)

  it("with workers: false an export waits queued for a worker process", async () => {
    const { api, report } = await embedded({ workers: false })
    const queued = await api("POST", `/v1/reports/${report.report_id}/export`, { format: "csv", visual_id: report.pages[0].visuals[0].id })
    expect(queued.status).toBe(202)
    await new Promise((resolve) => setTimeout(resolve, 3_000))
    expect((await api("GET", `/v1/jobs/${queued.body.job_id}`)).body.status).toBe("queued")
  }, 60_000)

  it("webHandler serves the same service to fetch-style frameworks", async () => {
    const token = `embed-${randomUUID()}`
    const config = await HostConfig.fromEnv({ ANALYTICS_STORE: "memory", ANALYTICS_BOOTSTRAP_TOKEN: token, PUBLIC_BASE_URL: "http://app.test/analytics", LOG_LEVEL: "warn" })
    const service = await Service.webHandler({ config, prefix: "/analytics" })
    cleanups.push(service.dispose)
    const health = await service.handler(new Request("http://app.test/analytics/healthz"))
    expect(await health.json()).toEqual({ status: "ok", version: "0.1.0" })
    const workspaces = await service.handler(new Request("http://app.test/analytics/v1/workspaces", { headers: { authorization: `Bearer ${token}` } }))
    expect(workspaces.status).toBe(200)
    expect((await service.handler(new Request("http://app.test/elsewhere"))).status).toBe(404)
    const console = await service.handler(new Request("http://app.test/analytics/"))
    expect(await console.text()).toContain(`<base href="/analytics/">`)
  }, 60_000)

  it("HostConfig.fromEnv reads the host's variables and rejects with every problem", async () => {
    const config = await HostConfig.fromEnv({ ANALYTICS_STORE: "memory", PUBLIC_BASE_URL: "https://example.com/analytics/", ANALYTICS_EXPORT_WORKER: "0" })
    expect(config.publicBaseUrl).toBe("https://example.com/analytics")
    expect(config.exports.worker).toBe(false)
    const refused = await HostConfig.fromEnv({ ANALYTICS_STORE: "nowhere", PORT: "x" }).catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(HostConfig.InvalidConfig)
    const problems = (refused as HostConfig.InvalidConfig).problems
    expect(problems.some((p) => p.startsWith("ANALYTICS_STORE"))).toBe(true)
    expect(problems.some((p) => p.startsWith("PORT"))).toBe(true)
  })
})
