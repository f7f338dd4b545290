import { MemoryStores } from "@analytics/adapter-memory"
import { Errors, WorkspaceStore } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { request as httpRequest } from "node:http"
import { operatorToken, problemCode, start } from "./TestServer.ts"

/** Memory stores whose WorkspaceStore.insert fails the given way. */
const faultyInsert = (fault: Effect.Effect<never, Errors.StoreError>) =>
  Layer.mergeAll(
    MemoryStores.layer,
    Layer.effect(
      WorkspaceStore.WorkspaceStore,
      Effect.map(MemoryStores.workspaceStore, (store) => ({ ...store, insert: () => fault }))
    )
  )

/** Sends a body without Content-Length (chunked), which fetch cannot do for a string. */
const chunkedPost = (url: string, path: string, token: string, chunks: ReadonlyArray<string>) =>
  Effect.callback<{ status: number; contentType: string; body: string }>((resume) => {
    const req = httpRequest(url + path, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "transfer-encoding": "chunked" }
    }, (res) => {
      let body = ""
      res.on("data", (chunk) => (body += chunk))
      res.on("end", () =>
        resume(Effect.succeed({ status: res.statusCode ?? 0, contentType: res.headers["content-type"] ?? "", body })))
    })
    req.on("error", (error) => resume(Effect.die(error)))
    let i = 0
    const writeNext = () => {
      while (i < chunks.length) {
        if (!req.write(chunks[i++])) return void req.once("drain", writeNext)
      }
      req.end()
    }
    writeNext()
  })

