/**
 * The last line of defence, the parts of the edge (`Edge.ts`) that make
 * every error answer `application/problem+json` (unknown routes (404), wrong
 * methods (405 with `Allow`), oversized bodies (413), unsupported media
 * types (415), defects (500, logged, no stack trace leaves the process))
 * and cap request bodies; and, on the Node server itself, requests its
 * parser refuses (400).
 *
 * @since 0.1.0
 */
import { Problems } from "@analytics/api"
import { ProblemCode } from "@analytics/core"
import { ByteSize, Cause, Context, Effect } from "effect"
import {
  FindMyWay,
  HttpBody,
  HttpIncomingMessage,
  HttpMethod,
  HttpMiddleware,
  HttpServerError,
  HttpServerRequest,
  HttpServerRespondable,
  HttpServerResponse,
  ProblemDetails
} from "effect/http"
import { HttpApi, type HttpApiGroup } from "effect/http-api"
import type * as Http from "node:http"
import type { Duplex } from "node:stream"
import * as NotFoundPage from "./NotFoundPage.ts"
import * as Redaction from "./Redaction.ts"
import * as RequestBody from "./RequestBody.ts"
import { pathOf } from "./Url.ts"

/** The largest request body accepted: 1 MiB. */
export const maxBodyBytes = 1024 * 1024
const maxBodySize = ByteSize.bytes(maxBodyBytes)
const decompress = HttpMiddleware.decompression({ maxDecompressedSize: maxBodySize })

const methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const

/** Which methods an API accepts on a URL: for 405 answers and their `Allow` header. */
export const allowedMethods = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  extra: ReadonlyArray<readonly [string, string]> = []) => {
  const router = FindMyWay.make<true>({ ignoreTrailingSlash: true })
  const seen = new Set<string>()
  const add = (method: string, path: string) => {
    if (seen.has(`${method} ${path}`)) return
    seen.add(`${method} ${path}`)
    router.on(method, path as FindMyWay.PathInput, true)
  }
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => add(endpoint.method, endpoint.path)
  })
  for (const [method, path] of extra) add(method, path)
  return (url: string): Array<string> => methods.filter((m) => router.find(m, url) !== undefined)
}

/** A problem+json response of `code` (its status, type and title), with `detail`, headers and members of its own. */
export const problemResponse = (
  code: ProblemCode.ProblemCode,
  detail?: string,
  headers?: Record<string, string>,
  extensions?: Record<string, unknown>
): HttpServerResponse.HttpServerResponse => {
  const body = Problems.undeclared(code, detail, extensions)
  return HttpServerResponse.jsonUnsafe(body, {
    status: body.status,
    contentType: ProblemDetails.contentType,
    ...(headers === undefined ? {} : { headers })
  })
}

/** 413, closing the connection so the rest of the body is not read. */
const bodyTooLarge = () =>
  problemResponse("request/body-too-large", `The body exceeds ${maxBodyBytes} bytes`, { connection: "close" })

/** A `\u0000` escape in JSON text (one not itself escaped as `\\u0000`). */
const escapedNul = /(?:^|[^\\])(?:\\\\)*\\u0000/

const nulRefusal = () => problemResponse("request/invalid", "The request holds a NUL character (U+0000), which no value may contain")

/**
 * What answers a JSON body unfit for any reader, or `undefined`: a NUL
 * character (U+0000), raw or escaped (the URL is checked before, by
 * `refusal`), which PostgreSQL cannot store in text, so it would fail the
 * store (503) instead of the request; bytes that are not UTF-8, a lone
 * surrogate, nesting past `RequestBody.maxNesting` (`RequestBody.Unfit`).
 */
const bodyRefusal = (body: RequestBody.JsonBody): HttpServerResponse.HttpServerResponse | undefined => {
  if (hasNul(body.text)) return nulRefusal()
  const unfit = body.unfit
  if (unfit === undefined) return undefined
  return problemResponse(unfit.code, unfit.detail, undefined, unfit.errors === undefined ? undefined : { errors: unfit.errors })
}

