/**
 * The edge's last step before an answer is written: its own headers (the
 * request id, the rate limits) added, and a text answer written straight to
 * Node in one write (docs/decisions/0008; the journal docs/journal/0008-http-throughput.md, fifth step).
 *
 * Two costs of the platform's writer are avoided for the common answer.
 * It writes with `strictContentLength` set, which turns off Node's single
 * final write: headers and body go out as one chunk and an empty one, a
 * `writev` per response (about 5 µs more per request over a socket, measured
 * with bare `node:http`). And the edge's headers would be merged into a copy
 * of the response first. Here they are given to Node's `writeHead` with the
 * response's own, and the body is ended as the text it already is; the
 * platform then finds the response ended and writes nothing.
 *
 * It runs as a pre-response handler, so it sees the answer after any other
 * (CORS, compression) has changed it. What it does not write (HTTP/2,
 * `HEAD`, a body that is not text, cookies, a status without a body, a
 * request whose body may still be arriving, a request from outside Node)
 * gets the headers in a copy and is written by the platform, as before.
 *
 * @since 0.1.0
 */
import { NodeHttpServerRequest } from "@effect/platform-node"
import { Effect } from "effect"
import { Cookies, type HttpEffect, type HttpServerRequest, HttpServerResponse } from "effect/http"
import type * as Http from "node:http"

/**
 * Whether Node's request has nothing more to read (or announced nothing),
 * so the connection stays open as the platform would keep it. The platform
 * closes a connection whose unread body is large, and sends `100 Continue`
 * when a body is read; those requests are left to it.
 */
const settled = (request: Http.IncomingMessage): boolean =>
  request.complete ||
  (request.headers["content-length"] === undefined && request.headers["transfer-encoding"] === undefined &&
    request.headers["expect"] === undefined)

/** The Node response to write `request`'s answer to directly, if it can be. */
const nodeResponseOf = (request: HttpServerRequest.HttpServerRequest): Http.ServerResponse | undefined => {
  const source = request.source as Partial<Http.IncomingMessage> | undefined
  if (typeof source !== "object" || source === null || source.httpVersionMajor !== 1 || !settled(source as Http.IncomingMessage)) return undefined
  const response = NodeHttpServerRequest.toServerResponse(request as Parameters<typeof NodeHttpServerRequest.toServerResponse>[0]) as
    | Partial<Http.ServerResponse>
    | undefined
  return typeof response?.writeHead === "function" && !response.headersSent && !response.destroyed ? response as Http.ServerResponse : undefined
}

/**
 * Writes `response` with `headers` to Node and answers `true`, or answers
 * `false` having written nothing when the platform must write it.
 */
const written = (
  request: HttpServerRequest.HttpServerRequest,
  response: HttpServerResponse.HttpServerResponse,
  headers: Record<string, string>
): boolean => {
  const body = response.body
  if (body._tag !== "Uint8Array" || body.text === undefined) return false
  // What the platform's writer writes without a body (HEAD, 204, 205, 304) is left to it.
  if (HttpServerResponse.omitsBody(response, request.method === "HEAD")) return false
  if (response.status < 200 || response.status > 599 || !Cookies.isEmpty(response.cookies)) return false
  const node = nodeResponseOf(request)
  if (node === undefined) return false
  try {
    node.writeHead(response.status, { ...response.headers, ...headers })
  } catch {
    // A header Node refuses: the platform answers it as it answers any such response.
    return false
  }
  node.end(body.text)
  return true
}

/** The pre-response handler that finishes an answer with `headers`: written here when it can be, else copied with them. */
export const finishing = (headers: Record<string, string>): HttpEffect.PreResponseHandler => (request, response) =>
  Effect.succeed(written(request, response, headers) ? response : HttpServerResponse.setHeaders(response, headers))