describe("HTTP errors are problem+json", () => {
  it.live("unknown routes answer 404 and wrong methods 405 with Allow", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const missing = yield* server.request("GET", "/v1/nothing-here")
      assert.strictEqual(missing.status, 404)
      assert.strictEqual(problemCode(missing), "route/not-found")
      const wrongMethod = yield* server.request("DELETE", "/v1/workspaces")
      assert.strictEqual(wrongMethod.status, 405)
      assert.strictEqual(problemCode(wrongMethod), "route/method-not-allowed")
      assert.strictEqual(wrongMethod.headers.get("allow"), "GET, POST")
      const root = yield* server.request("PUT", "/healthz")
      assert.strictEqual(root.status, 405)
      assert.strictEqual(root.headers.get("allow"), "GET")
    }).pipe(Effect.scoped))

  it.live("an unknown page asked for by a browser is a page in words; API clients and API paths keep the problem", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
      const page = yield* server.request("GET", "/nope", { headers: { accept: browser } })
      assert.strictEqual(page.status, 404)
      assert.strictEqual(page.headers.get("content-type"), "text/html; charset=utf-8")
      assert.include(page.text, "This page does not exist")
      assert.include(page.text, `<a href="./">`)
      assert.match(page.headers.get("content-security-policy") ?? "", /^default-src 'none'; .*frame-ancestors 'none'/)
      // Deeper, the link still reaches the console's root.
      const deep = yield* server.request("GET", "/a/b/nope", { headers: { accept: browser } })
      assert.include(deep.text, `<a href="../../">`)
      for (const accept of ["application/json", "*/*", "application/problem+json"]) {
        const api = yield* server.request("GET", "/nope", { headers: { accept } })
        assert.strictEqual(api.status, 404, accept)
        assert.strictEqual(api.headers.get("content-type"), "application/problem+json", accept)
        assert.strictEqual(problemCode(api), "route/not-found", accept)
      }
      for (const path of ["/v1/nothing-here", "/v1", "/api/nothing-here"]) {
        const api = yield* server.request("GET", path, { headers: { accept: browser } })
        assert.strictEqual(api.status, 404, path)
        assert.strictEqual(api.headers.get("content-type"), "application/problem+json", path)
      }
      // A wrong method stays a problem, even from a browser.
      const wrongMethod = yield* server.request("DELETE", "/v1/workspaces", { headers: { accept: browser } })
      assert.strictEqual(wrongMethod.status, 405)
    }).pipe(Effect.scoped))

  it.live("a missing or unknown token answers 401 with WWW-Authenticate", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      for (const token of [undefined, "", "ast_not-a-real-token", "x".repeat(2000)]) {
        const response = yield* server.request("GET", "/v1/workspaces", token === undefined ? {} : { token })
        assert.strictEqual(response.status, 401, `token ${token}`)
        assert.strictEqual(problemCode(response), "auth/unauthenticated")
        assert.strictEqual(response.headers.get("www-authenticate"), "Bearer")
      }
      const basic = yield* server.request("GET", "/v1/workspaces", { headers: { authorization: "Basic dTpw" } })
      assert.strictEqual(basic.status, 401)
    }).pipe(Effect.scoped))

  it.live("the operator token only provisions tenants; a member token cannot provision", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const operatorList = yield* server.request("GET", "/v1/workspaces", { token: operatorToken })
      assert.strictEqual(operatorList.status, 403)
      assert.strictEqual(problemCode(operatorList), "auth/forbidden")
      const { token } = yield* server.tenant()
      const memberProvision = yield* server.request("POST", "/v1/tenants", {
        token,
        body: { name: "Other", plan: "starter" }
      })
      assert.strictEqual(memberProvision.status, 403)
      assert.strictEqual(problemCode(memberProvision), "auth/forbidden")
    }).pipe(Effect.scoped))

  it.live("validation failures list every issue and change nothing", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const response = yield* server.request("POST", "/v1/workspaces", {
        token,
        body: { name: "  padded  ", description: 42, colour: "red" }
      })
      assert.strictEqual(response.status, 400)
      assert.strictEqual(problemCode(response), "request/invalid")
      const paths = response.body.errors.map((e: { path: Array<string> }) => e.path.join("."))
      assert.includeMembers(paths, ["payload.name", "payload.description", "payload.colour"])
      const tenant = yield* server.request("POST", "/v1/tenants", {
        token: operatorToken,
        body: { name: "", plan: "platinum" }
      })
      assert.strictEqual(tenant.status, 400)
      assert.includeMembers(tenant.body.errors.map((e: { path: Array<string> }) => e.path.join(".")), [
        "payload.name",
        "payload.plan"
      ])
      const list = yield* server.request("GET", "/v1/workspaces", { token })
      assert.deepStrictEqual(list.body.data, [])
    }).pipe(Effect.scoped))

  it.live("malformed JSON, wrong media types and non-object bodies are 4xx problems", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const malformed = yield* server.request("POST", "/v1/workspaces", { token, body: "{\"name\": " })
      assert.strictEqual(malformed.status, 400)
      assert.strictEqual(problemCode(malformed), "request/malformed-json")
      const media = yield* server.request("POST", "/v1/workspaces", {
        token,
        body: "name=x",
        headers: { "content-type": "application/x-www-form-urlencoded" }
      })
      assert.strictEqual(media.status, 415)
      assert.strictEqual(problemCode(media), "request/unsupported-media-type")
      for (const body of ["[]", "null", "\"text\"", "12"]) {
        const response = yield* server.request("POST", "/v1/workspaces", { token, body })
        assert.strictEqual(response.status, 400, body)
        assert.strictEqual(problemCode(response), "request/invalid")
      }
      const empty = yield* server.request("POST", "/v1/workspaces", { token, headers: { "content-type": "application/json" } })
      assert.strictEqual(empty.status, 400)
      assert.strictEqual(problemCode(empty), "request/invalid")
    }).pipe(Effect.scoped))

  it.live("oversized bodies answer 413, with or without Content-Length", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const big = JSON.stringify({ name: "x", description: "y".repeat(1_100_000) })
      const declared = yield* server.request("POST", "/v1/workspaces", { token, body: big })
      assert.strictEqual(declared.status, 413)
      assert.strictEqual(problemCode(declared), "request/body-too-large")
      const chunks = Array.from({ length: 40 }, (_, i) => (i === 0 ? "{\"name\":\"x\",\"description\":\"" : "y".repeat(32_768)))
      const chunked = yield* chunkedPost(server.url, "/v1/workspaces", token, [...chunks, "\"}"])
      assert.strictEqual(chunked.status, 413)
      assert.isTrue(chunked.contentType.startsWith("application/problem+json"))
      const list = yield* server.request("GET", "/v1/workspaces", { token })
      assert.deepStrictEqual(list.body.data, [])
    }).pipe(Effect.scoped))

  it.live("a client waiting for 100 Continue is told to send its body, and a client gone mid-body leaves the server serving", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const continued = yield* Effect.callback<{ status: number; continued: boolean }>((resume) => {
        let continued = false
        const req = httpRequest(server.url + "/v1/workspaces", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", expect: "100-continue" }
        }, (res) => {
          res.resume()
          res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, continued })))
        })
        req.on("continue", () => {
          continued = true
          req.end(JSON.stringify({ name: "Patient" }))
        })
        req.on("error", (error) => resume(Effect.die(error)))
        req.flushHeaders()
      })
      assert.deepStrictEqual(continued, { status: 201, continued: true })

      // Half a body, then the connection is dropped: the read ends without an answer to give.
      yield* Effect.callback<void>((resume) => {
        const req = httpRequest(server.url + "/v1/workspaces", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "transfer-encoding": "chunked" }
        })
        req.on("error", () => resume(Effect.void))
        req.write("{\"name\":\"Half")
        setTimeout(() => req.destroy(), 50)
      })
      const list = yield* server.request("GET", "/v1/workspaces", { token })
      assert.strictEqual(list.status, 200)
      assert.deepStrictEqual(list.body.data.map((w: { name: string }) => w.name), ["Patient"])
    }).pipe(Effect.scoped))

  it.live("a defect answers 500 internal without a stack trace; a store failure answers 503", () =>
    Effect.gen(function*() {
      const broken = yield* start(faultyInsert(Effect.die(new Error("disk on fire"))))
      const { token } = yield* broken.tenant()
      const defect = yield* broken.request("POST", "/v1/workspaces", { token, body: { name: "Sales" } })
      assert.strictEqual(defect.status, 500)
      assert.strictEqual(problemCode(defect), "internal")
      assert.notInclude(defect.text, "disk on fire")
      // 5xx answers of a tenant carry the rate-limit headers too (decision 0009: every response).
      assert.strictEqual(defect.headers.get("x-ratelimit-limit-burst"), "180")
      assert.isNotNull(defect.headers.get("ratelimit"))

      const down = yield* start(faultyInsert(Effect.fail(new Errors.StoreError({ operation: "insert", cause: "down" }))))
      const other = yield* down.tenant()
      const unavailable = yield* down.request("POST", "/v1/workspaces", { token: other.token, body: { name: "Sales" } })
      assert.strictEqual(unavailable.status, 503)
      assert.strictEqual(problemCode(unavailable), "service/unavailable")
      assert.strictEqual(unavailable.headers.get("x-ratelimit-remaining-burst"), "179")
    }).pipe(Effect.scoped))
})

