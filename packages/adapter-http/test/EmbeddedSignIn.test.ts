/**
 * The embedded channel (decision 0022): an embedding app mounts the service
 * under /analytics beside its own pages, and its own sign-in (its cookie)
 * says who the user is through `Authenticator.authenticateRequest`. Over
 * real HTTP, through a tiny node:http app with a login route of its own:
 * its cookie opens `/analytics/v1/workspaces`, counted against the tenant;
 * `GET /analytics/api/session` gives the embedded CSRF token, which every
 * change needs, per user, from the app's own origin; bearer tokens work as
 * before.
 */
import { App } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import { Authenticator, Errors, Principal, ServiceSecrets, type Tenant, Tenants } from "@analytics/core"
import { Context, Effect, Layer, Option } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

const servers: Array<Server> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))))
})

/**
 * The embedding app over `stores`: its own login (`/login?user=`, an admin
 * of `tenantId`), its own 404, and the service under /analytics.
 */
const embeddedApp = async (stores: Context.Context<any>, tenantId: string) => {
  // The embedding app's own sessions: its cookie names a session, the session a user of the tenant.
  const appSessions = new Map<string, { readonly userId: string; readonly roles: ReadonlyArray<string> }>()
  const authenticator = Layer.effect(
    Authenticator.Authenticator,
    Effect.map(Authenticator.Authenticator, (builtIn) =>
      Authenticator.Authenticator.of({
        authenticate: builtIn.authenticate,
        authenticateRequest: (request) =>
          Effect.sync(() => {
            const session = appSessions.get(request.cookies["app_session"] ?? "")
            return session === undefined ? undefined : new Principal.Member({
              tenantId: tenantId as Tenant.TenantId,
              userId: session.userId,
              email: `${session.userId}@host.example`,
              roles: session.roles
            })
          })
      }))
  ).pipe(Layer.provide(Authenticator.layerTokens({ operatorToken: Option.none() })))
  const api = await App.nodeHandler({
    stores: Layer.succeedContext(stores),
    publicBaseUrl: "https://app.example.com/analytics",
    prefix: "/analytics",
    authenticator
  })
  // The app: its own login, and the service under /analytics.
  const server = createServer((req, res) => {
    const login = /^\/login\?user=(\w+)$/.exec(req.url ?? "")
    if (login !== null) {
      const sid = crypto.randomUUID()
      appSessions.set(sid, { userId: login[1]!, roles: ["admin"] })
      res.writeHead(204, { "set-cookie": `app_session=${sid}; HttpOnly; SameSite=Lax; Path=/` }).end()
      return
    }
    api.handler(req, res, () => res.writeHead(404, { "content-type": "text/plain" }).end("the app's own 404"))
  })
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const signIn = async (user: string) => {
    const answer = await fetch(`${url}/login?user=${user}`)
    return answer.headers.getSetCookie()[0]!.split(";")[0]!
  }
  const call = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
    fetch(`${url}/analytics${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
  return { url, signIn, call, api }
}

describe("embedded sign-in", () => {
  it("the embedding app's cookie signs its user in; changes need the embedded CSRF token", async () => {
    const stores = await Effect.runPromise(Layer.build(MemoryStores.layer).pipe(Effect.scoped))
    const { tenant, token: adminToken } = await Effect.runPromise(
      Tenants.provision({ name: "Host app", plan: "growth" }).pipe(Effect.provideContext(stores))
    )
    const { url, signIn, call, api } = await embeddedApp(stores, tenant.tenant_id)
    expect((await call("GET", "/v1/workspaces")).status).toBe(401)
    expect((await call("GET", "/api/session")).status).toBe(401)
    const ada = await signIn("ada")
    const listed = await call("GET", "/v1/workspaces", { cookie: ada })
    expect(listed.status).toBe(200)
    // Counted against the tenant (Growth: 180 a minute), not the client address (60).
    expect(listed.headers.get("x-ratelimit-limit-burst")).toBe("180")

    const session = await call("GET", "/api/session", { cookie: ada })
    expect(session.status).toBe(200)
    const info = await session.json()
    expect(info).toMatchObject({
      user: { user_id: "ada", email: "ada@host.example", display_name: null, roles: ["admin"] },
      tenant: { tenant_id: tenant.tenant_id, name: "Host app" },
      via: "embedded",
      idle_expires_at: null,
      expires_at: null
    })
    expect(info.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/)

    const create = (headers: Record<string, string>) => call("POST", "/v1/workspaces", headers, { name: `W ${crypto.randomUUID()}` })
    const bob = await signIn("bob")
    const bobsToken = (await (await call("GET", "/api/session", { cookie: bob })).json()).csrf_token
    expect(bobsToken).not.toBe(info.csrf_token)
    for (
      const headers of [
        { cookie: ada },
        { cookie: ada, "x-csrf-token": bobsToken },
        { cookie: ada, "x-csrf-token": info.csrf_token, origin: "https://evil.example" },
        { cookie: ada, "x-csrf-token": info.csrf_token, "sec-fetch-site": "cross-site" }
      ]
    ) {
      const refused = await create(headers)
      expect(refused.status).toBe(403)
      expect((await refused.json()).code).toBe("auth/csrf-failed")
    }
    expect((await create({ cookie: ada, "x-csrf-token": info.csrf_token, origin: "https://app.example.com" })).status).toBe(201)
    expect((await create({ cookie: bob, "x-csrf-token": bobsToken, "sec-fetch-site": "same-origin" })).status).toBe(201)
    // A bearer token, as before: no CSRF token, and it wins over the app's cookie.
    expect((await create({ authorization: `Bearer ${adminToken}`, cookie: ada })).status).toBe(201)
    expect((await create({ authorization: "Bearer ast_not-a-token", cookie: ada })).status).toBe(401)
    // The app's own routes stay its own.
    expect(await (await fetch(`${url}/elsewhere`)).text()).toBe("the app's own 404")
    await api.dispose()
  })

  it("a first read of the CSRF secret that fails (the store down) is answered 503 and not kept", async () => {
    const built = await Effect.runPromise(Layer.build(MemoryStores.layer).pipe(Effect.scoped))
    const { tenant } = await Effect.runPromise(Tenants.provision({ name: "Host app", plan: "growth" }).pipe(Effect.provideContext(built)))
    const secrets = Context.get(built, ServiceSecrets.ServiceSecrets)
    let down = true
    const stores = Context.add(built, ServiceSecrets.ServiceSecrets, {
      getOrCreate: (name, generate) =>
        down && name === "console-csrf-hmac"
          ? Effect.fail(new Errors.StoreError({ operation: "ServiceSecrets.getOrCreate", cause: "down" }))
          : secrets.getOrCreate(name, generate)
    })
    const { signIn, call, api } = await embeddedApp(stores, tenant.tenant_id)
    const ada = await signIn("ada")
    const refused = await call("GET", "/api/session", { cookie: ada })
    expect(refused.status).toBe(503)
    expect(refused.headers.get("content-type")).toMatch(/^application\/problem\+json/)
    down = false
    const session = await call("GET", "/api/session", { cookie: ada })
    expect(session.status).toBe(200)
    expect((await session.json()).csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    await api.dispose()
  })
})
