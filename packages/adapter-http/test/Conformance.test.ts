/**
 * The contract's fields, codes and headers, over real HTTP on every store
 * (memory, PGlite, PostgreSQL), under the test clock:
 * - cursors are one sealed base64url string, bound to the endpoint, the
 *   whole query string (`limit` included) and the tenant, 24 hours
 *   (decision 0003);
 * - every `/v1` response carries the limit headers, 401s and the operator's
 *   included (decision 0009);
 * - the token lists answer the list envelope, newest first, by pages;
 * - an event's `workspace_id` is always a string, `"*"` for tenant-wide
 *   events, which webhooks scoped to a workspace do not hear (decision 0010);
 * - only an active grant is revoked: an expired one stays expired, a revoked
 *   one stays revoked, both 409 `grant/not-active` (decision 0014); a link's
 *   open is counted at the service's clock.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { SqlStores } from "@analytics/adapter-postgres"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, type Scope } from "effect"
import { TestClock } from "effect/testing"
import type * as App from "../src/App.ts"
import { type JsonResponse, operatorToken, problemCode, rateLimitHeaders, start, type TestServer } from "./TestServer.ts"

/** How a suite gets its stores: a fresh set per test. */
type Stores = () => Effect.Effect<Layer.Layer<App.Stores, unknown>, never, Scope.Scope>

const stores: ReadonlyArray<readonly [name: string, stores: Stores, skip: string | undefined]> = [
  ["memory", () => Effect.succeed(MemoryStores.layer), undefined],
  ["PGlite", () => Effect.succeed(SqlStores.layerPglite()), undefined],
  [
    "PostgreSQL",
    () => Effect.map(freshDatabase(databaseUrl), (url) => SqlStores.layerPg(Redacted.make(url)) as Layer.Layer<App.Stores, unknown>),
    databaseUrl === "" ? skippedForNoPostgres : undefined
  ]
]


/** The limit headers a response lacks. */
const missingLimitHeaders = (response: JsonResponse) => rateLimitHeaders.filter((name) => !response.headers.has(name))

/** A request that must answer `status`; its body. */
const expect = (server: TestServer, status: number) => (method: string, path: string, token: string, body?: unknown) =>
  Effect.map(server.request(method, path, { token, body }), (r) => {
    assert.strictEqual(r.status, status, `${method} ${path}: ${r.text}`)
    return r.body
  })

/** Follows `next_cursor` from `path` (which carries its own query) to the end; every page's body. */
const walk = (server: TestServer, token: string, path: string) =>
  Effect.gen(function*() {
    const pages: Array<any> = []
    let next = path
    for (let i = 0; i < 50; i++) {
      const page = yield* expect(server, 200)("GET", next, token)
      assert.deepStrictEqual(Object.keys(page), ["data", "page"])
      assert.deepStrictEqual(Object.keys(page.page), ["limit", "next_cursor", "has_more"])
      assert.strictEqual(page.page.has_more, page.page.next_cursor !== null)
      pages.push(page)
      if (page.page.next_cursor === null) return pages
      next = `${path}${path.includes("?") ? "&" : "?"}cursor=${encodeURIComponent(page.page.next_cursor)}`
    }
    throw new Error(`${path} did not end`)
  })

