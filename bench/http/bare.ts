/**
 * Bare `node:http`: routing, bearer check, `limit` validation and the page,
 * all by hand, serialized with `JSON.stringify`. The floor any framework pays
 * on top of.
 */
import * as Http from "node:http"
import { authenticate, canonicalQuery, firstPage, makeTenant, makeWorkspaces, parseLimit, serve } from "./shared.ts"

const tenant = makeTenant()
const rows = makeWorkspaces(tenant.tenantId)

const problem = (response: Http.ServerResponse, status: number, code: string, detail: string): void => {
  const body = JSON.stringify({ type: "about:blank", status, code, detail })
  response.writeHead(status, {
    "content-type": "application/problem+json",
    "content-length": Buffer.byteLength(body)
  }).end(body)
}

const server = Http.createServer((request, response) => {
  const url = request.url ?? "/"
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  if (path !== "/v1/workspaces") return problem(response, 404, "request/not-found", "No such route")
  if (request.method !== "GET") return problem(response, 405, "request/method-not-allowed", "GET only")

  const member = authenticate(tenant.tokens, request.headers.authorization)
  if (member === undefined) return problem(response, 401, "auth/unauthenticated", "The bearer token is not valid")

  const params = new URLSearchParams(q === -1 ? "" : url.slice(q + 1))
  for (const name of params.keys()) {
    if (name !== "limit") return problem(response, 400, "request/invalid", `Unknown query parameter ${name}`)
  }
  const limit = parseLimit(params.get("limit"))
  if (limit === undefined) return problem(response, 400, "request/invalid", "limit must be an integer from 1 to 500")

  void firstPage(rows, limit, canonicalQuery(Object.fromEntries(params)), member.tenantId).then((page) => {
    const body = JSON.stringify(page)
    response.writeHead(200, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(body)
    }).end(body)
  })
})

await serve("node:http", server, () => Promise.resolve(tenant.token))
