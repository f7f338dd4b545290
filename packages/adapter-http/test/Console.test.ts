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
      expect(html).toContain(`<base href="/">`)
      expect(html).toContain(`<script type="module" src="assets/${built.entries.console!.file}"></script>`)
      for (const file of built.entries.console!.closure.slice(1)) expect(html).toContain(`<link rel="modulepreload" href="assets/${file}">`)
      // Every script is this origin's module or JSON data: nothing inline runs.
      for (const tag of html.match(/<script\b[^>]*>/g)!) expect(tag).toMatch(/type="module" src=|type="application\/json"/)
      expect(html).not.toMatch(/\sstyle=|<style/)
      const publicConfig = await (await api.handler(new Request("http://x/api/config/public"))).json()
      expect(bootOf(html)).toEqual({ ...publicConfig, console: { sign_in: "link", sign_in_url: null } })
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
