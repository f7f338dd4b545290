/**
 * How a public element talks to the service outside the console (on an
 * embedding app's page): its own API client at the element's `base-url`
 * (else `<meta name="analytics-base-url">`, else the page's base), and the
 * session asked for once, for its CSRF token.
 *
 * @since 0.1.0
 */
import { type ApiClient, makeClient } from "../client/ApiClient.ts"
import { currentSession, setSession } from "../client/Session.ts"

/** The service's base URL for an element: its `base-url`, else the page's `<meta name="analytics-base-url">`, else `undefined` (the page's base). */
export const baseUrlOf = (baseUrl: string | null | undefined): string | undefined =>
  baseUrl ?? document.querySelector<HTMLMetaElement>("meta[name=analytics-base-url]")?.content ?? undefined

/** A client for an element given no console client. */
export const elementClient = (baseUrl: string | null | undefined): ApiClient => {
  const base = baseUrlOf(baseUrl)
  return makeClient({ base: base === undefined ? undefined : new URL(base, document.baseURI).href })
}

/** Outside the console, the session (its CSRF token) is asked for once; a failure is left to the calls to tell. */
export const ensureSession = async (api: ApiClient): Promise<void> => {
  if (currentSession() !== null) return
  try {
    setSession(await api.get("api/session", { signedOut: true }))
  } catch {
    // The calls will say what is wrong.
  }
}
