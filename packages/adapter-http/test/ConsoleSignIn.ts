/**
 * How the console's browser tests sign in, in one place: `GET
 * /api/session` is answered in the page and every `/v1` call is given the
 * tenant admin's bearer token, as ConsoleBrowser.test.ts does until the
 * session endpoints land; swap `signedInAs` for a real sign-in then, and
 * every suite that uses it follows.
 */
import type { BrowserContext } from "playwright-core"

/** Signs the console in `context` in as the tenant's admin (Ada Admin, ada@example.com). */
export const signedInAs = async (context: BrowserContext, token: string, tenantId: string): Promise<void> => {
  const session = {
    user: { user_id: "usr_admin", email: "ada@example.com", display_name: "Ada Admin", roles: ["admin"] },
    tenant: { tenant_id: tenantId, name: "Acme" },
    via: "api-token",
    csrf_token: "csrf-test",
    idle_expires_at: null,
    expires_at: null
  }
  await context.route(/\/api\/session$/, (route) =>
    route.request().method() === "DELETE" ? route.fulfill({ status: 204 }) : route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(session) }))
  await context.route(/\/v1\//, (route) => route.continue({ headers: { ...route.request().headers(), authorization: `Bearer ${token}` } }))
}
