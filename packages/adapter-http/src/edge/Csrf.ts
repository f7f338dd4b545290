/**
 * Cross-site request forgery defence for cookie-authenticated requests
 * (decision 0022). A browser sends the session cookie with any request to
 * the service, even one a foreign page makes; so a POST, PUT, PATCH or
 * DELETE recognised by the cookie (or by the embedding app's own sign-in)
 * must also show that it comes from the console's page:
 *
 * 1. `Sec-Fetch-Site`, when the browser sends it, is `same-origin`; else
 *    `Origin`, when sent, is the public base URL's origin;
 * 2. `X-CSRF-Token` is the session's CSRF token (synchronizer token: a
 *    foreign page cannot read it).
 *
 * The sign-in POSTs (no session yet) check only 1 (login CSRF). Bearer
 * requests carry no ambient credential and are not checked. A refusal is
 * a 403 problem `auth/csrf-failed`.
 *
 * Routes that never act with the console session's authority (the share
 * pages: a link's password form, its PDF form, an embed's) are checked on
 * their own terms: 1 only, whatever cookie comes with them. A console
 * session beside them does not refuse them; a page of another origin
 * still cannot post to them with the visitor's link session cookie
 * (itself `SameSite=Lax`, decision 0022).
 *
 * @since 0.1.0
 */
import { Sessions } from "@analytics/core"
import type { HttpServerRequest, HttpServerResponse } from "effect/http"
import { problemResponse } from "./LastLineProblems.ts"
import type { ResolvedCaller } from "./ResolvedCaller.ts"
import { pathOf } from "./Url.ts"

/** The methods that change something. */
const unsafe = new Set(["POST", "PUT", "PATCH", "DELETE"])

/** The sign-in endpoints: they have no session yet, so only where the request comes from is checked. */
const signInPaths = new Set(["/api/session", "/api/session/token", "/api/session/sign-in-links", "/api/session/invitation"])

const refusal = () => problemResponse("auth/csrf-failed", "Reload the page and try again")

/** The origin (`scheme://host[:port]`) of a URL, `undefined` when it is none. */
const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

/** Whether the request's own headers say it comes from a page of `origin` (or say nothing). */
export const sameOrigin = (headers: Readonly<Record<string, string | undefined>>, origin: string | undefined): boolean => {
  const site = headers["sec-fetch-site"]
  if (site !== undefined) return site === "same-origin"
  const from = headers["origin"]
  return from === undefined || from === origin
}

/**
 * The check of a request against `publicBaseUrl`'s origin, made once: the
 * refusal a cookie-authenticated unsafe request (or a sign-in) gets when it
 * does not show it comes from the console's page, `undefined` when it
 * passes. `resolved` is the caller the edge resolved, if any. `ownTerms`
 * picks the requests whose route acts with no console authority (the
 * share pages), checked for their origin only.
 */
export const checker = (publicBaseUrl: string | undefined, ownTerms: (url: string) => boolean = () => false) => {
  const origin = publicBaseUrl === undefined ? undefined : originOf(publicBaseUrl)
  return (
    request: HttpServerRequest.HttpServerRequest,
    resolved: ResolvedCaller["Service"] | undefined
  ): HttpServerResponse.HttpServerResponse | undefined => {
    // Safe methods, most requests, pass at once.
    if (!unsafe.has(request.method)) return undefined
    if ((request.method === "POST" && signInPaths.has(pathOf(request.url))) || ownTerms(request.url)) {
      return sameOrigin(request.headers, origin) ? undefined : refusal()
    }
    if (resolved === undefined || resolved.via === "token") return undefined
    const sent = request.headers["x-csrf-token"] ?? ""
    const matches = (expected: string | undefined) => expected !== undefined && expected !== "" && Sessions.constantTimeEquals(sent, expected)
    const ok = sameOrigin(request.headers, origin) && (matches(resolved.csrfToken) || matches(resolved.previousCsrfToken))
    return ok ? undefined : refusal()
  }
}
