/**
 * The console's browser tests sign in through this one helper: the session
 * as `GET /api/session` answers it (docs/guides/console.md) is answered in
 * the page, and `/v1` calls are given the user's bearer token, until the
 * session endpoints land; then swap it for a real sign-in here, once.
 */
import type { BrowserContext, Page } from "playwright-core"

/** Who the stub session says is signed in. */
export interface SessionUser {
  readonly user_id: string
  readonly email: string | null
  readonly display_name: string | null
  readonly roles: ReadonlyArray<string>
}

/** The tenant's admin (the default). */
export const adminUser: SessionUser = { user_id: "usr_admin", email: "ada@example.com", display_name: "Ada Admin", roles: ["admin"] }

/** A member of the tenant, not an admin. */
export const memberUser: SessionUser = { user_id: "usr_member", email: "max@example.com", display_name: "Max Member", roles: ["member"] }

/** Signs the console in as `user` of the tenant, `/v1` calls carrying `token` (stub until the session endpoints land: see the file's comment). */
export const signedInAs = async (page: Page | BrowserContext, token: string, tenantId: string, user: SessionUser = adminUser): Promise<void> => {
  const session = {
    user,
    tenant: { tenant_id: tenantId, name: "Acme" },
    via: "api-token",
    csrf_token: "csrf-test",
    idle_expires_at: null,
    expires_at: null
  }
  await page.route(/\/api\/session$/, (route) =>
    route.request().method() === "DELETE" ? route.fulfill({ status: 204 }) : route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(session) }))
  await page.route(/\/v1\//, (route) => route.continue({ headers: { ...route.request().headers(), authorization: `Bearer ${token}` } }))
}
