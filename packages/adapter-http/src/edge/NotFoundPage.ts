/**
 * The page a browser gets for a URL nothing answers (decision 0001): a few
 * words and a link back to the console, instead of the problem+json an API
 * client reads. Only a page request (`GET`/`HEAD` whose `Accept` names
 * `text/html`) outside the API paths (`/v1`, `/api`, `/scim`) gets it.
 *
 * @since 0.1.0
 */
import { HttpServerRequest, HttpServerResponse } from "effect/http"

/** The API's own paths: every unknown URL under them answers problem+json, whatever the client accepts. */
const apiPath = /^\/(?:v1|api|scim)(?:[/?]|$)/

/** Whether the request is a browser asking for a page at `path` (the router's path, below any mount prefix). */
export const wanted = (request: HttpServerRequest.HttpServerRequest, path: string): boolean =>
  (request.method === "GET" || request.method === "HEAD") && !apiPath.test(path) &&
  /text\/html/i.test(request.headers.accept ?? "")

/**
 * The console's root relative to `path`, so the link works under any mount
 * prefix: `./` from `/nope`, `../` from `/a/nope` or `/a/`.
 */
export const consoleHref = (path: string): string => {
  const depth = (path.match(/\//g)?.length ?? 1) - 1
  return depth <= 0 ? "./" : "../".repeat(depth)
}

/** The share pages' policy, less everything this page does not use: its one inline style, nothing else. */
const headers = {
  "cache-control": "no-store",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff",
  "x-robots-tag": "noindex, nofollow",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
}

const html = (href: string) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="robots" content="noindex, nofollow">
<title>Page not found</title>
<style>
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  main { max-width: 480px; margin: 12vh auto; padding: 0 16px; text-align: center; }
  h1 { font-size: 22px; margin: 0 0 8px; }
  a { color: LinkText; }
</style>
</head>
<body>
<main>
<h1>This page does not exist</h1>
<p>The address may be mistyped, or the page may have moved.</p>
<p><a href="${href}">Go to the console</a></p>
</main>
</body>
</html>
`

/** The 404 page for `path`. */
export const response = (path: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(html(consoleHref(path)), { status: 404, contentType: "text/html; charset=utf-8", headers })