describe("system endpoints and documentation", () => {
  it.live("healthz, public configuration, OpenAPI with real query types, reference page", () =>
    Effect.gen(function*() {
      const server = yield* start(MemoryStores.layer)
      const health = yield* server.request("GET", "/healthz")
      assert.strictEqual(health.status, 200)
      assert.strictEqual(health.body.status, "ok")
      const config = yield* server.request("GET", "/api/config/public")
      assert.strictEqual(config.status, 200)
      assert.strictEqual(config.body.urls.openapi, "http://127.0.0.1/v1/openapi.json")
      assert.isString(config.body.branding.name)
      assert.isObject(config.body.features)

      const openapi = yield* server.request("GET", "/v1/openapi.json")
      assert.strictEqual(openapi.status, 200)
      assert.strictEqual(openapi.body.openapi, "3.1.0")
      const list = openapi.body.paths["/v1/workspaces"].get
      const limit = list.parameters.find((p: { name: string }) => p.name === "limit")
      assert.deepInclude(limit.schema, { type: "integer", minimum: 1, maximum: 500, default: 50 })
      const sort = list.parameters.find((p: { name: string }) => p.name === "sort")
      assert.strictEqual(sort.schema.default, "-created_at")
      const post = openapi.body.paths["/v1/workspaces"].post
      assert.isDefined(post.parameters.find((p: { name: string; in: string }) => p.name === "idempotency-key" && p.in === "header"))
      assert.isDefined(post.responses["422"])
      assert.isDefined(post.responses["409"])
      assert.isDefined(openapi.body.components.securitySchemes.bearer)

      const reference = yield* server.request("GET", "/v1/docs")
      assert.strictEqual(reference.status, 200)
      assert.include(reference.text, "<!doctype html>")
      assert.include(reference.text, "Analytics Service API")
    }).pipe(Effect.scoped))
})

describe("compressed request bodies", () => {
  it.live("gzip bodies are accepted; unknown codings answer 415; a gzip bomb answers 413", () =>
    Effect.gen(function*() {
      const { gzipSync } = yield* Effect.promise(() => import("node:zlib"))
      const server = yield* start(MemoryStores.layer)
      const { token } = yield* server.tenant()
      const send = (body: Uint8Array<ArrayBuffer>, encoding: string) =>
        Effect.promise(async () => {
          const response = await fetch(`${server.url}/v1/workspaces`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-encoding": encoding },
            body
          })
          return { status: response.status, contentType: response.headers.get("content-type"), body: await response.json() }
        })
      const created = yield* send(gzipSync(JSON.stringify({ name: "Zipped" })), "gzip")
      assert.strictEqual(created.status, 201)
      assert.strictEqual(created.body.name, "Zipped")
      const unknown = yield* send(new Uint8Array(Buffer.from("{}")), "br-unknown")
      assert.strictEqual(unknown.status, 415)
      assert.strictEqual(unknown.contentType, "application/problem+json")
      const bomb = yield* send(gzipSync(JSON.stringify({ name: "x", description: " ".repeat(5_000_000) })), "gzip")
      assert.strictEqual(bomb.status, 413)
      assert.strictEqual(bomb.body.code, "request/body-too-large")
    }).pipe(Effect.scoped))
})
