/**
 * The chat-completions call of an OpenAI-compatible server
 * (`POST {baseUrl}/chat/completions`), over Effect's HTTP client: one JSON
 * completion, or its content streamed as server-sent events. Every
 * failure is an AnswererError with a detail an operator can act on
 * (the key refused, rate limited and for how long, the server failing,
 * the time-out); the API key never appears in one. Interrupting a call
 * aborts its HTTP request.
 *
 * @since 0.1.0
 */
import { Answerer } from "@analytics/core"
import { Duration, Effect, Redacted, Schema, Stream } from "effect"
import * as Sse from "effect/encoding/Sse"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"
import { excerpt } from "./Proposal.ts"

/** Where and as whom to call. */
export interface Endpoint {
  /** The API's base, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`; a query string is kept (`?api-version=…`). */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer …`; local servers often need none. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** How long to wait for the response, and with streaming for each piece of it. */
  readonly timeout: Duration.Duration
}

/** A tool call of a completion's message. */
export const ToolCall = Schema.Struct({
  function: Schema.Struct({
    name: Schema.String,
    // OpenAI sends JSON text; a few compatible servers send the object.
    arguments: Schema.Union([Schema.String, Schema.Record(Schema.String, Schema.Unknown)])
  })
})

/** A (non-streamed) completion; only what is read of it. */
export const Completion = Schema.Struct({
  choices: Schema.Array(Schema.Struct({
    message: Schema.Struct({
      content: Schema.optional(Schema.NullOr(Schema.String)),
      refusal: Schema.optional(Schema.NullOr(Schema.String)),
      tool_calls: Schema.optional(Schema.NullOr(Schema.Array(ToolCall)))
    }),
    finish_reason: Schema.optional(Schema.NullOr(Schema.String))
  })).check(Schema.isMinLength(1))
})
/** A completion. */
export type Completion = typeof Completion.Type

/** A streamed chunk; only what is read of it. */
const Chunk = Schema.Struct({
  choices: Schema.optional(Schema.Array(Schema.Struct({
    delta: Schema.optional(Schema.Struct({ content: Schema.optional(Schema.NullOr(Schema.String)) }))
  }))),
  error: Schema.optional(Schema.Unknown)
})
const decodeChunk = Schema.decodeUnknownEffect(Schema.fromJsonString(Chunk))
const decodeCompletion = Schema.decodeUnknownEffect(Completion)

const fail = (detail: string, cause?: unknown) => new Answerer.AnswererError({ detail, ...(cause === undefined ? {} : { cause }) })

/** The URL of the completions endpoint under a base URL, its query string kept. */
export const completionsUrl = (baseUrl: string): string => {
  const url = new URL(baseUrl)
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/chat/completions`
  return url.toString()
}

/** The server's own words in an error body (`{"error": {"message": …}}`), or the body's start. */
const serverMessage = (body: string): string => {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown }
    const message = typeof parsed.error === "string" ? parsed.error : parsed.error?.message ?? parsed.message
    if (typeof message === "string") return excerpt(message, 300)
  } catch {
    // Not JSON: the text itself.
  }
  return excerpt(body.trim(), 300)
}

/** A non-2xx response to an AnswererError that says what happened. */
const statusError = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.flatMap(
    Effect.orElseSucceed(response.text, () => ""),
    (body): Effect.Effect<never, Answerer.AnswererError> => {
      const status = response.status
      const said = serverMessage(body)
      const says = said === "" ? "" : `: ${said}`
      if (status === 401 || status === 403) {
        return Effect.fail(fail(`The model server refused the API key (${status})${says}`))
      }
      if (status === 429) {
        const retryAfter = response.headers["retry-after"]
        return Effect.fail(fail(`The model server is rate limiting (429)${retryAfter === undefined ? "" : `; retry after ${retryAfter} s`}${says}`))
      }
      if (status >= 500) return Effect.fail(fail(`The model server failed (${status})${says}`))
      return Effect.fail(fail(`The model server answered ${status}${says}`))
    }
  )

