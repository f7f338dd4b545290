/**
 * The web console's shell: one small HTML page answered at every console
 * URL (`/`, `/sign-in`, `/invitations/accept`, `/w/...`, `/webhooks...`,
 * `/audit`, `/directory`, `/branding`), whose script (the bundle's `console` entry)
 * picks the screen from the path. The page
 * carries its boot data inline (the body of `GET /api/config/public`, how
 * people sign in, and who is signed in: what `GET /api/session` answers,
 * or `null`), so the first screen needs no request; `<base href>` is the mount point, so every asset and API URL
 * the console uses is relative and works under any prefix. Served only when
 * the bundle has a console entry; otherwise these paths answer 404 as any
 * unknown path does. See docs/guides/console.md.
 *
 * @since 0.1.0
 */
import { type Groups, Problems } from "@analytics/api"
import { TenantCache } from "@analytics/core"
import { Context, Effect, Layer, Option } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as SessionCookie from "../edge/SessionCookie.ts"
import * as SessionInfo from "../edge/SessionInfo.ts"
import { publicConfig, ServiceInfo } from "../ServiceInfo.ts"
import { escape } from "./SharePage.ts"
import * as SharedRoutes from "./SharedRoutes.ts"
import * as ViewerAssets from "./ViewerAssets.ts"

/** How people sign in to the console: by an e-mailed link (and admins by API token), through the embedding app, or not at all. */
export type SignIn = "link" | "embedded" | "off"

/** The console's App option. */
export interface Options {
  /**
   * `"link"` (default): the sign-in screen asks for an e-mail address (and
   * takes an admin's API token); `"embedded"`: the embedding app's own
   * authentication says who the user is, and a signed-out person is sent
   * to `signInUrl`; `"off"`: no sign-in screen.
   */
  readonly signIn?: SignIn | undefined
  /** Where the embedding app signs people in (with `signIn: "embedded"`). */
  readonly signInUrl?: string | undefined
}

/** What the shell needs besides the service's description. */
export interface ConsoleSettingsShape {
  readonly signIn: SignIn
  readonly signInUrl: string | null
  /** The path the console is reached at, without a trailing slash (`""` at the root, `/analytics` under a prefix). */
  readonly basePath: string
}

/** The console's settings, from the App's `console` and `prefix` options. */
export class ConsoleSettings extends Context.Service<ConsoleSettings, ConsoleSettingsShape>()("@analytics/adapter-http/ConsoleSettings") {
  /**
   * The settings for the App's options: the base path is the mount prefix
   * when given, else the public base URL's path (a proxy that strips a path
   * before the service).
   */
  static readonly layer = (options: Options | undefined, prefix: string | undefined, publicBaseUrl: string) =>
    Layer.succeed(ConsoleSettings, {
      signIn: options?.signIn ?? "link",
      signInUrl: options?.signInUrl ?? null,
      basePath: basePathOf(prefix, publicBaseUrl)
    })
}

/** The console's base path: the prefix when given, else the public base URL's path; no trailing slash. */
export const basePathOf = (prefix: string | undefined, publicBaseUrl: string): string => {
  const path = prefix !== undefined && prefix !== "" ? prefix : URL.canParse(publicBaseUrl) ? new URL(publicBaseUrl).pathname : ""
  return path.replace(/\/+$/, "")
}

/** The console's URLs, as `[method, path]`; the router picks the screen. */
export const routes: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/"],
  ["GET", "/sign-in"],
  ["GET", "/invitations/accept"],
  ["GET", "/w/*"],
  // `/webhooks/*` answers `/webhooks` too.
  ["GET", "/webhooks/*"],
  ["GET", "/audit"],
  ["GET", "/directory"],
  ["GET", "/branding"]
]

/** The id of the boot data's script element. */
export const bootElementId = "analytics-boot"

/**
 * JSON inside a `<script>` element: `<`, `>` and `&` escaped so no
 * `</script>`, comment or entity can end or change it early (a user's name
 * is in the session), and U+2028 / U+2029 so the text is also valid
 * JavaScript to any tool that reads it as such.
 */
export const scriptJson = (value: unknown): string =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/**
 * The frames the shell may hold: the service's own embed page alone (the
 * share dialog's preview of an embed made, decision 0027 "Preview in the
 * console"), `/embed` and what a workspace's embed opens under it, at the
 * public base URL (the embed's URL); no other page, of this origin or any.
 */
