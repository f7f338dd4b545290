/**
 * The tenant's branding over real HTTP, on every store (decision 0014):
 * admins read and change it; a logo that is no PNG, JPEG or WebP data: URL
 * of at most 48 KB (an SVG above all) and a colour that is no #rrggbb are
 * refused in words and change nothing; members are refused. The share
 * page, the password form and the revoked page wear it (the revoked page
 * speaking of a link, never of a grant).
 */
import { problemCode, start } from "./TestServer.ts"
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { onEveryStore } from "./EveryStore.ts"

/** A 1×1 PNG. */
const pngLogo = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="

const svgLogo = `data:image/svg+xml;base64,${btoa('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')}`

onEveryStore("tenant branding", (stores) => {
  it.live("admins set name, logo and accent; bad logos and colours are refused in words, nothing changed; share pages wear it", () =>
    Effect.gen(function*() {
      const server = yield* start(stores())
      const { token } = yield* server.tenant("scale")
      const call = (method: string, path: string, body?: unknown, as = token) => server.request(method, path, { token: as, body })

      const unset = yield* call("GET", "/v1/branding")
      assert.strictEqual(unset.status, 200, unset.text)
      assert.deepStrictEqual(unset.body, { name: null, logo: null, accent_color: null, updated_at: null })

      const set = yield* call("PATCH", "/v1/branding", { name: "Northwind Traders", logo: pngLogo, accent_color: "#0f766e" })
      assert.strictEqual(set.status, 200, set.text)
      assert.deepInclude(set.body, { name: "Northwind Traders", logo: pngLogo, accent_color: "#0f766e" })

      // Refused in words, each leaving the branding as it was.
      const refusals: ReadonlyArray<readonly [body: object, words: RegExp]> = [
        [{ logo: svgLogo }, /SVG logos are not accepted/],
        [{ logo: `data:image/png;base64,${btoa("x".repeat(49 * 1024))}` }, /at most 48 KB/],
        [{ logo: `data:image/png;base64,${btoa("GIF89a not a png")}` }, /not a PNG image/],
        [{ logo: "https://example.com/logo.png" }, /as a data: URL/],
        [{ logo: `data:image/gif;base64,${btoa("GIF89a")}` }, /image\/gif is not accepted/],
        [{ accent_color: "teal" }, /#rrggbb/],
        [{ name: "" }, /./]
      ]
      for (const [body, words] of refusals) {
        const refused = yield* call("PATCH", "/v1/branding", { name: "Changed", ...body })
        assert.strictEqual(refused.status, 400, `${JSON.stringify(body).slice(0, 80)}: ${refused.text}`)
        assert.strictEqual(refused.headers.get("content-type"), "application/problem+json")
        assert.match(refused.text, words)
      }
      const kept = yield* call("GET", "/v1/branding")
      assert.deepInclude(kept.body, { name: "Northwind Traders", logo: pngLogo, accent_color: "#0f766e" })

      // Members neither read nor change it.
      const member = (yield* call("POST", "/v1/users", { email: "m@example.com", name: "M" })).body
      const memberToken = (yield* call("POST", `/v1/users/${member.user_id}/tokens`, {})).body.token
      assert.strictEqual(problemCode(yield* call("GET", "/v1/branding", undefined, memberToken)), "auth/forbidden")
      assert.strictEqual(problemCode(yield* call("PATCH", "/v1/branding", { name: "Mine" }, memberToken)), "auth/forbidden")
      // Audited, without the logo's bytes.
      const entries = (yield* call("GET", "/v1/audit-log?action=branding.updated")).body.data
      assert.lengthOf(entries, 1)
      assert.strictEqual(entries[0].detail.logo, "set")

      // Share pages wear it: the page, the password form, the revoked page (about a link).
      const workspace = (yield* call("POST", "/v1/workspaces", { name: "Brand" })).body
      const share = (body: object) => Effect.map(call("POST", "/v1/sharing/grants", { subject_type: "workspace", subject_id: workspace.workspace_id, principal_type: "link", actions: ["view"], ...body }), (r) => {
        assert.strictEqual(r.status, 201, r.text)
        return r.body
      })
      const html = { accept: "text/html" }
      const open = yield* share({})
      const page = yield* server.request("GET", new URL(open.link_url).pathname, { headers: html })
      assert.strictEqual(page.status, 200, page.text)
      assert.include(page.text, `<span class="brand-name">Northwind Traders</span>`)
      assert.include(page.text, `<img src="${pngLogo}" alt="">`)
      assert.include(page.text, "<title>Brand · Northwind Traders</title>")
      const locked = yield* share({ password: "correct horse battery" })
      const form = yield* server.request("GET", new URL(locked.link_url).pathname, { headers: html })
      assert.strictEqual(form.status, 401)
      assert.include(form.text, "Northwind Traders")
      assert.include(form.text, "Password required")
      assert.strictEqual((yield* call("DELETE", `/v1/sharing/grants/${open.grant_id}`)).status, 200)
      const revoked = yield* server.request("GET", new URL(open.link_url).pathname, { headers: html })
      assert.strictEqual(revoked.status, 403)
      assert.include(revoked.text, "Northwind Traders")
      assert.include(revoked.text, "This link was revoked")
      assert.notMatch(revoked.text.replace(/<style>[\s\S]*<\/style>/, ""), /grant/i)
      // A client still reads the problem.
      const problem = yield* server.request("GET", new URL(open.link_url).pathname, { headers: { accept: "application/json" } })
      assert.strictEqual(problemCode(problem), "share/revoked")

      // Cleared: the service's own again.
      const cleared = yield* call("PATCH", "/v1/branding", { name: null, logo: null, accent_color: null })
      assert.deepInclude(cleared.body, { name: null, logo: null, accent_color: null })
      const plain = yield* server.request("GET", new URL(locked.link_url).pathname, { headers: html })
      assert.notInclude(plain.text, "Northwind")
      assert.notInclude(plain.text, "<img")
    }).pipe(Effect.scoped), 60_000)
})
