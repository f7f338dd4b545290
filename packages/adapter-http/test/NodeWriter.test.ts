/**
 * The edge's writer (`NodeWriter`, docs/decisions/0008), over real sockets:
 * a text answer leaves in one write of the socket, not the platform's
 * `writev` of the answer and an empty chunk; it carries the same status,
 * headers and body as the same app answers through the platform's writer
 * (its fetch handler); and what the writer leaves to the platform (`HEAD`,
 * a no-content answer) still gets the edge's headers.
 */
import { App } from "@analytics/adapter-http"
import { MemoryStores } from "@analytics/adapter-memory"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo, Socket } from "node:net"

const operatorToken = "writer-operator"

/** How the server's sockets were written since the last `reset`. */
const writes = { single: 0, vectored: 0 }

let server: Server
let url: string
let node: Awaited<ReturnType<typeof App.nodeHandler>>
let web: ReturnType<typeof App.webHandler>

beforeAll(async () => {
  const stores = await Effect.runPromise(Effect.scoped(Layer.build(MemoryStores.layer)).pipe(Effect.map(Layer.succeedContext)))
  const options = { stores, publicBaseUrl: "http://127.0.0.1", operatorToken }
  node = await App.nodeHandler(options)
  web = App.webHandler(options)
  server = createServer((request, response) => node.handler(request, response))
  // Counts the socket's own writes: one chunk (`_write`) or several at once (`_writev`).
  server.on("connection", (socket: Socket & { _write: Function; _writev: Function }) => {
    const write = socket._write
    const writev = socket._writev
    socket._write = function(...args: Array<unknown>) {
      writes.single++
      return write.apply(this, args)
    }
    socket._writev = function(...args: Array<unknown>) {
      writes.vectored++
      return writev.apply(this, args)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  await node.dispose()
  await web.dispose()
})

/** Headers Node's server adds to every answer (the fetch handler has no connection). */
const transport = new Set(["date", "connection", "keep-alive"])

/** Headers that differ between any two answers. */
const varying = new Set(["x-request-id", "ratelimit", "x-ratelimit-remaining-burst", "x-ratelimit-remaining-sustained", "x-ratelimit-reset-burst", "x-ratelimit-reset-sustained"])

/** An answer's status, stable headers and body with its varying members (ids, times) named only. */
const shape = async (response: Response) => {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    if (!transport.has(name)) headers[name] = varying.has(name) ? "(varies)" : value
  })
  const text = await response.text()
  const body = text === "" ? "" : JSON.stringify(JSON.parse(text), (key, value) => /(_id|_at|_cursor)$/.test(key) ? "(varies)" : value)
  return { status: response.status, headers, body }
}

/** The same request through the Node handler (over the socket, the writes counted) and the fetch handler. */
const both = async (method: string, path: string, init: { readonly token?: string; readonly body?: unknown; readonly headers?: Record<string, string> } = {}) => {
  const headers: Record<string, string> = { ...init.headers }
  if (init.token !== undefined) headers["authorization"] = `Bearer ${init.token}`
  if (init.body !== undefined) headers["content-type"] = "application/json"
  // A key of its own for each handler: the two share their stores, and the second would be a replay.
  const request = () => ({
    method,
    headers: headers["idempotency-key"] === undefined ? headers : { ...headers, "idempotency-key": crypto.randomUUID() },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) })
  })
  writes.single = 0
  writes.vectored = 0
  const overSocket = await fetch(url + path, request())
  const written = { ...writes }
  const fetched = await web.handler(new Request(`http://127.0.0.1${path}`, request()))
  return { overSocket, fetched, written }
}

describe("the edge's writer", () => {
  it("writes a text answer in one write, with the headers and body the platform's writer gives it", async () => {
    const provisioned = await both("POST", "/v1/tenants", { token: operatorToken, body: { name: "Acme", plan: "growth" } })
    assert.strictEqual(provisioned.overSocket.status, 201)
    const { token } = await provisioned.overSocket.json() as { token: string }
    assert.deepStrictEqual(provisioned.written, { single: 1, vectored: 0 })

    const answers = [
      await both("POST", "/v1/workspaces", { token, body: { name: "Sälës — 東京" }, headers: { "idempotency-key": "k-1" } }),
      await both("GET", "/v1/workspaces?limit=1", { token }),
      await both("POST", "/v1/workspaces", { token, body: { name: 42 } }),
      await both("GET", "/v1/nowhere", { token }),
      await both("GET", "/v1/workspaces", { token: "not-a-token" })
    ]
    assert.deepStrictEqual(answers.map((a) => a.overSocket.status), [201, 200, 400, 404, 401])
    for (const { overSocket, fetched, written } of answers) {
      assert.deepStrictEqual(written, { single: 1, vectored: 0 }, `${overSocket.url}: one write`)
      const id = overSocket.headers.get("x-request-id")
      assert.match(id ?? "", /^[0-9a-f-]{36}$/)
      assert.strictEqual(overSocket.headers.get("content-length"), String(Buffer.byteLength(await overSocket.clone().text())))
      assert.deepStrictEqual(await shape(overSocket.clone()), await shape(fetched))
    }
    // The rate limits on a counted answer, and the id in a problem's body as in its header.
    const [, listed, invalid] = answers
    assert.match(listed!.overSocket.headers.get("ratelimit") ?? "", /^"burst";r=\d+;t=\d+, "sustained";r=\d+;t=\d+$/)
    const problem = await invalid!.overSocket.json() as { request_id: string }
    assert.strictEqual(problem.request_id, invalid!.overSocket.headers.get("x-request-id"))
  })

  it("leaves HEAD and no-content answers to the platform, with the edge's headers", async () => {
    const provisioned = await fetch(`${url}/v1/tenants`, {
      method: "POST",
      headers: { authorization: `Bearer ${operatorToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Beta", plan: "growth" })
    })
    const { token } = await provisioned.json() as { token: string }
    const head = await fetch(`${url}/v1/workspaces`, { method: "HEAD", headers: { authorization: `Bearer ${token}` } })
    assert.strictEqual(head.status, 200)
    assert.strictEqual(await head.text(), "")
    assert.match(head.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/)
    assert.isNotNull(head.headers.get("x-ratelimit-limit-burst"))

    // Signing out without a session: 204, and the session cookie cleared.
    const signedOut = await fetch(`${url}/api/session`, { method: "DELETE", headers: { origin: "http://127.0.0.1" } })
    assert.strictEqual(signedOut.status, 204)
    assert.match(signedOut.headers.get("x-request-id") ?? "", /^[0-9a-f-]{36}$/)
  })
})
