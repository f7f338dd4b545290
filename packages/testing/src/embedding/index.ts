/**
 * What every embedding example must show, over a real socket with `fetch`:
 * the API answers under `/analytics` with its own problem+json errors, reads
 * the raw request body itself (malformed JSON is its 400, an oversized body
 * its 413), and leaves the host app's paths alone.
 */
import { request as httpRequest } from "node:http"
import { afterAll, assert, beforeAll, it } from "vitest"

/** What each example's `start(port, options)` returns. */
export interface Running {
  readonly url: string
  readonly close: () => Promise<void>
}

export type Start = (port: number, options: { readonly operatorToken: string }) => Promise<Running>

/** The operator token the examples are started with in tests. */
export const operatorToken = "example-operator-token"

/** A response, its text, and its body parsed when it is JSON. */
export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly body: any
}

/** Starts the example on a free port for the file's tests and closes it afterwards. */
export const serve = (start: Start): { readonly url: string } => {
  let running: Running | undefined
  beforeAll(async () => {
    running = await start(0, { operatorToken })
  })
  afterAll(() => running?.close())
  return {
    get url() {
      if (running === undefined) throw new Error("the example is not running")
      return running.url
    }
  }
}

export const call = async (
  url: string,
  method: string,
  options: { readonly token?: string; readonly body?: unknown; readonly headers?: Record<string, string> } = {}
): Promise<Answer> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token !== undefined) headers["authorization"] = `Bearer ${options.token}`
  let body: string | undefined
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body)
    headers["content-type"] ??= "application/json"
  }
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  return { status: response.status, headers: response.headers, text, body: parsed }
}

/** Asserts an RFC 9457 problem with the given status and code. */
export const assertProblem = (answer: Answer, status: number, code: string): void => {
  assert.strictEqual(answer.status, status, answer.text)
  assert.match(answer.headers.get("content-type") ?? "", /^application\/problem\+json/)
  assert.strictEqual(answer.body?.code, code, answer.text)
  assert.strictEqual(answer.body?.status, status)
}

/** Provisions a tenant through the mounted operator endpoint; returns its admin token. */
export const provisionTenant = async (url: string, name = "Acme"): Promise<string> => {
  const answer = await call(`${url}/analytics/v1/tenants`, "POST", {
    token: operatorToken,
    body: { name, plan: "growth" }
  })
  assert.strictEqual(answer.status, 201, answer.text)
  assert.isString(answer.body.tenant_id)
  assert.strictEqual(answer.body.plan, "growth")
  assert.isString(answer.body.token)
  return answer.body.token
}

/** Streams a body with `Transfer-Encoding: chunked` (no Content-Length), which `fetch` cannot do for a string. */
export const chunkedPost = (
  url: string,
  token: string,
  chunks: ReadonlyArray<string>
): Promise<{ readonly status: number; readonly contentType: string; readonly text: string }> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "transfer-encoding": "chunked" }
    }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, contentType: res.headers["content-type"] ?? "", text }))
    })
    req.on("error", reject)
    let i = 0
    const writeNext = (): void => {
      while (i < chunks.length) {
        if (!req.write(chunks[i++])) return void req.once("drain", writeNext)
      }
      req.end()
    }
    writeNext()
  })

/**
 * The tests every embedding passes; `app.url` is the host app's origin.
 * `console`: the whole service is embedded (the host's `Service`), whose
 * console answers at the mount point; the API alone answers its 404 there.
 */
export const embeddingContract = (app: { readonly url: string }, options: { readonly console?: boolean } = {}): void => {
  const api = (path: string) => `${app.url}/analytics${path}`

  it("GET /analytics/healthz answers 200", async () => {
    const answer = await call(api("/healthz"), "GET")
    assert.strictEqual(answer.status, 200, answer.text)
    assert.deepStrictEqual(answer.body, { status: "ok", version: "0.1.0" })
  })

  it("the public configuration names the mounted base URL", async () => {
    const answer = await call(api("/api/config/public"), "GET")
    assert.strictEqual(answer.status, 200, answer.text)
    assert.match(answer.body.urls.api, /\/analytics\/v1$/)
  })

  it("a tenant provisioned by the operator creates and lists its workspaces", async () => {
    const token = await provisionTenant(app.url)
    const created = await call(api("/v1/workspaces"), "POST", { token, body: { name: "Sales" } })
    assert.strictEqual(created.status, 201, created.text)
    assert.strictEqual(created.body.name, "Sales")
    const listed = await call(api("/v1/workspaces?limit=10"), "GET", { token })
    assert.strictEqual(listed.status, 200, listed.text)
    assert.deepStrictEqual(listed.body.data.map((w: any) => w.workspace_id), [created.body.workspace_id])
    assert.strictEqual(listed.body.page.has_more, false)
  })

  it("an unknown route under the prefix is the API's 404 problem; a wrong method its 405", async () => {
    assertProblem(await call(api("/v1/nothing-here"), "GET"), 404, "route/not-found")
    const wrongMethod = await call(api("/v1/workspaces"), "DELETE")
    assertProblem(wrongMethod, 405, "route/method-not-allowed")
    assert.strictEqual(wrongMethod.headers.get("allow"), "GET, POST")
  })

  it("the API's OpenAPI document is served under the prefix", async () => {
    const answer = await call(api("/v1/openapi.json"), "GET")
    assert.strictEqual(answer.status, 200, answer.text)
    assert.strictEqual(answer.body.openapi, "3.1.0")
  })

  it(options.console === true ? "the mount point itself is the console" : "the mount point itself belongs to the API", async () => {
    const answer = await call(`${app.url}/analytics`, "GET")
    if (options.console === true) {
      assert.strictEqual(answer.status, 200, answer.text)
      assert.match(answer.headers.get("content-type") ?? "", /^text\/html/)
      assert.include(answer.text, `<base href="/analytics/">`)
    } else {
      assertProblem(answer, 404, "route/not-found")
    }
  })

  it("a path that only starts with the prefix belongs to the host app", async () => {
    const answer = await call(`${app.url}/analyticsx/healthz`, "GET")
    assert.strictEqual(answer.status, 404)
    assert.notMatch(answer.headers.get("content-type") ?? "", /problem\+json/)
  })

  it("malformed JSON answers the API's 400 problem: the raw body reached it", async () => {
    const token = await provisionTenant(app.url)
    const answer = await call(api("/v1/workspaces"), "POST", { token, body: "{\"name\": " })
    assertProblem(answer, 400, "request/malformed-json")
  })

  it("a 2 MB body answers 413, declared or chunked, and nothing is created", async () => {
    const token = await provisionTenant(app.url)
    const big = JSON.stringify({ name: "x", description: "y".repeat(2 * 1024 * 1024) })
    assertProblem(await call(api("/v1/workspaces"), "POST", { token, body: big }), 413, "request/body-too-large")
    const chunks = ["{\"name\":\"x\",\"description\":\"", ...Array.from({ length: 64 }, () => "y".repeat(32_768)), "\"}"]
    const chunked = await chunkedPost(api("/v1/workspaces"), token, chunks)
    assert.strictEqual(chunked.status, 413, chunked.text)
    assert.match(chunked.contentType, /^application\/problem\+json/)
    const listed = await call(api("/v1/workspaces"), "GET", { token })
    assert.deepStrictEqual(listed.body.data, [])
  })
}
