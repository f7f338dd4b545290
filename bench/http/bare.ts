/**
 * Bare `node:http`: routing, bearer check, query and body validation, the
 * pages and the idempotent create, all by hand, serialized with
 * `JSON.stringify`; rate limiting by hand with the shared rate-limiter-flexible
 * limiters (the tenant's in the request's class after authentication, the
 * client address's before a 401), the six `X-RateLimit-*` headers set on the
 * response before anything answers it, a 429 problem with `Retry-After` when
 * refused. The floor any framework pays on top of.
 */
import * as Http from "node:http"
import {
  answerCreate,
  authenticate,
  isProblem,
  listPage,
  listQuery,
  makePeer,
  maxBodyBytes,
  type Problem,
  rateLimitClassOf,
  type RateLimitOutcome,
  serve,
  type TokenRecord,
  tooLarge,
  unauthenticated,
  workspacesPath,
  type Written,
  writtenPage,
  writtenProblem
} from "./shared.ts"

const { tenant, rows, idempotency, rateLimits } = makePeer()

/** Sends `written`; the limit headers already set on the response go with it. */
const send = (response: Http.ServerResponse, { status, headers, body, contentType }: Written): void => {
  response.writeHead(status, {
    ...headers,
    "content-type": contentType,
    "content-length": Buffer.byteLength(body)
  }).end(body)
}

const problem = (response: Http.ServerResponse, refused: Problem): void => send(response, writtenProblem(refused))

/** The outcome's headers on the response (merged into whatever answers it); when refused, the 429 sent. Whether the request may go on. */
const limited = (response: Http.ServerResponse, outcome: RateLimitOutcome): boolean => {
  for (const name in outcome.headers) response.setHeader(name, outcome.headers[name])
  if (outcome.problem === undefined) return true
  problem(response, outcome.problem)
  return false
}

const list = (response: Http.ServerResponse, search: string, tenantId: string): void => {
  const checked = listQuery(Object.fromEntries(new URLSearchParams(search)))
  if (isProblem(checked)) return problem(response, checked)
  void listPage(rows, checked.limit, checked.query, tenantId, checked.cursor).then((page) => send(response, writtenPage(page)))
}

const create = (request: Http.IncomingMessage, response: Http.ServerResponse, member: TokenRecord): void => {
  const raw = request.headers["idempotency-key"]
  const key = Array.isArray(raw) ? raw.join(", ") : raw
  const chunks: Array<Buffer> = []
  let size = 0
  request.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size <= maxBodyBytes) chunks.push(chunk)
  })
  request.on("end", () => {
    if (size > maxBodyBytes) return problem(response, tooLarge)
    send(response, answerCreate(rows, idempotency, member, key, Buffer.concat(chunks).toString("utf8")))
  })
}

const server = Http.createServer((request, response) => {
  const url = request.url ?? "/"
  const q = url.indexOf("?")
  const path = q === -1 ? url : url.slice(0, q)
  if (path !== workspacesPath) return problem(response, { status: 404, code: "request/not-found", detail: "No such route" })
  if (request.method !== "GET" && request.method !== "POST") {
    return problem(response, { status: 405, code: "request/method-not-allowed", detail: "GET or POST only" })
  }

  const member = authenticate(tenant.tokens, request.headers.authorization)
  if (member === undefined) {
    request.resume()
    void rateLimits.client(request.socket.remoteAddress).then((outcome) => {
      if (limited(response, outcome)) problem(response, unauthenticated)
    })
    return
  }
  // The body is not read until the decision: it waits in the paused request.
  void rateLimits.tenant(member.tenantId, rateLimitClassOf(request.method)).then((outcome) => {
    if (!limited(response, outcome)) return void request.resume()
    if (request.method === "POST") return create(request, response, member)
    list(response, q === -1 ? "" : url.slice(q + 1), member.tenantId)
  })
})

await serve("node:http", server, () => Promise.resolve(tenant.token))