const request = (endpoint: Endpoint, body: unknown) =>
  HttpClientRequest.post(completionsUrl(endpoint.baseUrl)).pipe(
    HttpClientRequest.acceptJson,
    endpoint.apiKey === undefined ? (r) => r : HttpClientRequest.bearerToken(Redacted.value(endpoint.apiKey)),
    HttpClientRequest.bodyJsonUnsafe(body)
  )

const timedOut = (endpoint: Endpoint, what: string) =>
  fail(`The model server did not ${what} within ${Duration.format(endpoint.timeout)}`)

/** Sends the request; a response that is not 2xx, or a transport failure, is an AnswererError. */
const send = (endpoint: Endpoint, body: unknown) =>
  Effect.flatMap(HttpClient.HttpClient, (client) => client.execute(request(endpoint, body))).pipe(
    Effect.mapError((cause) => fail(`The model server could not be reached: ${cause.message}`, cause)),
    Effect.flatMap((response) => response.status >= 200 && response.status < 300 ? Effect.succeed(response) : statusError(response))
  )

/** One completion, within the time-out. */
export const complete = (endpoint: Endpoint, body: unknown): Effect.Effect<Completion, Answerer.AnswererError, HttpClient.HttpClient> =>
  send(endpoint, body).pipe(
    Effect.flatMap((response) => Effect.mapError(response.json, (cause) => fail("The model server's response is not JSON", cause))),
    Effect.flatMap((json) =>
      Effect.mapError(decodeCompletion(json), (cause) => fail(`The model server's response is no chat completion: ${cause.message}`, cause))
    ),
    Effect.timeoutOrElse({ duration: endpoint.timeout, orElse: () => Effect.fail(timedOut(endpoint, "answer")) })
  )

/**
 * A completion's content streamed (`stream: true` is set): each non-empty
 * `choices[0].delta.content` as it arrives, until `data: [DONE]`. A stream
 * that ends without it, an error event, or a silence longer than the
 * time-out is an AnswererError. Ending or interrupting the stream aborts
 * the request.
 */
export const stream = (endpoint: Endpoint, body: Record<string, unknown>): Stream.Stream<string, Answerer.AnswererError, HttpClient.HttpClient> =>
  Stream.unwrap(
    send(endpoint, { ...body, stream: true }).pipe(
      Effect.timeoutOrElse({ duration: endpoint.timeout, orElse: () => Effect.fail(timedOut(endpoint, "answer")) }),
      Effect.map((response) =>
        Stream.suspend(() => {
          let done = false
          const data: Array<string> = []
          const parser = Sse.makeParser((event) => {
            if (event._tag === "Event") data.push(event.data)
          })
          return response.stream.pipe(
            Stream.mapError((cause) => fail(`The model server's stream broke off: ${cause.message}`, cause)),
            Stream.decodeText(),
            Stream.mapEffect((text) => {
              const error = parser.feed(text)
              return error === undefined ? Effect.succeed(data.splice(0)) : Effect.fail(fail(`The model server's stream is malformed: ${error.message}`, error))
            }),
            Stream.flattenIterable,
            Stream.takeWhile((event) => !(done ||= event === "[DONE]")),
            Stream.mapEffect((event) =>
              decodeChunk(event).pipe(
                Effect.mapError((cause) => fail(`The model server sent a chunk that is no completion chunk: ${excerpt(event)}`, cause)),
                Effect.flatMap((chunk) =>
                  chunk.error !== undefined
                    ? Effect.fail(fail(`The model server failed mid-stream: ${serverMessage(JSON.stringify(chunk))}`))
                    : Effect.succeed(chunk.choices?.[0]?.delta?.content ?? "")
                )
              )
            ),
            Stream.filter((piece) => piece !== ""),
            Stream.timeoutOrElse({ duration: endpoint.timeout, orElse: () => Stream.fail(timedOut(endpoint, "send the next piece")) }),
            Stream.concat(Stream.suspend(() => done ? Stream.empty : Stream.fail(fail("The model server's stream ended before [DONE]"))))
          )
        })
      )
    )
  )
