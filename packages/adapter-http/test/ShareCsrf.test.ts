/**
 * The share pages beside a console session (real HTTP, on memory, PGlite
 * and PostgreSQL; decision 0022): a browser signed in to the console still
 * unlocks a password link and posts the share's and the embed's PDF forms,
 * which act with the link's or the token's authority, not the session's.
 * A page of another origin still cannot post them with the visitor's link
 * session cookie, and the console's own changes still need the CSRF token.
 */
import { Documents } from "@analytics/adapter-documents"
import { problemCode } from "@analytics/testing/http"
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { onEveryStore } from "./EveryStore.ts"
import * as ExportFixture from "./ExportFixture.ts"

/** What a browser sends with a form posted from one of the service's own pages. */
const fromOwnPage = { "sec-fetch-site": "same-origin", "content-type": "application/x-www-form-urlencoded", accept: "text/html" }

onEveryStore("share forms beside a console session", (stores) => {
  it.live("a signed-in browser unlocks a password link and posts the share and embed PDF forms; another origin is still refused", () =>
    Effect.gen(function*() {
      const { admin, ok, reportId, server } = yield* ExportFixture.setup({
        stores: stores(),
        renderers: Documents.layer,
        rowLevelSecurity: [{ roles: ["admin", "link", "embed"], all_rows: true }]
      })
      /** A request as a browser sends it: no redirect followed, the answer's status, location, cookie and problem code. */
      const post = (path: string, body: string, headers: Record<string, string>) =>
        Effect.promise(async () => {
          const response = await fetch(`${server.url}${path}`, { method: "POST", body, headers, redirect: "manual" })
          const text = await response.text()
          const code = response.headers.get("content-type") === "application/problem+json" ? JSON.parse(text).code as string : undefined
          return { status: response.status, location: response.headers.get("location"), cookie: response.headers.get("set-cookie"), code, text }
        })

      // The browser is signed in to the console: its cookie goes with every request to the service.
      const signedIn = yield* server.request("POST", "/api/session/token", { body: { api_token: admin }, headers: { "sec-fetch-site": "same-origin" } })
      assert.strictEqual(signedIn.status, 200, signedIn.text)
      const consoleCookie = signedIn.headers.get("set-cookie")!.split(";")[0]!
      assert.match(consoleCookie, /^analytics_session=/)

      const link = yield* ok("POST", "/v1/sharing/grants", {
        subject_type: "report",
        subject_id: reportId,
        principal_type: "link",
        actions: ["view", "download"],
        password: "correct horse battery"
      })
      const path = new URL(link.link_url).pathname

      // The password form: unlocked, the link's own session cookie set.
      const unlocked = yield* post(path, "password=correct+horse+battery", { ...fromOwnPage, cookie: consoleCookie })
      assert.strictEqual(unlocked.status, 303, unlocked.text)
      assert.strictEqual(unlocked.location, path)
      const linkCookie = unlocked.cookie!.split(";")[0]!
      assert.match(linkCookie, /^analytics_link_session=/)
      const both = `${consoleCookie}; ${linkCookie}`

      // The share's PDF form: queued, to its status page.
      const shared = yield* post(`${path}/export`, "format=pdf", { ...fromOwnPage, cookie: both })
      assert.strictEqual(shared.status, 303, shared.text)
      assert.match(shared.location!, new RegExp(`^${path}/jobs/`))

      // The embed's PDF form (the iframe's page is the service's own).
      const embed = yield* ok("POST", "/v1/sharing/grants", { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view", "download"] })
      const token = (yield* ok("POST", `/v1/sharing/grants/${embed.grant_id}/embed-tokens`, {})).token as string
      const embedded = yield* post(`/embed/export?token=${encodeURIComponent(token)}`, "format=pdf", { ...fromOwnPage, cookie: consoleCookie })
      assert.strictEqual(embedded.status, 303, embedded.text)
      assert.match(embedded.location!, /\/embed\/jobs\//)

      // A page of another origin cannot act with the visitor's link session, with or without a console session.
      for (const cookie of [linkCookie, both]) {
        for (const from of [{ "sec-fetch-site": "cross-site" }, { origin: "https://attacker.example" }]) {
          const forged = yield* post(`${path}/export`, "format=pdf", { "content-type": "application/x-www-form-urlencoded", accept: "text/html", cookie, ...from })
          assert.strictEqual(forged.status, 403, `${JSON.stringify(from)}: ${forged.text}`)
          assert.strictEqual(forged.code, "auth/csrf-failed")
        }
      }
      const forgedUnlock = yield* post(path, "password=correct+horse+battery", { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "cross-site" })
      assert.strictEqual(forgedUnlock.code, "auth/csrf-failed")
      assert.isNull(forgedUnlock.cookie)

      // An API client (no browser headers) still posts to a share as before.
      const client = yield* server.request("POST", `${path}/export`, { body: { format: "pdf" }, headers: { accept: "application/json", cookie: linkCookie } })
      assert.strictEqual(client.status, 202, client.text)

      // The console's own changes still need the session's CSRF token.
      const unguarded = yield* server.request("POST", "/v1/workspaces", { body: { name: "X" }, headers: { cookie: consoleCookie, "sec-fetch-site": "same-origin" } })
      assert.strictEqual(problemCode(unguarded), "auth/csrf-failed")
      const guarded = yield* server.request("POST", "/v1/workspaces", {
        body: { name: "X" },
        headers: { cookie: consoleCookie, "sec-fetch-site": "same-origin", "x-csrf-token": signedIn.body.csrf_token }
      })
      assert.strictEqual(guarded.status, 201, guarded.text)
    }).pipe(Effect.scoped), 120_000)
})
