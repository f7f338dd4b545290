/**
 * The embed token's contract over HTTP (decision 0027): a token may name the
 * embedding page's origin, which becomes the embed page's only
 * `frame-ancestors`; an origin that is not one (a path, a trailing slash,
 * upper case, another scheme) is a 400 problem and mints nothing; a token
 * without one frames anywhere, as before. `GET /embed.js`, the host page's
 * helper, is served to any page as a script, revalidated by its ETag.
 */
import { problemCode } from "@analytics/testing/http"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { decodeJwt } from "jose"
import { grantsPath, setup } from "./SharingFixture.ts"

describe("embed tokens naming their page's origin", () => {
  it.live("origin claim: the embed page's frame-ancestors; refused in words when not an origin; /embed.js served", () =>
    Effect.gen(function*() {
      const { admin, call, ok, reportId, server } = yield* setup
      const embed = yield* ok("POST", grantsPath, { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view"] })
      const mintPath = `${grantsPath}/${embed.grant_id}/embed-tokens`
      const page = (token: string) => server.request("GET", `/embed?token=${encodeURIComponent(token)}`, { headers: { accept: "text/html" } })

      const minted = yield* ok("POST", mintPath, { origin: "https://portal.example.com:8443", attributes: { region: "EU" }, lifetime_seconds: 30 })
      assert.strictEqual(decodeJwt(minted.token).origin, "https://portal.example.com:8443")
      const framed = yield* page(minted.token)
      assert.strictEqual(framed.status, 200, framed.text)
      assert.match(framed.headers.get("content-security-policy") ?? "", /frame-ancestors https:\/\/portal\.example\.com:8443$/)
      // Its JSON view (what a filter change asks) carries the same policy.
      const json = yield* server.request("GET", `/embed?token=${encodeURIComponent(minted.token)}`, { headers: { accept: "application/json" } })
      assert.match(json.headers.get("content-security-policy") ?? "", /frame-ancestors https:\/\/portal\.example\.com:8443$/)

      // Without an origin: framed anywhere, no claim.
      const anywhere = yield* ok("POST", mintPath, { attributes: { region: "EU" } })
      assert.notProperty(decodeJwt(anywhere.token), "origin")
      assert.match((yield* page(anywhere.token)).headers.get("content-security-policy") ?? "", /frame-ancestors \*$/)

      // Not an origin: a problem that names the field, nothing minted.
      for (const origin of ["https://portal.example.com/", "https://portal.example.com/app", "https://Portal.example.com", "javascript:alert(1)", "null", "*", ""]) {
        const refused = yield* call("POST", mintPath, admin, { origin })
        assert.strictEqual(refused.status, 400, `${origin}: ${refused.text}`)
        assert.strictEqual(problemCode(refused), "request/invalid", origin)
        assert.include(refused.headers.get("content-type"), "application/problem+json")
        assert.include(refused.text, "origin", origin)
      }

      // The host page's helper: a script any page may load, revalidated.
      const script = yield* server.request("GET", "/embed.js")
      assert.strictEqual(script.status, 200, script.text)
      assert.include(script.headers.get("content-type"), "text/javascript")
      assert.strictEqual(script.headers.get("cache-control"), "no-cache")
      assert.include(script.text, "Analytics.embed")
      assert.doesNotThrow(() => new Function(script.text))
      const again = yield* server.request("GET", "/embed.js", { headers: { "if-none-match": script.headers.get("etag") ?? "" } })
      assert.strictEqual(again.status, 304)
      assert.strictEqual(problemCode(yield* server.request("POST", "/embed.js", { body: {} })), "route/method-not-allowed")
    }), { timeout: 60_000 })
})
