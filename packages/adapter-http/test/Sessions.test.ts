/**
 * Console sessions over real HTTP (decision 0022), in-memory stores, the
 * sign-in link e-mailed through a real SMTP server in process: the cookie
 * and its attributes, the CSRF rules, bearer requests unchanged, admin
 * API-token sign-in, sign-out and deprovisioning ending the session, rate
 * limits counted against the tenant, and the OpenAPI document.
 */
import { App } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import { SmtpMailer } from "@analytics/adapter-smtp"
import { problemCode, type RequestOptions, start } from "./TestServer.ts"
import { SmtpServer } from "@analytics/testing/smtp"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/** The link token in the last message the SMTP server got for `to`. */
const linkMailedTo = (received: ReadonlyArray<SmtpServer.Received>, to: string) => {
  const message = [...received].reverse().find((m) => m.to.includes(to))
  assert.isDefined(message, `no mail to ${to}`)
  const raw = message!.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=")
  const match = /\/sign-in#token=([A-Za-z0-9_-]+)/.exec(raw)
  assert.isNotNull(match, raw)
  return match![1]
}

/** The `analytics_session` Set-Cookie of a response, split into its value and attributes. */
const sessionCookieOf = (headers: Headers) => {
  const line = headers.getSetCookie().find((c) => c.startsWith("analytics_session="))
  assert.isDefined(line, `no session cookie in ${JSON.stringify(headers.getSetCookie())}`)
  const [pair, ...attributes] = line!.split(/;\s*/)
  return { value: pair.slice("analytics_session=".length), attributes: attributes.map((a) => a.toLowerCase()) }
}

const setup = Effect.gen(function*() {
  const smtp = yield* SmtpServer.start()
  const server = yield* start(MemoryStores.layer, {
    mailer: SmtpMailer.layer({ url: `smtp://127.0.0.1:${smtp.port}`, from: "Analytics <noreply@analytics.test>" })
  })
  const { token: admin } = yield* server.tenant()
  const ok = (method: string, path: string, body?: unknown) =>
    Effect.map(server.request(method, path, { token: admin, body }), (r) => {
      assert.isBelow(r.status, 300, `${method} ${path}: ${r.text}`)
      return r.body
    })
  /** A user of the tenant signed in through an e-mailed link: their cookie and session info. */
  const signIn = (email: string, roles: ReadonlyArray<string> = ["member"]) =>
    Effect.gen(function*() {
      const user = yield* ok("POST", "/v1/users", { email, name: "Ada Lovelace", roles })
      const asked = yield* server.request("POST", "/api/session/sign-in-links", { body: { email } })
      assert.strictEqual(asked.status, 202, asked.text)
      const opened = yield* server.request("POST", "/api/session", { body: { link_token: linkMailedTo(smtp.received, email) } })
      assert.strictEqual(opened.status, 200, opened.text)
      const cookie = sessionCookieOf(opened.headers).value
      return { userId: user.user_id as string, cookie, info: opened.body, csrf: opened.body.csrf_token as string }
    })
  /** A request with the session cookie (and more headers). */
  const withCookie = (cookie: string, method: string, path: string, options: RequestOptions = {}) =>
    server.request(method, path, { ...options, headers: { cookie: `analytics_session=${cookie}`, ...options.headers } })
  return { smtp, server, admin, ok, signIn, withCookie }
})

