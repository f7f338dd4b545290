/**
 * The answers of `POST /v1/ai/ask` on the wire: one JSON body, or, for a
 * client that accepts `text/event-stream`, server-sent events written as
 * the work happens (`progress`, `query`, `rows`, `answer`, `done`; `error`
 * for a failure after the stream began, with a problem as its data). The
 * stream is the request's own fiber writing the body: a client that hangs
 * up interrupts it, and with it the planning, the query and the wording.
 *
 * @since 0.1.0
 */
import { Problems } from "@analytics/api"
import type { Questions } from "@analytics/core"
import { Cause, Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"

/** Whether a request's `Accept` asks for server-sent events. */
export const wantsEventStream = (accept: string | undefined): boolean =>
  accept !== undefined && accept.split(",").some((part) => part.split(";")[0]!.trim().toLowerCase() === "text/event-stream")

/** An answer as the API shows it (the JSON response, and the `done` event's data). */
export const answerJson = (answer: Questions.Answer) => ({
  status: answer.status,
  text: answer.text,
  dataset_id: answer.dataset_id,
  query: answer.query,
  sql: answer.sql,
  result: answer.result === null ? null : { columns: answer.result.columns, data: answer.result.rows, row_count: answer.result.rows.length },
  visual: answer.visual
})

/** An event's SSE name and data. */
const wire = (event: Questions.Event): readonly [string, unknown] => {
  switch (event._tag) {
    case "Progress":
      return ["progress", { stage: event.stage, message: event.message }]
    case "Query":
      return ["query", { query: event.query, sql: event.sql }]
    case "Rows":
      return ["rows", { columns: event.columns, data: event.rows, row_count: event.rows.length }]
    case "Text":
      return ["answer", { text: event.text }]
    case "Done":
      return ["done", answerJson(event.answer)]
  }
}

const encoder = new TextEncoder()

/** One server-sent event: its name and one `data:` line of JSON (JSON has no raw newline). */
export const frame = (name: string, data: unknown): Uint8Array => encoder.encode(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`)

/** A problem's body, as an `error` event carries it. */
const problemBody = (problem: { readonly code: string; readonly detail?: string | undefined }) =>
  Problems.undeclared(problem.code as Parameters<typeof Problems.undeclared>[0], problem.detail)

/**
 * The events as a `text/event-stream` response; a failure becomes a last
 * `error` event (`toProblem` says which), since the status line is long sent.
 */
export const eventStream = <E>(
  events: Stream.Stream<Questions.Event, E>,
  toProblem: (error: E) => { readonly code: string; readonly detail?: string | undefined }
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.stream(
    events.pipe(
      Stream.map((event) => {
        const [name, data] = wire(event)
        return frame(name, data)
      }),
      Stream.catch((error: E) => Stream.make(frame("error", problemBody(toProblem(error))))),
      // A defect still ends the stream with an event the client can read; it is logged, its detail is not sent.
      Stream.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause) ? Stream.failCause(cause) : Stream.fromEffect(Effect.as(
          Effect.logError("An answer stream failed", cause),
          frame("error", Problems.undeclared("internal", "The answer failed; retry later"))
        )))
    ),
    {
      contentType: "text/event-stream",
      headers: { "cache-control": "no-cache, no-store", "x-accel-buffering": "no" }
    }
  )
