/**
 * The console's shell over HTTP (no browser): the same page at every
 * console URL, at the root and under a prefix (its `<base href>`), with
 * its policy (no inline script or style), its boot data (the public config
 * and how people sign in), preloads of its entry's imports and no caching;
 * 404 as before when the bundle has no console; the elements' entry under
 * its stable, revalidated name.
 */
import { App, ViewerAssets } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import * as Viewer from "@analytics/viewer/assets"
import { describe, expect, it } from "vitest"

const built = Viewer.load()
const assets = ViewerAssets.ViewerAssets.layer(built)

/** The boot data a shell page carries. */
const bootOf = (html: string) => JSON.parse(/<script type="application\/json" id="analytics-boot">([^<]*)<\/script>/.exec(html)![1]!)

describe("the console's shell", () => {
  it("answers the same page at /, /sign-in, /invitations/accept and /w/…, with its policy, boot data and preloads", async () => {
    const api = App.webHandler({
      stores: MemoryStores.layer,
      publicBaseUrl: "http://x",
      viewerAssets: assets,
      info: { branding: { name: "Acme Insights", logoUrl: "https://cdn.example.com/logo.svg", primaryColor: "#0f766e" }, features: { ask: false } }
    })
    try {
      const pages = await Promise.all(["/", "/sign-in", "/invitations/accept?token=abc", "/w/ws_1", "/w/ws_1/reports/rep_1", "/webhooks", "/webhooks/wh_1"].map(async (path) => {
        const response = await api.handler(new Request(`http://x${path}`))
        return { path, response, html: await response.text() }
      }))
      for (const { path, response, html } of pages) {
        expect(response.status, path).toBe(200)
        expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8")
        expect(response.headers.get("cache-control")).toBe("no-cache")
        expect(response.headers.get("vary")).toBe("Cookie")
        expect(response.headers.get("referrer-policy")).toBe("no-referrer")
        expect(html, path).toBe(pages[0]!.html)
      }
      const { response, html } = pages[0]!
      const policy = response.headers.get("content-security-policy")!
      expect(policy).toContain("script-src 'self';")
      expect(policy).toContain("style-src 'self';")
      expect(policy).not.toContain("unsafe-inline")
      expect(policy).not.toContain("unsafe-eval")
      expect(policy).toContain("img-src 'self' data: https://cdn.example.com;")
      expect(policy).toContain("frame-ancestors 'none'")
      // Frames: the service's own embed page only (the share dialog's preview of an embed made, decision 0027).
      expect(policy).toContain("frame-src http://x/embed http://x/embed/;")
      expect(html).toContain(`<base href="/">`)
      expect(html).toContain(`<script type="module" src="assets/${built.entries.console!.file}"></script>`)
      for (const file of built.entries.console!.closure.slice(1)) expect(html).toContain(`<link rel="modulepreload" href="assets/${file}">`)
      // Every script is this origin's module or JSON data: nothing inline runs.
      for (const tag of html.match(/<script\b[^>]*>/g)!) expect(tag).toMatch(/type="module" src=|type="application\/json"/)
      expect(html).not.toMatch(/\sstyle=|<style/)
      const publicConfig = await (await api.handler(new Request("http://x/api/config/public"))).json()
      expect(bootOf(html)).toEqual({ ...publicConfig, console: { sign_in: "link", sign_in_url: null }, session: null })
      expect(bootOf(html).features).toEqual({ ask: false })
    } finally {
      await api.dispose()
    }
  })

  it("under a prefix: <base href> is the prefix, assets and deep links are served below it; the embedded sign-in's URL is in the boot data", async () => {
    const api = App.webHandler({
      stores: MemoryStores.layer,
      publicBaseUrl: "https://example.com/analytics",
      prefix: "/analytics",
      viewerAssets: assets,
      console: { signIn: "embedded", signInUrl: "https://example.com/login" }
    })
    try {
      const deep = await api.handler(new Request("http://x/analytics/w/ws_1/reports/rep_1"))
      const html = await deep.text()
      expect(deep.status).toBe(200)
      expect(html).toContain(`<base href="/analytics/">`)
      expect(bootOf(html).console).toEqual({ sign_in: "embedded", sign_in_url: "https://example.com/login" })
      expect((await api.handler(new Request("http://x/analytics"))).status).toBe(200)
      expect((await api.handler(new Request("http://x/analytics/"))).status).toBe(200)
      const script = await api.handler(new Request(`http://x/analytics/assets/${built.entries.console!.file}`))
      expect(script.status).toBe(200)
      expect(script.headers.get("cache-control")).toContain("immutable")
      expect((await api.handler(new Request("http://x/w/ws_1"))).status).toBe(404)
    } finally {
      await api.dispose()
    }
  })

  it("inlines who is signed in: for a session cookie what GET /api/session answers (its CSRF token too), never cached; null without or for an ended one", async () => {
    const api = App.webHandler({ stores: MemoryStores.layer, publicBaseUrl: "http://x", viewerAssets: assets, operatorToken: "op-token" })
    const call = (method: string, path: string, init: { token?: string; cookie?: string; csrf?: string; body?: unknown } = {}) =>
      api.handler(new Request(`http://x${path}`, {
        method,
        headers: {
          ...(init.token === undefined ? {} : { authorization: `Bearer ${init.token}` }),
          ...(init.cookie === undefined ? {} : { cookie: `analytics_session=${init.cookie}` }),
          ...(init.csrf === undefined ? {} : { "x-csrf-token": init.csrf }),
          ...(init.body === undefined ? {} : { "content-type": "application/json" })
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
      }))
    try {
      // A name that would end the script element, or a JavaScript string, if the JSON were not escaped.
      const name = "Acme </script><script>alert(1)</script> \u2028 & <!--"
      const provisioned = await call("POST", "/v1/tenants", { token: "op-token", body: { name, plan: "growth" } })
      expect(provisioned.status).toBe(201)
      const { token } = await provisioned.json()
      const signedIn = await call("POST", "/api/session/token", { body: { api_token: token } })
      expect(signedIn.status).toBe(200)
      const cookie = /analytics_session=([^;]+)/.exec(signedIn.headers.getSetCookie().join("\n"))![1]!
      const current = await call("GET", "/api/session", { cookie })
      expect(current.status).toBe(200)
      const session = await current.json()
      expect(session.tenant.name).toBe(name)

      for (const path of ["/", "/w/ws_1", "/sign-in"]) {
        const page = await call("GET", path, { cookie })
        expect(page.status).toBe(200)
        expect(page.headers.get("cache-control")).toBe("no-store")
        expect(page.headers.get("vary")).toBe("Cookie")
        expect(page.headers.get("content-security-policy")).toContain("script-src 'self';")
        const html = await page.text()
        expect(html).not.toContain("</script><script>alert")
        expect(html).not.toContain("\u2028")
        expect(html).not.toContain("<!--")
        expect(bootOf(html).session).toEqual(session)
        expect(bootOf(html).session.csrf_token).toBe(session.csrf_token)
      }

      // Signed out, with a cookie that names no session, and a bearer token (no console session): null, revalidated.
      for (const init of [{}, { cookie: "x".repeat(43) }, { token }]) {
        const page = await call("GET", "/", init)
        expect(page.headers.get("cache-control"), JSON.stringify(init)).toBe("no-cache")
        expect(bootOf(await page.text()).session, JSON.stringify(init)).toBeNull()
      }
      expect((await call("DELETE", "/api/session", { cookie, csrf: session.csrf_token })).status).toBe(204)
      expect(bootOf(await (await call("GET", "/", { cookie })).text()).session).toBeNull()
    } finally {
      await api.dispose()
    }
  })

  it("without a console in the bundle, / answers 404 as before", async () => {
    const api = App.webHandler({
      stores: MemoryStores.layer,
      publicBaseUrl: "http://x",
      viewerAssets: ViewerAssets.ViewerAssets.layer({ entry: built.entry, files: built.files })
    })
    try {
      for (const path of ["/", "/sign-in", "/w/ws_1"]) {
        const response = await api.handler(new Request(`http://x${path}`))
        expect(response.status, path).toBe(404)
        expect((await response.json()).code).toBe("route/not-found")
      }
    } finally {
      await api.dispose()
    }
  })

  it("serves the elements' entry as assets/analytics-elements.js: revalidated, 304 when unchanged", async () => {
    const api = App.webHandler({ stores: MemoryStores.layer, publicBaseUrl: "http://x", viewerAssets: assets })
    try {
      const first = await api.handler(new Request("http://x/assets/analytics-elements.js", { headers: { "accept-encoding": "br" } }))
      expect(first.status).toBe(200)
      expect(first.headers.get("cache-control")).toBe("no-cache")
      expect(first.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
      expect(first.headers.get("content-encoding")).toBe("br")
      const etag = first.headers.get("etag")!
      expect(etag).toBe(`"${built.files.get(built.entries.elements!.file)!.sha256}-br"`)
      const again = await api.handler(new Request("http://x/assets/analytics-elements.js", { headers: { "accept-encoding": "br", "if-none-match": etag } }))
      expect(again.status).toBe(304)
      const plain = await api.handler(new Request("http://x/assets/analytics-elements.js"))
      expect(new Uint8Array(await plain.arrayBuffer())).toEqual(built.files.get(built.entries.elements!.file)!.body)
    } finally {
      await api.dispose()
    }
  })
})
