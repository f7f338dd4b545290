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
   * `JSON.parse(text)`'s result, or `undefined` when it threw, `text` is
   * empty (not parsed: every reader treats the empty body on its own) or
   * the body is `unfit`.
   */
  readonly parsed: { readonly value: unknown } | undefined
  /** Why the body is refused before any reader decodes it, when it is. */
  readonly unfit?: Unfit | undefined
}

/** An issue of a refused body: where (`payload`, then the body's keys, outermost first) and what. */
export interface UnfitIssue {
  readonly path: ReadonlyArray<string | number>
  readonly message: string
}

/**
 * Why a body is refused at the edge (decision 0001): bytes that are not
 * UTF-8 (`request/malformed-json`: RFC 8259 JSON text is UTF-8), a string
 * or key holding a lone UTF-16 surrogate (`"\ud800"`), or arrays and
 * objects nested deeper than `maxNesting` (`request/invalid`, naming where).
 */
export interface Unfit {
  readonly code: "request/malformed-json" | "request/invalid"
  readonly detail: string
  readonly errors?: ReadonlyArray<UnfitIssue> | undefined
}

/**
 * The most levels of arrays and objects a JSON body nests, one in another.
 * `JSON.parse` is not recursive, but every reader after it (a recursive
 * schema's decoder, an echo of a value in a problem, `JSON.stringify`) is:
 * bounded here, no body can exhaust the stack. A filter at its deepest
 * (decision 0013) inside a report's definition stays well within it.
 */
export const maxNesting = 64

// Keyed by the request, so the entry goes with it; a request the router rebuilt (another object) only reads and parses again.
const bodies = new WeakMap<HttpServerRequest.HttpServerRequest, JsonBody>()

/** A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one. */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** An escape that may make a surrogate: only then can parsed text hold a lone one (UTF-8 cannot encode one). */
const surrogateEscape = /\\u[dD][89a-fA-F]/

/** Whether `text` has more than `maxNesting` brackets that open (inside strings too): only then can it nest deeper. */
const mayNestDeeper = (text: string): boolean => {
  let opened = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if ((c === 91 || c === 123) && ++opened > maxNesting) return true
  }
  return false
}

/** A value's place in the walk: its parent's index in the walk and its key there, to name its path when it is at fault. */
interface Place {
  readonly value: unknown
  readonly depth: number
  readonly parent: number
  readonly key: string | number
}

/** The path of the walk's place at `index`, as validation issues name it: the slot (`payload`), then the body's keys. */
const pathOf = (places: ReadonlyArray<Place>, index: number): ReadonlyArray<string | number> => {
  const path: Array<string | number> = []
  for (let at = index; at > 0; at = places[at]!.parent) path.push(places[at]!.key)
  path.push("payload")
  return path.reverse()
}

/** The first lone surrogate or over-deep nesting of a parsed body, found without recursion. */
const unfitValue = (value: unknown, text: string): Unfit | undefined => {
  const deep = mayNestDeeper(text)
  const surrogates = surrogateEscape.test(text)
  if (!deep && !surrogates) return undefined
  const places: Array<Place> = [{ value, depth: 0, parent: 0, key: "" }]
  const surrogateAt = (index: number, what: string): Unfit => ({
    code: "request/invalid",
    detail: "The request body holds a lone UTF-16 surrogate; see errors",
    errors: [{ path: pathOf(places, index), message: `Expected well-formed Unicode, got a lone surrogate in the ${what}` }]
  })
  // Depth first, each place once: the walk is as long as the body.
  for (let index = 0; index < places.length; index++) {
    const { depth, value: current } = places[index]!
    if (typeof current === "string") {
      if (surrogates && loneSurrogate.test(current)) return surrogateAt(index, "string")
      continue
    }
    if (typeof current !== "object" || current === null) continue
    if (depth >= maxNesting) {
      return {
        code: "request/invalid",
        detail: `The request body nests arrays and objects more than ${maxNesting} levels deep; see errors`,
        errors: [{ path: pathOf(places, index), message: `Expected at most ${maxNesting} levels of nesting` }]
      }
    }
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) places.push({ value: current[i], depth: depth + 1, parent: index, key: i })
    } else {
      for (const key of Object.keys(current)) {
        places.push({ value: (current as Record<string, unknown>)[key], depth: depth + 1, parent: index, key })
        if (surrogates && loneSurrogate.test(key)) return surrogateAt(places.length - 1, "key")
      }
    }
  }
  return undefined
}

const parse = (text: string): JsonBody => {
  if (text === "") return { text, parsed: undefined }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { text, parsed: undefined }
  }
  const unfit = unfitValue(value, text)
  return unfit === undefined ? { text, parsed: { value } } : { text, parsed: undefined, unfit }
}

const strictDecoder = new TextDecoder("utf-8", { fatal: true })
const lenientDecoder = new TextDecoder()

const notUtf8: Unfit = { code: "request/malformed-json", detail: "The request body is not valid UTF-8" }

/** A body's bytes as text (UTF-8 or refused as `unfit`), parsed once as JSON and checked (`Unfit`). */
export const fromBytes = (bytes: Uint8Array): JsonBody => {
  let text: string
  try {
    text = strictDecoder.decode(bytes)
  } catch {
    return { text: lenientDecoder.decode(bytes), parsed: undefined, unfit: notUtf8 }
  }
  return parse(text)
}

/**
 * The body of `request`, read and parsed on the first call, the same
 * object after; a failure to read it is the platform's error.
 */
export const read = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<JsonBody, HttpServerError.HttpServerError> => {
  if (request instanceof BufferedRequest) return Effect.succeed(request.body)
  const known = bodies.get(request)
  if (known !== undefined) return Effect.succeed(known)
  // The platform's text is its decoding of these bytes; read as bytes, they are decoded strictly.
  return Effect.map(request.arrayBuffer, (buffer) => {
    // Two readers racing on one request both parse; either result is the same.
    const body = bodies.get(request) ?? fromBytes(new Uint8Array(buffer))
    bodies.set(request, body)
    return body
  })
}

/**
 * The body of `request`, as `read` reads it. A failure to read the body is
 * a defect, as `Effect.orDie(request.text)` makes it for every reader here.
 */
export const json = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<JsonBody> => Effect.orDie(read(request))

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
    // The edge answers an unfit body before any reader; a reader that asks anyway is not given it.
    if (this.body.unfit !== undefined) return Effect.fail(this.parseError(new Error(this.body.unfit.detail)))
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
      resume(Effect.succeed(new BufferedRequest(request, bytes, fromBytes(bytes))))
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

