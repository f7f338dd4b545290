/**
 * Signed values accept only the spelling the service gave them (decisions
 * 0014 and 0003): an embed token, a link session, a signed result
 * URL and a cursor with `=` appended, or with their last character
 * respelled to decode to the same bytes, are refused as a forgery would be.
 */
import { MemoryStores } from "@analytics/adapter-memory"
import { SignedUrl } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { problemCode, start, type TestServer } from "./TestServer.ts"

const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

/** The same bytes in another spelling: the last character with its lowest (unused) bit flipped. */
const respelled = (text: string) => text.slice(0, -1) + alphabet[alphabet.indexOf(text[text.length - 1]!) ^ 1]

/** A report to share, in a fresh workspace. */
const report = (server: TestServer, token: string) =>
  Effect.gen(function*() {
    const workspace = yield* server.request("POST", "/v1/workspaces", { token, body: { name: "Board" } })
    const created = yield* server.request("POST", "/v1/reports", { token, body: { workspace_id: workspace.body.workspace_id, name: "Board pack" } })
    assert.strictEqual(created.status, 201, created.text)
    return created.body.report_id as string
  })

describe("canonical encodings over HTTP", () => {
  it.effect("an embed token with `=` appended or a respelled signature is refused (401 share/token-invalid)", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const reportId = yield* report(server, token)
      const grant = yield* server.request("POST", "/v1/sharing/grants", {
        token,
        body: { subject_type: "report", subject_id: reportId, principal_type: "embed", actions: ["view"] }
      })
      assert.strictEqual(grant.status, 201, grant.text)
      const embed = grant.body.embed.token as string
      const view = (t: string) => server.request("GET", `/embed?token=${encodeURIComponent(t)}`, { headers: { accept: "application/json" } })
      assert.strictEqual((yield* view(embed)).status, 200)
      for (const variant of [`${embed}=`, `${embed}==`, respelled(embed), `${embed}.`]) {
        const refused = yield* view(variant)
        assert.strictEqual(refused.status, 401, variant)
        assert.strictEqual(problemCode(refused), "share/token-invalid")
      }
    }).pipe(Effect.scoped))

  it.effect("a link session cookie with `=` appended or a respelled signature opens nothing", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const reportId = yield* report(server, token)
      const link = yield* server.request("POST", "/v1/sharing/grants", {
        token,
        body: { subject_type: "report", subject_id: reportId, principal_type: "link", actions: ["view"], password: "correct horse battery" }
      })
      const path = new URL(link.body.link_url).pathname
      const json = { accept: "application/json" }
      const unlocked = yield* server.request("POST", path, {
        body: JSON.stringify({ password: "correct horse battery" }),
        headers: { ...json, "content-type": "application/json" }
      })
      const [name, value] = unlocked.headers.get("set-cookie")!.split(";")[0]!.split(/=(.*)/s) as [string, string]
      assert.strictEqual((yield* server.request("GET", path, { headers: { ...json, cookie: `${name}=${value}` } })).status, 200)
      for (const variant of [`${value}=`, respelled(value)]) {
        const refused = yield* server.request("GET", path, { headers: { ...json, cookie: `${name}=${variant}` } })
        assert.strictEqual(problemCode(refused), "share/password-required", variant)
      }
    }).pipe(Effect.scoped))

  it.effect("a signed result URL with `=` appended or a respelled signature is refused (403 export/url-invalid)", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { tenantId } = yield* server.tenant()
      const signer = Context.get(
        yield* Layer.build(SignedUrl.UrlSigner.layer.pipe(Layer.provide(Layer.succeedContext(server.stores)))),
        SignedUrl.UrlSigner
      )
      // No such job: a URL signed right passes the signature check and finds nothing (404).
      const jobId = crypto.randomUUID()
      const path = `/v1/jobs/${jobId}/file?tenant=${tenantId}`
      const { expires, signature } = yield* signer.sign(path, new Date(Date.now() + 3_600_000))
      const get = (sig: string) => server.request("GET", `${path}&expires=${expires}&signature=${encodeURIComponent(sig)}`)
      assert.strictEqual(problemCode(yield* get(signature)), "resource/not-found")
      for (const variant of [`${signature}=`, `${signature}==`, respelled(signature)]) {
        const refused = yield* get(variant)
        assert.strictEqual(refused.status, 403, variant)
        assert.strictEqual(problemCode(refused), "export/url-invalid")
      }
    }).pipe(Effect.scoped))

  it.effect("a cursor with `=` appended or its last character respelled is refused (400 pagination/cursor-invalid)", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      for (const name of ["a", "b"]) yield* server.request("POST", "/v1/workspaces", { token, body: { name } })
      const first = yield* server.request("GET", "/v1/workspaces?limit=1", { token })
      const cursor = first.body.page.next_cursor as string
      const page = (c: string) => server.request("GET", `/v1/workspaces?limit=1&cursor=${encodeURIComponent(c)}`, { token })
      assert.strictEqual((yield* page(cursor)).status, 200)
      for (const variant of [`${cursor}=`, respelled(cursor)]) {
        const refused = yield* page(variant)
        assert.strictEqual(refused.status, 400, variant)
        assert.strictEqual(problemCode(refused), "pagination/cursor-invalid")
      }
    }).pipe(Effect.scoped))
})
