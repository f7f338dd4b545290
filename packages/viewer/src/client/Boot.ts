/**
 * The console's boot data: the body of `GET /api/config/public` (name,
 * logo, primary colour, feature flags), how people sign in and who is
 * signed in (what `GET /api/session` answers, or `null`), inlined by
 * the shell page in `<script type="application/json" id="analytics-boot">`
 * so the first screen waits for no request.
 *
 * @since 0.1.0
 */
import type { SessionInfo } from "./Session.ts"

/** How people sign in: an e-mailed link (and an admin's token), the embedding app's sign-in, or none. */
export type SignInMode = "link" | "embedded" | "off"

/** The boot data (the shape of `GET /api/config/public`, plus `console`). */
export interface Boot {
  readonly version: string
  readonly branding: { readonly name: string; readonly logo_url: string | null; readonly primary_color: string }
  /** Sections to show or hide; a flag that is absent means shown. */
  readonly features: Readonly<Record<string, boolean>>
  readonly console: { readonly sign_in: SignInMode; readonly sign_in_url: string | null }
  /**
   * The session of the request that served the page (`null`: signed out);
   * absent when the page does not say (a page of the embedding app): then
   * the console asks `GET /api/session`.
   */
  readonly session?: SessionInfo | null | undefined
}

/** The id of the script element holding it. */
export const bootElementId = "analytics-boot"

const fallback: Boot = {
  version: "",
  branding: { name: "Analytics", logo_url: null, primary_color: "#2563eb" },
  features: {},
  console: { sign_in: "link", sign_in_url: null }
}

/** The page's boot data; defaults where the page has none (a page of the embedding app). */
export const readBoot = (): Boot => {
  const text = document.getElementById(bootElementId)?.textContent
  if (text == null || text === "") return fallback
  const parsed = JSON.parse(text) as Partial<Boot>
  return {
    ...fallback,
    ...parsed,
    branding: { ...fallback.branding, ...parsed.branding },
    console: { ...fallback.console, ...parsed.console }
  }
}

/** Whether the section `name` is on (absent flags are on). */
export const featureOn = (boot: Boot, name: string): boolean => boot.features[name] !== false