const suite = (name: string, storesOf: Stores, skip: string | undefined) =>
  (skip === undefined ? describe : describe.skip)(`conformance on ${name}${skip === undefined ? "" : ` ${skip}`}`, () => {
    const serve = Effect.flatMap(storesOf(), (layer) => start(layer, { trustedProxies: ["127.0.0.1/32"] }))

    it.effect("a cursor is one sealed base64url string, bound to the endpoint, the whole query string and the tenant, for 24 hours", () =>
      Effect.gen(function*() {
        const server = yield* serve
        const a = yield* server.tenant()
        const b = yield* server.tenant()
        const created = expect(server, 201)
        for (const name of ["a", "b", "c"]) yield* created("POST", "/v1/workspaces", a.token, { name })
        yield* created("POST", "/v1/workspaces", b.token, { name: "b's" })
        const first = yield* expect(server, 200)("GET", "/v1/workspaces?limit=1&sort=name", a.token)
        const cursor: string = first.page.next_cursor
        assert.match(cursor, /^[A-Za-z0-9_-]+$/)
        const bytes = Buffer.from(cursor, "base64url")
        assert.strictEqual(bytes.toString("base64url"), cursor, "canonical, unpadded")
        // Strings of 4 bytes or more: a shorter one turns up in random bytes now and then.
        for (const readable of ["workspaces", "GET /", "name", a.tenantId, "{\"v\":"]) assert.notInclude(bytes.toString("latin1"), readable)

        const page = (query: string, token = a.token) =>
          server.request("GET", `/v1/workspaces?${query}&cursor=${encodeURIComponent(cursor)}`, { token })
        const next = yield* page("limit=1&sort=name")
        assert.strictEqual(next.status, 200, next.text)
        assert.deepStrictEqual(next.body.data.map((w: any) => w.name), ["b"])
        assert.strictEqual((yield* page("sort=name&limit=1")).status, 200, "the parameters' order does not matter")
        for (const query of ["limit=2&sort=name", "sort=name", "limit=1", "limit=1&sort=-name"]) {
          const refused = yield* page(query)
          assert.strictEqual(refused.status, 400, query)
          assert.strictEqual(problemCode(refused), "pagination/cursor-mismatch", query)
        }
        const crossTenant = yield* page("limit=1&sort=name", b.token)
        assert.strictEqual(crossTenant.status, 400, crossTenant.text)
        assert.strictEqual(problemCode(crossTenant), "pagination/cursor-mismatch")
        const otherEndpoint = yield* server.request("GET", `/v1/webhooks?limit=1&sort=name&cursor=${encodeURIComponent(cursor)}`, { token: a.token })
        assert.strictEqual(otherEndpoint.status, 400)

        const flipped = Buffer.from(bytes)
        flipped[flipped.length - 1] ^= 1
        for (const forged of [flipped.toString("base64url"), `${cursor}=`, `${cursor}.`, cursor.slice(1)]) {
          const refused = yield* server.request("GET", `/v1/workspaces?limit=1&sort=name&cursor=${encodeURIComponent(forged)}`, { token: a.token })
          assert.strictEqual(refused.status, 400, forged)
          assert.strictEqual(problemCode(refused), "pagination/cursor-invalid", forged)
        }

        yield* TestClock.adjust("24 hours")
        assert.strictEqual((yield* page("limit=1&sort=name")).status, 200)
        yield* TestClock.adjust("1 millis")
        const expired = yield* page("limit=1&sort=name")
        assert.strictEqual(expired.status, 400)
        assert.strictEqual(problemCode(expired), "pagination/cursor-expired")
      }).pipe(Effect.scoped), 60_000)

    it.effect("every /v1 response carries the six X-RateLimit headers and RateLimit: 401s by client address, the operator by its own quota", () =>
      Effect.gen(function*() {
        const server = yield* serve
        const { token } = yield* server.tenant("starter")
        const from = { "x-forwarded-for": "192.0.2.10" }
        const answers: Array<readonly [string, number, JsonResponse]> = [
          ["no credential", 401, yield* server.request("GET", "/v1/workspaces", { headers: from })],
          ["an unknown token", 401, yield* server.request("GET", "/v1/workspaces", { token: "ast_guessed", headers: from })],
          ["an unknown route", 404, yield* server.request("GET", "/v1/nothing-here", { headers: from })],
          ["a bad body", 401, yield* server.request("POST", "/v1/workspaces", { body: "{not json", headers: from })],
          ["the operator", 201, yield* server.request("POST", "/v1/tenants", { token: operatorToken, body: { name: "Beta", plan: "growth" } })],
          ["the operator, refused", 403, yield* server.request("GET", "/v1/workspaces", { token: operatorToken })],
          ["a tenant", 200, yield* server.request("GET", "/v1/workspaces", { token })],
          ["a tenant, refused", 400, yield* server.request("GET", "/v1/workspaces?limit=0", { token })]
        ]
        for (const [who, status, response] of answers) {
          assert.strictEqual(response.status, status, `${who}: ${response.text}`)
          assert.deepStrictEqual(missingLimitHeaders(response), [], who)
        }
        const limits = (r: JsonResponse) => [r.headers.get("x-ratelimit-limit-burst"), r.headers.get("x-ratelimit-limit-sustained")]
        // The client address's quota (all classes together): the Starter plan's numbers, spent one by one.
        assert.deepStrictEqual(answers.slice(0, 4).map(([, , r]) => r.headers.get("x-ratelimit-remaining-burst")), ["59", "58", "57", "56"])
        for (const [, , r] of answers.slice(0, 4)) assert.deepStrictEqual(limits(r), ["60", "2000"])
        assert.deepStrictEqual(limits(answers[4]![2]), ["600", "100000"])
        assert.deepStrictEqual(limits(answers[6]![2]), ["60", "2000"])
        // Another address has its own quota.
        const elsewhere = yield* server.request("GET", "/v1/workspaces", { headers: { "x-forwarded-for": "192.0.2.11" } })
        assert.strictEqual(elsewhere.headers.get("x-ratelimit-remaining-burst"), "59")
      }).pipe(Effect.scoped), 60_000)

    it.effect("GET /v1/scim-tokens and GET /v1/users/{id}/tokens answer the list envelope, newest first, by pages", () =>
      Effect.gen(function*() {
        const server = yield* serve
        const { token } = yield* server.tenant()
        const created = expect(server, 201)
        const scim: Array<string> = []
        for (let i = 0; i < 3; i++) {
          scim.push((yield* created("POST", "/v1/scim-tokens", token)).token_id)
          yield* TestClock.adjust("1 millis")
        }
        const user = yield* created("POST", "/v1/users", token, { email: "ada@example.com", name: "Ada" })
        const personal: Array<string> = []
        for (let i = 0; i < 3; i++) {
          personal.push((yield* created("POST", `/v1/users/${user.user_id}/tokens`, token)).token_id)
          yield* TestClock.adjust("1 millis")
        }
        for (const [path, ids] of [["/v1/scim-tokens", scim], [`/v1/users/${user.user_id}/tokens`, personal]] as const) {
          const all = yield* expect(server, 200)("GET", path, token)
          assert.deepStrictEqual(all.page, { limit: 50, next_cursor: null, has_more: false })
          assert.deepStrictEqual(all.data.map((t: any) => t.token_id), [...ids].reverse())
          assert.deepStrictEqual(Object.keys(all.data[0]), ["token_id", "created_at"])
          const pages = yield* walk(server, token, `${path}?limit=2`)
          assert.deepStrictEqual(pages.map((p) => p.data.map((t: any) => t.token_id)), [[ids[2], ids[1]], [ids[0]]])
          assert.deepStrictEqual(pages.map((p) => p.page.limit), [2, 2])
          assert.strictEqual(problemCode(yield* server.request("GET", `${path}?limit=0`, { token })), "request/invalid")
          assert.strictEqual(problemCode(yield* server.request("GET", `${path}?cursor=garbage`, { token })), "pagination/cursor-invalid")
        }
        // A cursor of one holder's list does not continue another's.
        const scimCursor = (yield* expect(server, 200)("GET", "/v1/scim-tokens?limit=1", token)).page.next_cursor
        const crossed = yield* server.request("GET", `/v1/users/${user.user_id}/tokens?limit=1&cursor=${encodeURIComponent(scimCursor)}`, { token })
        assert.strictEqual(problemCode(crossed), "pagination/cursor-mismatch")
      }).pipe(Effect.scoped), 60_000)

    it.effect("events: workspace_id is always a string, \"*\" for tenant-wide events, which only tenant-wide webhooks hear", () =>
      Effect.gen(function*() {
        const server = yield* serve
        const { token } = yield* server.tenant()
        const created = expect(server, 201)
        const workspace = (yield* created("POST", "/v1/workspaces", token, { name: "Sales" })).workspace_id as string
        const events = ["scim.user.provisioned", "scim.user.deprovisioned", "export.succeeded"]
        const everywhere = (yield* created("POST", "/v1/webhooks", token, { url: "https://hooks.example.com/all", events })).webhook_id
        const scoped = (yield* created("POST", "/v1/webhooks", token, { url: "https://hooks.example.com/ws", events, workspace_id: workspace })).webhook_id
        const idp = (yield* created("POST", "/v1/scim-tokens", token)).token as string
        const provisioned = yield* server.request("POST", "/scim/v2/Users", {
          token: idp,
          headers: { "content-type": "application/scim+json" },
          body: { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "ada@example.com", active: true }
        })
        assert.strictEqual(provisioned.status, 201, provisioned.text)
        const deliveries = (webhook: string) =>
          Effect.map(expect(server, 200)("GET", `/v1/webhooks/${webhook}/deliveries`, token), (page) => page.data.map((d: any) => d.event))
        const heard = yield* deliveries(everywhere)
        assert.deepStrictEqual(heard.map((e: any) => [e.type, e.workspace_id]), [["scim.user.provisioned", "*"]])
        assert.deepStrictEqual(yield* deliveries(scoped), [], "a webhook scoped to a workspace does not hear the tenant's events")
        // A test send of each type: "*" for the tenant-wide type, the webhook's workspace for the others.
        for (const [webhook, type, expected] of [
          [scoped, "scim.user.deprovisioned", "*"],
          [scoped, "export.succeeded", workspace],
          [everywhere, "scim.user.deprovisioned", "*"]
        ] as const) {
          const sent = yield* expect(server, 202)("POST", `/v1/webhooks/${webhook}/test`, token, { type })
          const delivery = yield* expect(server, 200)("GET", `/v1/webhooks/${webhook}/deliveries/${sent.delivery_id}`, token)
          assert.strictEqual(delivery.event.workspace_id, expected, `${type} to ${webhook === scoped ? "scoped" : "tenant-wide"}`)
        }
        for (const webhook of [everywhere, scoped]) {
          for (const event of yield* deliveries(webhook)) assert.isString(event.workspace_id, event.type)
        }
        // The webhooks section of the OpenAPI document says so.
        const document = yield* expect(server, 200)("GET", "/v1/openapi.json", token)
        const workspaceIdOf = (type: string) => document.webhooks[type].post.requestBody.content["application/json"].schema.properties.workspace_id
        assert.deepInclude(workspaceIdOf("scim.user.provisioned"), { type: "string", enum: ["*"] })
        assert.strictEqual(workspaceIdOf("export.succeeded").type, "string")
        for (const type of Object.keys(document.webhooks)) {
          assert.strictEqual(workspaceIdOf(type).type, "string", type)
          assert.notInclude(JSON.stringify(workspaceIdOf(type)), "null", type)
        }
      }).pipe(Effect.scoped), 60_000)

    it.effect("only an active grant is revoked: an expired one stays expired (share/expired), a revoked one stays revoked; both 409 grant/not-active", () =>
      Effect.gen(function*() {
        const server = yield* serve
        const { token } = yield* server.tenant()
        const created = expect(server, 201)
        const ok = expect(server, 200)
        const workspace = (yield* created("POST", "/v1/workspaces", token, { name: "Sales" })).workspace_id as string
        const report = (yield* created("POST", "/v1/reports", token, { workspace_id: workspace, name: "Board pack" })).report_id as string
        const user = yield* created("POST", "/v1/users", token, { email: "dave@example.com", name: "Dave" })
        const dave = (yield* created("POST", `/v1/users/${user.user_id}/tokens`, token)).token as string
        const now = Date.parse((yield* ok("GET", "/v1/workspaces", token)).data[0].created_at)
        const onReport = { subject_type: "report", subject_id: report, actions: ["view", "edit"] }
        const expiring = yield* created("POST", "/v1/sharing/grants", token, {
          ...onReport,
          principal_type: "user",
          principal_id: user.user_id,
          expires_at: new Date(now + 1_000).toISOString()
        })
        const rename = (name: string) => server.request("PATCH", `/v1/reports/${report}`, { token: dave, body: { name } })
        assert.strictEqual((yield* rename("Dave's")).status, 200)
        yield* TestClock.adjust("1 second")
        assert.strictEqual(problemCode(yield* rename("Dave's again")), "share/expired")
        const revokeExpired = yield* server.request("DELETE", `/v1/sharing/grants/${expiring.grant_id}`, { token })
        assert.strictEqual(revokeExpired.status, 409, revokeExpired.text)
        assert.strictEqual(problemCode(revokeExpired), "grant/not-active")
        assert.strictEqual(revokeExpired.body.state, "expired")
        assert.deepInclude(yield* ok("GET", `/v1/sharing/grants/${expiring.grant_id}`, token), { state: "expired", revoked_at: null })
        assert.strictEqual(problemCode(yield* rename("Dave's third")), "share/expired", "its principal still hears share/expired")
        assert.deepStrictEqual((yield* ok("GET", "/v1/sharing/grants?state=expired", token)).data.map((g: any) => g.grant_id), [expiring.grant_id])
        assert.deepStrictEqual((yield* ok("GET", "/v1/sharing/grants?state=revoked", token)).data, [])

        // An active grant is revoked once; again, 409 naming its state, and the record unchanged.
        const active = yield* created("POST", "/v1/sharing/grants", token, { ...onReport, principal_type: "link" })
        // Its page opened a minute on: counted at the service's clock (decision 0014, "Labels and opens").
        yield* TestClock.adjust("1 minute")
        const page = yield* server.request("GET", new URL(active.link_url).pathname, { headers: { accept: "text/html" } })
        assert.strictEqual(page.status, 200, page.text)
        assert.deepInclude(yield* ok("GET", `/v1/sharing/grants/${active.grant_id}`, token), {
          open_count: 1,
          last_opened_at: new Date(Date.parse(active.created_at) + 60_000).toISOString()
        })
        const revoked = yield* ok("DELETE", `/v1/sharing/grants/${active.grant_id}`, token)
        assert.strictEqual(revoked.state, "revoked")
        yield* TestClock.adjust("1 second")
        const again = yield* server.request("DELETE", `/v1/sharing/grants/${active.grant_id}`, { token })
        assert.strictEqual(again.status, 409, again.text)
        assert.deepInclude(again.body, { code: "grant/not-active", state: "revoked" })
        assert.deepStrictEqual(yield* ok("GET", `/v1/sharing/grants/${active.grant_id}`, token), revoked)
        const audit = (yield* ok("GET", "/v1/audit-log?target_type=grant", token)).data
        assert.deepStrictEqual(
          audit.filter((e: any) => e.action === "grant.revoked").map((e: any) => e.target.id),
          [active.grant_id],
          "one revocation recorded, none for the expired grant nor the repeat"
        )
      }).pipe(Effect.scoped), 60_000)
  })

for (const [name, storesOf, skip] of stores) suite(name, storesOf, skip)
