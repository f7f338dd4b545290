import { App } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import { Authenticator, Principal, type Tenant, Tenants } from "@analytics/core"
import { Effect, Layer, Redacted } from "effect"
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

describe("a custom Authenticator", () => {
  it("may not act for a tenant that does not exist (401), and works for one that does", async () => {
    // the embedding app's own scheme: the bearer token is the tenant id itself
    const authenticator = Layer.succeed(Authenticator.Authenticator, {
      authenticate: (credential) =>
        Effect.succeed(
          new Principal.Member({ tenantId: Redacted.value(credential) as Tenant.TenantId, userId: "u-1", email: null, roles: [] })
        )
    })
    const stores = await Effect.runPromise(Layer.build(MemoryStores.layer).pipe(Effect.scoped))
    const { tenant } = await Effect.runPromise(Tenants.provision({ name: "Real", plan: "growth" }).pipe(Effect.provideContext(stores)))
    const api = App.webHandler({ stores: Layer.succeedContext(stores), publicBaseUrl: "http://x", authenticator })
    const list = (token: string) =>
      api.handler(new Request("http://x/v1/workspaces", { headers: { authorization: `Bearer ${token}` } }))
    const ghost = await list("019a0000-0000-7000-8000-00000000dead")
    expect(ghost.status).toBe(401)
    expect((await ghost.json()).code).toBe("auth/unauthenticated")
    expect((await list(tenant.tenant_id)).status).toBe(200)
    await api.dispose()
  })
})
