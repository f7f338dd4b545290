/**
 * A request's body read once as text and parsed once as JSON, for every
 * reader on the request path: the idempotency middleware fingerprints it,
 * the compiled payload decoder decodes it, the validation middleware names
 * the values of a failed decoding. Before, each read the text again (the
 * platform decodes the bytes on every read) and parsed it again.
 *
 * On Node, the edge reads a JSON body itself (`buffered`): one suspension
 * on the request's stream, where the platform's reader forks a fiber to
 * fill a cached effect, watches the stream's end and resumes twice
 * (docs/decisions/0008).
 *
 * @since 0.1.0
 */
import { Effect, Inspectable, type Schema, Stream } from "effect"
import {
  type Headers,
  HttpIncomingMessage,
  HttpServerError,
  HttpServerRequest,
  Multipart,
  UrlParams
} from "effect/http"

/** A body as text, with its parse as JSON. */
export interface JsonBody {
  readonly text: string
  /**
   * `JSON.parse(text)`'s result, or `undefined` when it threw or `text` is
   * empty (not parsed: every reader treats the empty body on its own).
   */
  readonly parsed: { readonly value: unknown } | undefined
}

// Keyed by the request, so the entry goes with it; a request the router rebuilt (another object) only reads and parses again.
const bodies = new WeakMap<HttpServerRequest.HttpServerRequest, JsonBody>()

const parse = (text: string): JsonBody => {
  if (text === "") return { text, parsed: undefined }
  try {
    return { text, parsed: { value: JSON.parse(text) } }
  } catch {
    return { text, parsed: undefined }
  }
}

/**
 * The body of `request`, read and parsed on the first call, the same
 * object after. A failure to read the body is a defect, as
 * `Effect.orDie(request.text)` makes it for every reader here.
 */
export const json = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<JsonBody> => {
  if (request instanceof BufferedRequest) return Effect.succeed(request.body)
  const known = bodies.get(request)
  if (known !== undefined) return Effect.succeed(known)
  return Effect.map(Effect.orDie(request.text), (text) => {
    // Two readers racing on one request both parse; either result is the same.
    const body = bodies.get(request) ?? parse(text)
    bodies.set(request, body)
    return body
  })
}

const textDecoder = new TextDecoder()

/**
 * A request whose body is already in memory: every body accessor answers
 * from it; the rest is the request it was read from.
 */
class BufferedRequest extends Inspectable.Class implements HttpServerRequest.HttpServerRequest {
  readonly [HttpServerRequest.TypeId] = HttpServerRequest.TypeId
  readonly [HttpIncomingMessage.TypeId] = HttpIncomingMessage.TypeId
  readonly inner: HttpServerRequest.HttpServerRequest
  readonly bytes: Uint8Array
  readonly body: JsonBody
  constructor(inner: HttpServerRequest.HttpServerRequest, bytes: Uint8Array, body: JsonBody) {
    super()
    this.inner = inner
    this.bytes = bytes
    this.body = body
  }
  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, { _id: "HttpServerRequest", method: this.method, url: this.originalUrl })
  }
  modify(options: Parameters<HttpServerRequest.HttpServerRequest["modify"]>[0]): HttpServerRequest.HttpServerRequest {
    return new BufferedRequest(this.inner.modify(options), this.bytes, this.body)
  }
  get source() {
    return this.inner.source
  }
  get url() {
    return this.inner.url
  }
  get originalUrl() {
    return this.inner.originalUrl
  }
  get method() {
    return this.inner.method
  }
  get headers(): Headers.Headers {
    return this.inner.headers
  }
  get cookies() {
    return this.inner.cookies
  }
  get remoteAddress() {
    return this.inner.remoteAddress
  }
  get peerAddress() {
    return this.inner.peerAddress
  }
  get protocol() {
    return this.inner.protocol
  }
  get upgrade() {
    return this.inner.upgrade
  }
  upgradeWith(options: Parameters<HttpServerRequest.HttpServerRequest["upgradeWith"]>[0]) {
    return this.inner.upgradeWith(options)
  }
  // Platform accessors such as `NodeHttpServerRequest.toServerResponse` read the response handle from the request.
  get response(): unknown {
    return (this.inner as unknown as { readonly response: unknown }).response
  }
  get text() {
    return Effect.succeed(this.body.text)
  }
  get json(): Effect.Effect<Schema.Json, HttpServerError.HttpServerError> {
    const parsed = this.body.parsed
    if (parsed !== undefined) return Effect.succeed(parsed.value as Schema.Json)
    if (this.body.text === "") return Effect.succeed(null)
    return Effect.try({ try: () => JSON.parse(this.body.text), catch: (cause) => this.parseError(cause) })
  }
  get arrayBuffer() {
    const bytes = this.bytes
    return Effect.succeed(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer)
  }
  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpServerError.HttpServerError> {
    return Effect.try({
      try: () => UrlParams.fromInput(new URLSearchParams(this.body.text.replace(/^\?/, "%3F"))),
      catch: (cause) => this.parseError(cause)
    })
  }
  get stream() {
    return Stream.succeed(this.bytes)
  }
  get multipartStream() {
    return Stream.pipeThroughChannel(this.stream, Multipart.makeChannel<never>(this.headers))
  }
  get multipart() {
    return Multipart.toPersisted(this.multipartStream)
  }
  private parseError(cause: unknown): HttpServerError.HttpServerError {
    return new HttpServerError.HttpServerError({ reason: new HttpServerError.RequestParseError({ request: this, reason: "Parse", cause }) })
  }
}

