/**
 * The example app against a real service (the whole API in process, memory
 * stores): its page includes the service's `/embed.js` and embeds with
 * `fetchToken`; its `POST /embed-token` mints, through the server sample,
 * a token naming the app's origin, which the service's embed page then
 * allows as its only frame ancestor. The renewal itself, in Chromium:
 * packages/adapter-http/test/EmbedTokenBrowser.test.ts.
 */
import { App } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import { start as startService } from "@analytics/testing/http"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { start } from "../src/main.ts"

describe("the embed page example", () => {
  it.live("mints tokens for its own origin; its page uses /embed.js; the service frames the embed for that origin only", () =>
    Effect.gen(function*() {
      const service = yield* startService(App, MemoryStores.layer)
      const { token } = yield* service.tenant("scale")
      const call = (method: string, path: string, body?: unknown) => service.request(method, path, { token, body })
      const workspace = yield* call("POST", "/v1/workspaces", { name: "Portal" })
      const grant = yield* call("POST", "/v1/sharing/grants", { subject_type: "workspace", subject_id: workspace.body.workspace_id, principal_type: "embed", actions: ["view"] })
      assert.strictEqual(grant.status, 201, grant.text)

      const app = yield* Effect.acquireRelease(
        Effect.promise(() => start(0, { analyticsUrl: service.url, apiToken: token, grantId: grant.body.grant_id, lifetimeSeconds: 120 })),
        ({ server }) => Effect.sync(() => server.close())
      )
      const page = yield* Effect.promise(() => fetch(`${app.url}/`).then((r) => r.text()))
      assert.include(page, `<script src="${service.url}/embed.js"></script>`)
      assert.include(page, `url: "${service.url}/embed"`)

      const minted = yield* Effect.promise(() => fetch(`${app.url}/embed-token`, { method: "POST" }).then((r) => r.json() as Promise<{ token: string; expires_at: string }>))
      const claims = JSON.parse(Buffer.from(minted.token.split(".")[1]!, "base64url").toString("utf8"))
      assert.strictEqual(claims.origin, app.url)
      assert.strictEqual(claims.exp - claims.iat, 120)
      const embed = yield* service.request("GET", `/embed?token=${encodeURIComponent(minted.token)}`, { headers: { accept: "text/html" } })
      assert.strictEqual(embed.status, 200, embed.text)
      assert.match(embed.headers.get("content-security-policy") ?? "", new RegExp(`frame-ancestors ${app.url}$`))
      const script = yield* Effect.promise(() => fetch(`${service.url}/embed.js`).then((r) => r.text()))
      assert.include(script, "Analytics = Object.assign")
    }).pipe(Effect.scoped))
})