/** Refuses a JSON body `bodyRefusal` refuses, read once (the API reads the same read after). */
const refuseUnfitBody = <E, R>(
  httpApp: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.withFiber((fiber) => {
    // The request in context: decompression has replaced the one the edge began with.
    const request = Context.getUnsafe(fiber.context, HttpServerRequest.HttpServerRequest)
    if (!isJson(request)) return httpApp
    // A body that cannot be read is left to the API, which answers it (413, malformed JSON).
    return Effect.matchEffect(RequestBody.read(request), {
      onFailure: () => httpApp,
      onSuccess: (body) => {
        const refused = bodyRefusal(body)
        return refused === undefined ? httpApp : Effect.succeed(refused)
      }
    })
  })

const isJson = (request: HttpServerRequest.HttpServerRequest) => /json/i.test(request.headers["content-type"] ?? "")

/** Whether JSON text holds a NUL, raw or escaped. */
const hasNul = (text: string) => text.includes("\u0000") || escapedNul.test(text)

const unreadable = () => problemResponse("request/invalid", "The request body could not be read")

const codeForStatus = (status: number): ProblemCode.ProblemCode => {
  switch (status) {
    case 401:
      return "auth/unauthenticated"
    case 403:
      return "auth/forbidden"
    case 404:
      return "route/not-found"
    case 405:
      return "route/method-not-allowed"
    case 413:
      return "request/body-too-large"
    case 415:
      return "request/unsupported-media-type"
    case 503:
      return "service/unavailable"
    default:
      return status >= 500 ? "internal" : "request/invalid"
  }
}

const isProblem = (response: HttpServerResponse.HttpServerResponse): boolean => {
  const body = response.body
  const contentType = body._tag === "Empty" ? response.headers["content-type"] : body.contentType
  return contentType?.startsWith(ProblemDetails.contentType) ?? false
}

const serverErrorReason = (cause: Cause.Cause<unknown>) => {
  for (const reason of cause.reasons) {
    const error = reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : undefined
    if (error instanceof HttpServerError.HttpServerError) return error.reason
  }
  return undefined
}

/** Turns every failure that reached the router into a problem response. */
const causeToResponse = (
  cause: Cause.Cause<unknown>,
  request: HttpServerRequest.HttpServerRequest,
  allowed: (url: string) => Array<string>
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
  const reason = serverErrorReason(cause)
  if (reason?._tag === "RouteNotFound") {
    const path = pathOf(request.url)
    const allow = allowed(path)
    // A browser asking for a page gets one in words; an API client, and every API path, the problem.
    return Effect.succeed(
      allow.length === 0 && NotFoundPage.wanted(request, path)
        ? NotFoundPage.response(path)
        : allow.length === 0
        ? problemResponse("route/not-found", `No route ${request.method} ${path}`)
        : problemResponse("route/method-not-allowed", `${path} accepts ${allow.join(", ")}`, {
          allow: allow.join(", ")
        })
    )
  }
  if (reason?._tag === "RequestParseError") {
    return Effect.succeed(
      reason.reason === "BodyTooLarge"
        ? bodyTooLarge()
        : unreadable()
    )
  }
  const failure = cause.reasons.find(Cause.isFailReason)
  if (failure !== undefined && HttpServerRespondable.isRespondable(failure.error)) {
    return HttpServerRespondable.toResponse(failure.error)
  }
  return Effect.as(
    Effect.logError("Unhandled failure while serving a request", cause).pipe(
      Effect.annotateLogs({ method: request.method, url: request.url })
    ),
    problemResponse("internal", "An unexpected error occurred; it has been logged")
  )
}

/**
 * An error in a format its clients expect: SCIM's own (RFC 7644 §3.12), or
 * an HTML page answering a browser (a shared link's password form, its
 * "expired" page).
 */
const keepsItsFormat = (response: HttpServerResponse.HttpServerResponse): boolean => {
  const body = response.body
  return body._tag !== "Empty" &&
    ((body.contentType?.startsWith("application/scim+json") ?? false) || (body.contentType?.startsWith("text/html") ?? false))
}

/** Problems built from the request's own URL (its path repeated back), not from anything on the server. */
const echoesTheRequest = new Set(["route/not-found", "route/method-not-allowed"])

/**
 * A problem whose `detail` names a path on the server's file system (an
 * engine's or a store's message) has it replaced by a generic text; the
 * original is logged under the request's id.
 */
const withoutServerPaths = (
  response: HttpServerResponse.HttpServerResponse,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  const body = response.body
  const text = body._tag === "Uint8Array"
    ? body.text ?? new TextDecoder().decode(body.body)
    : body._tag === "Raw" && typeof body.body === "string"
    ? body.body
    : undefined
  // Cheap first: most problems name no path at all.
  if (text === undefined || !Redaction.namesServerPath(text)) return Effect.succeed(response)
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return Effect.succeed(response)
  }
  if (typeof parsed !== "object" || parsed === null || echoesTheRequest.has((parsed as { code?: string }).code ?? "")) {
    return Effect.succeed(response)
  }
  // What the client sent, to tell its own text repeated back (`No webhook ../x/y`) from a path of ours.
  const json = HttpMethod.hasBody(request.method) && /json/i.test(request.headers["content-type"] ?? "")
  return Effect.flatMap(json ? Effect.orElseSucceed(request.text, () => "") : Effect.succeed(""), (sentBody) => {
    let url = request.url
    try {
      url = decodeURIComponent(request.url)
    } catch {
      // A malformed escape: the URL as it came.
    }
    const scrubbed = Redaction.scrubProblem(parsed as Record<string, unknown>, [url, request.url, sentBody])
    if (scrubbed === undefined) return Effect.succeed(response)
    return Effect.as(
      Effect.logWarning("A problem's detail named a server path; the client was given a generic text", {
        code: (parsed as { code?: unknown }).code,
        detail: scrubbed.withheld
      }),
      HttpServerResponse.setBody(response, HttpBody.text(JSON.stringify(scrubbed.body), ProblemDetails.contentType))
    )
  })
}