/** What the edge reads of Node's `IncomingMessage` (found duck-typed: the edge also serves fetch `Request`s). */
interface NodeBody {
  readonly readableEnded: boolean
  readonly readableFlowing: boolean | null
  on(event: "data", listener: (chunk: Buffer) => void): unknown
  on(event: "end" | "close", listener: () => void): unknown
  on(event: "error", listener: (error: Error) => void): unknown
  off(event: string, listener: (...args: Array<never>) => void): unknown
  resume(): unknown
}

const nodeBodyOf = (request: HttpServerRequest.HttpServerRequest): NodeBody | undefined => {
  const source = request.source as Partial<NodeBody>
  // Not yet read by anyone: a stream in its initial state.
  return typeof source.on === "function" && typeof source.resume === "function" && source.readableEnded === false &&
      source.readableFlowing === null
    ? source as NodeBody
    : undefined
}

/** A request whose body `buffered` read: every reader gets `body`. */
export interface Buffered extends HttpServerRequest.HttpServerRequest {
  readonly body: JsonBody
}

/** Why `buffered` could not read a body. */
export type Unread = "too-large" | "unreadable"

/**
 * `request` with its body read into memory, at most `maxBytes` (`too-large`
 * beyond, the rest drained; `unreadable` when the client went away); or
 * `undefined` when the platform's reader must read it: not a Node request,
 * a compressed body, or a client waiting for `100 Continue`, which the
 * platform sends when it starts reading.
 */
export const buffered = (
  request: HttpServerRequest.HttpServerRequest,
  maxBytes: number
): Effect.Effect<Buffered, Unread> | undefined => {
  if (request.headers["content-encoding"] !== undefined || request.headers["expect"] !== undefined) return undefined
  const found = nodeBodyOf(request)
  if (found === undefined) return undefined
  const source: NodeBody = found
  return Effect.callback<Buffered, Unread>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const stop = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      source.off("close", onError)
    }
    function onData(chunk: Buffer) {
      size += chunk.length
      if (size <= maxBytes) return void chunks.push(chunk)
      stop()
      // The rest is read and dropped, so the 413 can be written.
      source.resume()
      resume(Effect.fail("too-large"))
    }
    function onEnd() {
      stop()
      const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)
      resume(Effect.succeed(new BufferedRequest(request, bytes, parse(textDecoder.decode(bytes)))))
    }
    function onError() {
      stop()
      resume(Effect.fail("unreadable"))
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    // A close before the end: the client went away mid-body.
    source.on("close", onError)
    return Effect.sync(stop)
  })
}