describe("console sessions", () => {
  it.live("an e-mailed link signs in once; the cookie is HttpOnly, SameSite=Lax, path /, not Secure on http, without Max-Age", () =>
    Effect.gen(function*() {
      const { server, smtp, ok } = yield* setup
      yield* ok("POST", "/v1/users", { email: "ada@example.com", name: "Ada Lovelace" })
      const asked = yield* server.request("POST", "/api/session/sign-in-links", { body: { email: "Ada@Example.com" } })
      const nobody = yield* server.request("POST", "/api/session/sign-in-links", { body: { email: "nobody@example.com" } })
      // The same answer whoever the address is.
      assert.strictEqual(asked.status, 202, asked.text)
      assert.deepStrictEqual([nobody.status, nobody.text], [asked.status, asked.text])
      assert.deepStrictEqual(asked.body, { sent: true })
      assert.strictEqual(smtp.received.length, 1)
      assert.include(smtp.received[0].raw, "Subject: Sign in to Analytics (Acme)")
      const token = linkMailedTo(smtp.received, "ada@example.com")
      const opened = yield* server.request("POST", "/api/session", { body: { link_token: token } })
      assert.strictEqual(opened.status, 200, opened.text)
      const cookie = sessionCookieOf(opened.headers)
      assert.match(cookie.value, /^[A-Za-z0-9_-]{43}$/)
      assert.sameMembers(cookie.attributes, ["path=/", "httponly", "samesite=lax"])
      assert.deepInclude(opened.body, { via: "link", tenant: { tenant_id: opened.body.tenant.tenant_id, name: "Acme" } })
      assert.deepStrictEqual(opened.body.user, {
        user_id: opened.body.user.user_id,
        email: "ada@example.com",
        display_name: "Ada Lovelace",
        roles: ["member"]
      })
      assert.match(opened.body.csrf_token, /^[0-9a-f]{64}$/)
      const idle = Date.parse(opened.body.idle_expires_at) - Date.now()
      const absolute = Date.parse(opened.body.expires_at) - Date.now()
      assert.isTrue(idle > 59 * 60_000 && idle <= 60 * 60_000, opened.body.idle_expires_at)
      assert.isTrue(absolute > 719 * 60_000 && absolute <= 720 * 60_000, opened.body.expires_at)

      const again = yield* server.request("POST", "/api/session", { body: { link_token: token } })
      assert.strictEqual(problemCode(again), "auth/sign-in-link-invalid")
      assert.strictEqual(again.status, 401)
      assert.include(again.body.detail, "Ask for a new link")
      assert.strictEqual(problemCode(yield* server.request("POST", "/api/session", { body: {} })), "request/invalid")

      const current = yield* server.request("GET", "/api/session", { headers: { cookie: `analytics_session=${cookie.value}` } })
      assert.strictEqual(current.status, 200, current.text)
      assert.strictEqual(current.body.csrf_token, opened.body.csrf_token)
      assert.deepStrictEqual(current.body.user, opened.body.user)
      const none = yield* server.request("GET", "/api/session")
      assert.strictEqual(problemCode(none), "auth/unauthenticated")
      // A bearer token is no session.
      assert.strictEqual((yield* server.request("GET", "/api/session", { token: (yield* server.tenant()).token })).status, 401)
    }).pipe(Effect.scoped))

  it.live("a cookie request changes something only with the CSRF token, from the service's own origin; bearer requests need neither", () =>
    Effect.gen(function*() {
      const { server, admin, signIn, withCookie } = yield* setup
      const { cookie, csrf } = yield* signIn("cy@example.com", ["admin"])
      const create = (headers: Record<string, string>) =>
        withCookie(cookie, "POST", "/v1/workspaces", { body: { name: `W ${crypto.randomUUID()}` }, headers })
      for (
        const [why, headers] of [
          ["no token", {}],
          ["a wrong token", { "x-csrf-token": "0".repeat(64) }],
          ["another page's origin", { "x-csrf-token": csrf, origin: "https://evil.example" }],
          ["a cross-site fetch", { "x-csrf-token": csrf, "sec-fetch-site": "cross-site" }],
          ["a same-site (not same-origin) fetch", { "x-csrf-token": csrf, "sec-fetch-site": "same-site" }]
        ] as const
      ) {
        const refused = yield* create(headers)
        assert.strictEqual(refused.status, 403, `${why}: ${refused.text}`)
        assert.strictEqual(problemCode(refused), "auth/csrf-failed", why)
        assert.strictEqual(refused.body.detail, "Reload the page and try again")
      }
      assert.strictEqual((yield* create({ "x-csrf-token": csrf })).status, 201)
      assert.strictEqual((yield* create({ "x-csrf-token": csrf, origin: "http://127.0.0.1" })).status, 201)
      assert.strictEqual((yield* create({ "x-csrf-token": csrf, "sec-fetch-site": "same-origin" })).status, 201)
      // Reading needs no token.
      assert.strictEqual((yield* withCookie(cookie, "GET", "/v1/workspaces")).status, 200)
      // Bearer requests: unchanged, no CSRF token, whatever the cookie.
      const bearer = yield* server.request("POST", "/v1/workspaces", { token: admin, body: { name: "By token" }, headers: { origin: "https://evil.example" } })
      assert.strictEqual(bearer.status, 201, bearer.text)
      // The dataset upload beside the contract: the cookie, and the same CSRF rule.
      const upload = (headers: Record<string, string>) =>
        withCookie(cookie, "PUT", "/v1/datasets/00000000-0000-7000-8000-000000000000/data", { body: "a\n1\n", headers: { "content-type": "text/csv", ...headers } })
      assert.strictEqual(problemCode(yield* upload({})), "auth/csrf-failed")
      const uploaded = yield* upload({ "x-csrf-token": csrf })
      assert.strictEqual(problemCode(uploaded), "resource/not-found", uploaded.text)
      // Sign-in POSTs have no session yet: only where they come from is checked.
      const foreign = yield* server.request("POST", "/api/session/token", { body: { api_token: admin }, headers: { origin: "https://evil.example" } })
      assert.strictEqual(problemCode(foreign), "auth/csrf-failed")
      const crossSite = yield* server.request("POST", "/api/session/sign-in-links", { body: { email: "cy@example.com" }, headers: { "sec-fetch-site": "cross-site" } })
      assert.strictEqual(problemCode(crossSite), "auth/csrf-failed")
    }).pipe(Effect.scoped))

  it.live("a bad bearer token answers its own 401, cookie or not; bearer wins over the cookie", () =>
    Effect.gen(function*() {
      const { server, signIn, withCookie } = yield* setup
      const { cookie } = yield* signIn("dee@example.com")
      const anonymous = yield* server.request("GET", "/v1/workspaces")
      const bad = yield* server.request("GET", "/v1/workspaces", { token: "ast_not-a-token" })
      const badWithCookie = yield* withCookie(cookie, "GET", "/v1/workspaces", { token: "ast_not-a-token" })
      for (const answer of [anonymous, bad, badWithCookie]) {
        assert.strictEqual(answer.status, 401)
        assert.strictEqual(problemCode(answer), "auth/unauthenticated")
        assert.strictEqual(answer.body.detail, "The bearer token is not valid")
      }
      const ended = yield* withCookie("x".repeat(43), "GET", "/v1/workspaces")
      assert.strictEqual(ended.status, 401)
      assert.match(ended.body.detail, /sign in again/)
    }).pipe(Effect.scoped))

  it.live("session requests are counted against the tenant's limits, not the client address's", () =>
    Effect.gen(function*() {
      const { server, admin, signIn, withCookie } = yield* setup
      const { cookie } = yield* signIn("eve@example.com")
      const byToken = yield* server.request("GET", "/v1/workspaces", { token: admin })
      const bySession = yield* withCookie(cookie, "GET", "/v1/workspaces")
      const anonymous = yield* server.request("GET", "/v1/workspaces")
      assert.strictEqual(bySession.headers.get("x-ratelimit-limit-burst"), "180", "the Growth plan's burst")
      assert.strictEqual(anonymous.headers.get("x-ratelimit-limit-burst"), "60", "a client address's")
      // One bucket for the tenant's reads: the session's request took the next token after the admin's.
      assert.strictEqual(
        Number(bySession.headers.get("x-ratelimit-remaining-burst")),
        Number(byToken.headers.get("x-ratelimit-remaining-burst")) - 1
      )
    }).pipe(Effect.scoped))

  it.live("sign-out ends the session: cookie cleared, the next request 401; audited", () =>
    Effect.gen(function*() {
      const { ok, signIn, withCookie } = yield* setup
      const { cookie, csrf, userId } = yield* signIn("fay@example.com")
      assert.strictEqual(problemCode(yield* withCookie(cookie, "DELETE", "/api/session")), "auth/csrf-failed")
      const out = yield* withCookie(cookie, "DELETE", "/api/session", { headers: { "x-csrf-token": csrf } })
      assert.strictEqual(out.status, 204, out.text)
      const cleared = sessionCookieOf(out.headers)
      assert.strictEqual(cleared.value, "")
      assert.include(cleared.attributes, "max-age=0")
      assert.strictEqual((yield* withCookie(cookie, "GET", "/v1/workspaces")).status, 401)
      assert.strictEqual((yield* withCookie(cookie, "GET", "/api/session")).status, 401)
      const audit = yield* ok("GET", `/v1/audit-log?actor_id=${userId}`)
      assert.deepStrictEqual(audit.data.map((e: any) => e.action), ["session.signed_out", "session.signed_in"])
      assert.deepInclude(audit.data[1].detail, { via: "link", user_id: userId })
    }).pipe(Effect.scoped))

  it.live("deprovisioning the user refuses their next request", () =>
    Effect.gen(function*() {
      const { ok, signIn, withCookie } = yield* setup
      const { cookie, userId } = yield* signIn("gus@example.com")
      assert.strictEqual((yield* withCookie(cookie, "GET", "/v1/workspaces")).status, 200)
      yield* ok("PATCH", `/v1/users/${userId}`, { status: "deprovisioned" })
      assert.strictEqual((yield* withCookie(cookie, "GET", "/v1/workspaces")).status, 401)
    }).pipe(Effect.scoped))

  it.live("a tenant admin's API token signs in until revoked; a member's or the operator's is refused", () =>
    Effect.gen(function*() {
      const { server, admin, ok, withCookie } = yield* setup
      const opened = yield* server.request("POST", "/api/session/token", { body: { api_token: admin } })
      assert.strictEqual(opened.status, 200, opened.text)
      assert.deepInclude(opened.body, { via: "api-token" })
      assert.deepStrictEqual(opened.body.user.roles, ["admin"])
      assert.strictEqual(opened.body.user.display_name, null)
      const cookie = sessionCookieOf(opened.headers).value
      assert.strictEqual((yield* withCookie(cookie, "GET", "/v1/users")).status, 200)

      const member = yield* ok("POST", "/v1/users", { email: "hal@example.com", name: "Hal" })
      const memberToken = (yield* ok("POST", `/v1/users/${member.user_id}/tokens`)).token
      const refused = yield* server.request("POST", "/api/session/token", { body: { api_token: memberToken } })
      assert.strictEqual(refused.status, 403)
      assert.strictEqual(problemCode(refused), "auth/forbidden")
      assert.strictEqual(problemCode(yield* server.request("POST", "/api/session/token", { body: { api_token: "test-operator-token" } })), "auth/forbidden")
      const invalid = yield* server.request("POST", "/api/session/token", { body: { api_token: "ast_not-a-token" } })
      assert.strictEqual(invalid.status, 401)

      const second = yield* ok("POST", "/v1/users", { email: "ivy@example.com", name: "Ivy", roles: ["admin"] })
      const issued = yield* ok("POST", `/v1/users/${second.user_id}/tokens`)
      const personal = yield* server.request("POST", "/api/session/token", { body: { api_token: issued.token } })
      assert.strictEqual(personal.status, 200, personal.text)
      assert.strictEqual(personal.body.user.display_name, "Ivy")
      const personalCookie = sessionCookieOf(personal.headers).value
      assert.strictEqual((yield* withCookie(personalCookie, "GET", "/v1/users")).status, 200)
      yield* ok("DELETE", `/v1/users/${second.user_id}/tokens/${issued.token_id}`)
      assert.strictEqual((yield* withCookie(personalCookie, "GET", "/v1/users")).status, 401)
    }).pipe(Effect.scoped))

  it.live("an accepted invitation signs the new user in, with no API token shown", () =>
    Effect.gen(function*() {
      const { server, smtp, ok, withCookie } = yield* setup
      yield* ok("POST", "/v1/invitations", { email: "jo@example.com", name: "Jo" })
      const raw = smtp.received[0].raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=")
      const token = decodeURIComponent(/\/invitations\/accept\?token=([A-Za-z0-9_%-]+)/.exec(raw)![1])
      const accepted = yield* server.request("POST", "/api/session/invitation", { body: { token } })
      assert.strictEqual(accepted.status, 200, accepted.text)
      assert.deepInclude(accepted.body, { via: "invitation" })
      assert.deepInclude(accepted.body.user, { email: "jo@example.com", display_name: "Jo", roles: ["member"] })
      assert.notProperty(accepted.body, "token")
      assert.strictEqual((yield* ok("GET", `/v1/users/${accepted.body.user.user_id}/tokens`)).data.length, 0)
      const cookie = sessionCookieOf(accepted.headers).value
      assert.strictEqual((yield* withCookie(cookie, "GET", "/v1/workspaces")).status, 200)
      assert.strictEqual(problemCode(yield* server.request("POST", "/api/session/invitation", { body: { token } })), "directory/invitation-closed")
    }).pipe(Effect.scoped))

  it.live("sign-in links are limited per address: the sixth in 15 minutes is a 429", () =>
    Effect.gen(function*() {
      const { server } = yield* setup
      const ask = server.request("POST", "/api/session/sign-in-links", { body: { email: "kai@example.com" } })
      for (let i = 0; i < 5; i++) assert.strictEqual((yield* ask).status, 202)
      const refused = yield* ask
      assert.strictEqual(refused.status, 429)
      assert.strictEqual(problemCode(refused), "rate-limit/sign-in-links-exceeded")
      assert.isNotNull(refused.headers.get("retry-after"))
    }).pipe(Effect.scoped))

  it.live("under a prefix with an https base URL the cookie is Path=/analytics and Secure", () =>
    Effect.gen(function*() {
      const { handler, dispose } = yield* Effect.promise(() =>
        App.nodeHandler({
          stores: MemoryStores.layer,
          publicBaseUrl: "https://example.com/analytics",
          prefix: "/analytics",
          operatorToken: "test-operator-token"
        })
      )
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      const server = createServer((req, res) => handler(req, res))
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/analytics`
      const tenant = yield* Effect.promise(() =>
        fetch(`${base}/v1/tenants`, {
          method: "POST",
          headers: { authorization: "Bearer test-operator-token", "content-type": "application/json" },
          body: JSON.stringify({ name: "Acme", plan: "growth" })
        }).then((r) => r.json())
      )
      const signIn = (origin: string) =>
        Effect.promise(() =>
          fetch(`${base}/api/session/token`, {
            method: "POST",
            headers: { "content-type": "application/json", origin },
            body: JSON.stringify({ api_token: tenant.token })
          })
        )
      const opened = yield* signIn("https://example.com")
      assert.strictEqual(opened.status, 200)
      assert.sameMembers(sessionCookieOf(opened.headers).attributes, ["path=/analytics", "httponly", "samesite=lax", "secure"])
      // The origin is the base URL's, not the address the request reached.
      assert.strictEqual((yield* signIn("http://127.0.0.1")).status, 403)
    }).pipe(Effect.scoped))

  it.live("the OpenAPI document lists the session cookie as a security scheme of /v1", () =>
    Effect.gen(function*() {
      const { server } = yield* setup
      const doc = (yield* server.request("GET", "/v1/openapi.json")).body
      assert.deepInclude(doc.components.securitySchemes.session, { type: "apiKey", in: "cookie", name: "analytics_session" })
      assert.deepInclude(doc.paths["/v1/workspaces"].get.security, { session: [] })
      assert.deepInclude(doc.paths["/v1/workspaces"].get.security, { bearer: [] })
      assert.property(doc.paths, "/api/session")
    }).pipe(Effect.scoped))
})