/** Ensures an error response is problem+json (SCIM's and HTML pages keep their format), and 401s carry `WWW-Authenticate`. */
const finish = (
  response: HttpServerResponse.HttpServerResponse,
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
  if (response.status < 400) return Effect.succeed(response)
  let out = response
  if (!isProblem(out) && !keepsItsFormat(out)) {
    out = problemResponse(codeForStatus(out.status), undefined, { ...out.headers })
  }
  if (out.status === 401) out = HttpServerResponse.setHeader(out, "www-authenticate", "Bearer")
  return isProblem(out) ? withoutServerPaths(out, request) : Effect.succeed(out)
}

/**
 * The edge's last line, made once: `extraRoutes` names routes served beside
 * the API (documentation pages) so 405 answers know them; `ownBodyLimit`
 * picks the requests whose route caps its body itself (file uploads).
 */
export const make = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  extraRoutes: ReadonlyArray<readonly [string, string]> = [],
  ownBodyLimit: (method: string, url: string) => boolean = () => false
) => {
  const allowed = allowedMethods(api, extraRoutes)
  return {
    /** What a request is refused before any route runs (a declared body over the cap, a NUL in the URL), or `undefined`. */
    refusal: (request: HttpServerRequest.HttpServerRequest): HttpServerResponse.HttpServerResponse | undefined => {
      const length = request.headers["content-length"]
      if (length !== undefined && Number(length) > maxBodyBytes && !ownBodyLimit(request.method, request.url)) return bodyTooLarge()
      return request.url.includes("%00") ? nulRefusal() : undefined
    },
    /**
     * The route's app with the body cap: a body is read at most to the cap,
     * gzip and deflate bodies are accepted and capped after decompression
     * (other codings answer 415), and a JSON body holding a NUL is refused.
     * Requests without a body get no cap (one context entry less on every GET).
     */
    capped: <E, R>(
      httpApp: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
      request: HttpServerRequest.HttpServerRequest
    ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> => {
      if (!HttpMethod.hasBody(request.method)) return httpApp
      if (ownBodyLimit(request.method, request.url)) return refuseUnfitBody(httpApp)
      const read = isJson(request) ? RequestBody.buffered(request, maxBodyBytes) : undefined
      if (read === undefined) {
        return Effect.provideService(decompress(refuseUnfitBody(httpApp)) as typeof httpApp, HttpIncomingMessage.MaxBodySize, maxBodySize)
      }
      return Effect.matchEffect(read, {
        onFailure: (unread) => Effect.succeed(unread === "too-large" ? bodyTooLarge() : unreadable()),
        onSuccess: (buffered) =>
        {
          const refused = bodyRefusal(buffered.body)
          return refused !== undefined ? Effect.succeed(refused) : Effect.provideService(httpApp, HttpServerRequest.HttpServerRequest, buffered)
        }
      })
    },
    /** The problem answering a failure that reached the edge (an interruption stays one). */
    failure: (cause: Cause.Cause<unknown>, request: HttpServerRequest.HttpServerRequest) => causeToResponse(cause, request, allowed),
    /** An error response as problem+json (SCIM's and HTML pages keep their format), 401s with `WWW-Authenticate`. */
    finish
  }
}

/**
 * Answers requests Node's HTTP parser refuses before any handler runs (a
 * CR, LF or NUL in a header value, a malformed header line, headers over
 * Node's 16 KiB limit) with a problem+json 400, instead of Node's bare
 * `400 Bad Request` without a body. Install it on the `http.Server` that
 * serves the application; returns the server.
 */
export const answerParseErrors = <S extends Http.Server>(server: S): S =>
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Duplex) => {
    // A client that went away, or a socket already answered, gets nothing more.
    if (error.code === "ECONNRESET" || !socket.writable) {
      socket.destroy()
      return
    }
    const detail = error.code === "HPE_HEADER_OVERFLOW"
      ? "The request's headers are too large"
      : "The request is not valid HTTP/1.1 (a header holds a forbidden character, or a line is malformed)"
    const body = JSON.stringify(Problems.undeclared("request/invalid", detail))
    socket.end(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: ${ProblemDetails.contentType}\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
    )
  })
