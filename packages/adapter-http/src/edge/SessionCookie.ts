/**
 * The console's session cookie (decision 0022): its attributes, derived
 * from the public base URL (Path = its pathname, so a console mounted under
 * a prefix sends it only there; Secure on https), and the lifetimes the
 * deployment chose.
 *
 * @since 0.1.0
 */
import { Groups } from "@analytics/api"
import { Session } from "@analytics/core"
import { Context, Effect } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"

/** The cookie's name. */
export const name = Groups.Session.cookieName

/** How long sessions last here: the App's `sessions` option, by default idle 60 minutes and absolute 12 hours. */
export const SessionLifetimes = Context.Reference<Session.Lifetimes>("@analytics/adapter-http/SessionLifetimes", {
  defaultValue: () => Session.defaultLifetimes
})

/** The cookie's `Path` and `Secure` for a public base URL: its pathname ("/" when none), secure when it is https. */
export const attributesFor = (publicBaseUrl: string): { readonly path: string; readonly secure: boolean } => {
  let path = "/"
  let secure = false
  try {
    const url = new URL(publicBaseUrl)
    path = url.pathname.replace(/\/+$/, "") || "/"
    secure = url.protocol === "https:"
  } catch {
    // A base URL that is no URL: the defaults.
  }
  return { path, secure }
}

/** The cookie `request` sent, `""` when none. */
export const of = (request: HttpServerRequest.HttpServerRequest): string => request.cookies[name] ?? ""

/** The cookie of the request, `""` when none. */
export const read: Effect.Effect<string, never, HttpServerRequest.HttpServerRequest> = Effect.map(
  HttpServerRequest.HttpServerRequest,
  of
)

/** Sets the session cookie: HttpOnly, SameSite=Lax, no Max-Age (the server decides expiry). */
export const set = (
  response: HttpServerResponse.HttpServerResponse,
  value: string,
  publicBaseUrl: string
): HttpServerResponse.HttpServerResponse => {
  const { path, secure } = attributesFor(publicBaseUrl)
  return HttpServerResponse.setCookieUnsafe(response, name, value, { httpOnly: true, sameSite: "lax", path, secure })
}

/** Clears the session cookie (`Max-Age=0`, same Path). */
export const clear = (response: HttpServerResponse.HttpServerResponse, publicBaseUrl: string): HttpServerResponse.HttpServerResponse => {
  const { path, secure } = attributesFor(publicBaseUrl)
  return HttpServerResponse.setCookieUnsafe(response, name, "", { httpOnly: true, sameSite: "lax", path, secure, maxAge: 0 })
}
