/**
 * The API reference at `GET /v1/docs`: Scalar's reader of the OpenAPI
 * document, on the console's origin, so under a strict policy (decision
 * 0023). The page carries no inline script: Scalar's
 * bundle (3 MB of third-party code) and the call that starts it on the
 * contract's document are files of their own under `/v1/docs/`, named by
 * their hash (cached for good), and the page's `Content-Security-Policy`
 * lets scripts come from this origin only (`script-src 'self'`), no
 * framing (`frame-ancestors 'none'`, `X-Frame-Options: DENY`), no
 * sniffing, no referrer.
 *
 * Scalar's bundle is the one Effect ships (`HttpApiScalar`, whose page
 * inlines it): it is taken from the page that public layer serves, once,
 * at the first request, and the layer fails loudly if its shape changes.
 *
 * @since 0.1.0
 */
import { Problems } from "@analytics/api"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { type HttpApi, type HttpApiGroup, HttpApiScalar, OpenApi } from "effect/http-api"
import { createHash } from "node:crypto"
import { gzipSync } from "node:zlib"

/** Where the page is served. */
export const path = "/v1/docs"

/** Every route, as `[method, path]` (the edge's 404/405 answers know them). */
export const routes: ReadonlyArray<readonly [string, string]> = [["GET", path], ["GET", `${path}/:file`]]

/**
 * The page's policy: scripts and everything they fetch from this origin
 * only; styles inline too (Scalar injects its own `<style>` elements;
 * styles run no code); images of this origin and `data:`; nothing may
 * frame it, no form posts, no `<base>`.
 */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

/** What every answer of the page's routes carries. */
const commonHeaders = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer"
} as const

/** The page's own headers. */
export const pageHeaders: Readonly<Record<string, string>> = {
  ...commonHeaders,
  "content-security-policy": contentSecurityPolicy,
  "x-frame-options": "DENY",
  "cache-control": "no-cache"
}

/** A script the page loads: its hashed name, its bytes and their gzip. */
interface Script {
  readonly name: string
  readonly body: Uint8Array
  readonly gzip: Uint8Array
  readonly etag: string
}

const script = (stem: string, text: string): Script => {
  const body = new TextEncoder().encode(text)
  const hash = createHash("sha256").update(body).digest("hex")
  return { name: `${stem}-${hash.slice(0, 16)}.js`, body, gzip: gzipSync(body, { level: 9 }), etag: `"${hash}"` }
}

const escapeHtml = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\"", "&quot;")

/** The container Scalar draws into, as Effect's page names it. */
const containerId = "api-reference-container"

/** Scalar's bundle, out of the page `HttpApiScalar.layer` serves (its first script, inline). */
const scalarBundle = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>) =>
  Effect.promise(async () => {
    const web = HttpRouter.toWebHandler(HttpApiScalar.layer(api, { path: "/docs" }), { disableLogger: true })
    try {
      const html = await (await web.handler(new Request("http://localhost/docs"))).text()
      const start = html.indexOf("<script>", html.indexOf(`id="${containerId}"`))
      const end = start === -1 ? -1 : html.indexOf("</script>", start)
      const source = start === -1 || end === -1 ? "" : html.slice(start + "<script>".length, end)
      if (!source.includes("createApiReference")) {
        throw new Error("HttpApiScalar's page no longer inlines Scalar's bundle where the reference page takes it from")
      }
      return source
    } finally {
      await web.dispose()
    }
  })

/** The page and its two scripts: Scalar's bundle, and its start on the contract's document. */
const make = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>) =>
  Effect.map(scalarBundle(api), (bundle) => {
    const spec = OpenApi.fromApi(api)
    const scalar = script("scalar", bundle)
    // No web fonts: the page must work offline and behind firewalls. JSON is a JavaScript expression.
    const config = { _integration: "html", withDefaultFonts: false, content: spec }
    const start = script(
      "start",
      `window.Scalar.createApiReference(document.getElementById(${JSON.stringify(containerId)}), ${JSON.stringify(config)})\n`
    )
    const description = spec.info.description === undefined || spec.info.description === ""
      ? ""
      : `\n    <meta name="description" content="${escapeHtml(spec.info.description)}">`
    /** The page, its scripts at `prefix` (relative to where it was asked, so any mount prefix works). */
    const page = (prefix: string) => `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <title>${escapeHtml(spec.info.title)}</title>${description}
    <meta name="viewport" content="width=device-width, initial-scale=1">
  </head>
  <body>
    <div id="${containerId}"></div>
    <script src="${prefix}${scalar.name}"></script>
    <script src="${prefix}${start.name}"></script>
  </body>
</html>
`
    return { page, scripts: new Map([[scalar.name, scalar], [start.name, start]]) }
  })

/** Whether the client takes gzip. */
const acceptsGzip = (request: HttpServerRequest.HttpServerRequest) =>
  (request.headers["accept-encoding"] ?? "").split(",").some((c) => c.trim().split(";")[0]!.toLowerCase() === "gzip")

/** `GET /v1/docs` and its scripts `GET /v1/docs/{file}` (404 problem for any other file). */
export const layer = <Id extends string, Groups extends HttpApiGroup.Constraint>(api: HttpApi.HttpApi<Id, Groups>) =>
  Layer.unwrap(Effect.gen(function*() {
    // Made at the first request: a server that never shows its reference never reads the bundle.
    const reference = yield* Effect.cached(make(api))
    const showPage = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const { page } = yield* reference
      // From `/v1/docs`, `docs/x.js` is `/v1/docs/x.js`; from `/v1/docs/`, `x.js` is.
      const prefix = new URL(request.url, "http://localhost").pathname.endsWith("/") ? "" : "docs/"
      return HttpServerResponse.text(page(prefix), { contentType: "text/html; charset=utf-8", headers: pageHeaders })
    })
    const serveScript = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const file = (yield* reference).scripts.get((yield* HttpRouter.params).file ?? "")
      if (file === undefined) {
        return HttpServerResponse.jsonUnsafe(Problems.undeclared("resource/not-found", "There is no such file"), {
          status: 404,
          contentType: "application/problem+json",
          headers: { ...commonHeaders, "cache-control": "no-store" }
        })
      }
      const gzip = acceptsGzip(request)
      const headers = {
        ...commonHeaders,
        // Named by its hash: never changes.
        "cache-control": "public, max-age=31536000, immutable",
        "cross-origin-resource-policy": "same-origin",
        etag: file.etag,
        vary: "accept-encoding",
        ...(gzip ? { "content-encoding": "gzip" } : {})
      }
      return HttpServerResponse.uint8Array(gzip ? file.gzip : file.body, { contentType: "text/javascript; charset=utf-8", headers })
    })
    return Layer.mergeAll(HttpRouter.add("GET", path, showPage), HttpRouter.add("GET", `${path}/:file`, serveScript))
  }))
