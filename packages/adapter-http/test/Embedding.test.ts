import { App } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import { afterEach, describe, expect, it } from "vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

const servers: Array<Server> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
})

const listen = async (handler: Parameters<typeof createServer>[1]) => {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe("embedding handlers", () => {
  it("the Node handler serves under its prefix, hands other requests to next, and refuses after dispose", async () => {
    const api = await App.nodeHandler({
      stores: MemoryStores.layer,
      publicBaseUrl: "https://example.com/analytics",
      prefix: "/analytics"
    })
    const url = await listen((req, res) =>
      api.handler(req, res, () => res.writeHead(200, { "content-type": "text/plain" }).end("the app's own route")))
    expect((await fetch(`${url}/analytics/healthz`)).status).toBe(200)
    const own = await fetch(`${url}/somewhere/else`)
    expect(await own.text()).toBe("the app's own route")

    const openapi = await (await fetch(`${url}/analytics/v1/openapi.json`)).json()
    expect(openapi.servers).toEqual([{ url: "https://example.com/analytics" }])

    await api.dispose()
    const after = await fetch(`${url}/analytics/healthz`)
    expect(after.status).toBe(503)
    expect(after.headers.get("content-type")).toBe("application/problem+json")
    expect((await after.json()).code).toBe("service/unavailable")
  })

  it("the Node handler answers a problem for requests outside its prefix when there is no next", async () => {
    const api = await App.nodeHandler({ stores: MemoryStores.layer, publicBaseUrl: "http://x", prefix: "/analytics" })
    const url = await listen((req, res) => api.handler(req, res))
    const outside = await fetch(`${url}/other`)
    expect(outside.status).toBe(404)
    expect((await outside.json()).code).toBe("route/not-found")
    await api.dispose()
  })

  it("the fetch-style handler serves under its prefix and refuses after dispose", async () => {
    const api = App.webHandler({ stores: MemoryStores.layer, publicBaseUrl: "http://x/a", prefix: "/a" })
    const health = await api.handler(new Request("http://x/a/healthz"))
    expect(health.status).toBe(200)
    expect((await health.json()).status).toBe("ok")
    const unknown = await api.handler(new Request("http://x/a/v1/nothing"))
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).code).toBe("route/not-found")
    const outside = await api.handler(new Request("http://x/b/healthz"))
    expect(outside.status).toBe(404)
    expect(outside.headers.get("content-type")).toBe("application/problem+json")
    await api.dispose()
    const after = await api.handler(new Request("http://x/a/healthz"))
    expect(after.status).toBe(503)
  })
})