export const frameSources = (publicBaseUrl: string): string => {
  if (!URL.canParse(publicBaseUrl)) return "'none'"
  // Origin and path as the URL parser writes them: percent-encoded, so no space or `;` can end the source early.
  const url = new URL(publicBaseUrl)
  const embed = `${url.origin}${url.pathname.replace(/\/+$/, "")}${SharedRoutes.paths.embed}`
  return `${embed} ${embed}/`
}

/**
 * The policy of the shell: scripts, styles and requests of this origin
 * only. Lit's styles are constructed stylesheets (`adoptedStyleSheets`),
 * which no `style-src` governs, so neither inline script nor inline style
 * is allowed. Images: this origin, `data:` and the logo's origin. Frames:
 * the service's embed page only (`frameSources`).
 */
const policy = (logoUrl: string | null, publicBaseUrl: string) => {
  const logoOrigin = logoUrl !== null && URL.canParse(logoUrl) ? new URL(logoUrl).origin : undefined
  const images = ["'self'", "data:", ...(logoOrigin === undefined || logoOrigin === "null" ? [] : [logoOrigin])].join(" ")
  return `default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; img-src ${images}; font-src 'self'; ` +
    `frame-src ${frameSources(publicBaseUrl)}; form-action 'self'; base-uri 'self'; frame-ancestors 'none'`
}

/** The shell page: its `<base>`, preloads, script and boot data; a line to read until the script runs. */
export const shell = (options: {
  readonly basePath: string
  readonly title: string
  readonly script: string
  readonly preload: ReadonlyArray<string>
  readonly boot: unknown
}): string =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<base href="${escape(options.basePath)}/">
<title>${escape(options.title)}</title>
${options.preload.map((file) => `<link rel="modulepreload" href="${escape(`assets/${file}`)}">`).join("\n")}
<script type="module" src="${escape(`assets/${options.script}`)}"></script>
<script type="application/json" id="${bootElementId}">${scriptJson(options.boot)}</script>
</head>
<body>
<analytics-console><p>${escape(options.title)}</p></analytics-console>
</body>
</html>
`

/** Without a console in the bundle, these paths answer what any unknown path does. */
const noConsole = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
  HttpServerResponse.jsonUnsafe(Problems.undeclared("route/not-found", `No route GET ${request.url.split("?")[0]}`), {
    status: 404,
    contentType: "application/problem+json"
  }))

/** The shell at each console URL, when the bundle has a console; a 404 problem otherwise, as before. */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const assets = yield* ViewerAssets.ViewerAssets
  const entry = assets.entries.console
  const at = (answer: typeof noConsole) => HttpRouter.addAll(routes.map(([, path]) => HttpRouter.route("GET", path as HttpRouter.PathInput, answer)))
  if (entry === undefined) return at(noConsole)
  const info = yield* ServiceInfo
  const settings = Option.getOrElse(yield* Effect.serviceOption(ConsoleSettings), () => ({
    signIn: "link" as const,
    signInUrl: null,
    basePath: basePathOf(undefined, info.publicBaseUrl)
  }))
  const tenants = yield* TenantCache.TenantCache
  const lifetimes = yield* SessionCookie.SessionLifetimes
  const config = { ...publicConfig(info), console: { sign_in: settings.signIn, sign_in_url: settings.signInUrl } }
  // `session` absent (`undefined`): not known, and the console asks `GET /api/session` itself.
  const page = (session: Groups.Session.SessionInfo | null | undefined) =>
    shell({
      basePath: settings.basePath,
      title: info.branding.name,
      script: entry.file,
      preload: entry.closure.filter((file) => file !== entry.file),
      boot: { ...config, session }
    })
  const headers = {
    "content-security-policy": policy(info.branding.logoUrl, info.publicBaseUrl),
    // `/invitations/accept?token=` must not leave in a Referer.
    "referrer-policy": "no-referrer",
    // The page says who is signed in: what a cache keeps must depend on the cookie.
    "vary": "Cookie",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY"
  }
  // The session as `GET /api/session` would answer it (the same edge resolved the cookie), `null`
  // when signed out; when the tenant cannot be read now, left out: the console then asks itself.
  const sessionNow = SessionInfo.current.pipe(
    Effect.map((session) => session ?? null),
    Effect.provideService(TenantCache.TenantCache, tenants),
    Effect.provideService(SessionCookie.SessionLifetimes, lifetimes),
    Effect.orElseSucceed(() => undefined)
  )
  return at(Effect.map(sessionNow, (session) =>
    HttpServerResponse.text(page(session), {
      contentType: "text/html; charset=utf-8",
      // With a session, the page holds its CSRF token: kept by no cache, not even the browser's.
      headers: { ...headers, "cache-control": session === null ? "no-cache" : "no-store" }
    })))
}))

