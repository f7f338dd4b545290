/**
 * The answers of `POST /v1/ai/ask` on the wire: one JSON body, or, for a
 * client that accepts `text/event-stream`, server-sent events written as
 * the work happens (`progress`, `query`, `rows`, `answer`, `done`; `error`
 * for a failure after the stream began, with a problem as its data). The
 * stream is the request's own fiber writing the body: a client that hangs
 * up interrupts it, and with it the planning, the query and the wording.
 * The whole answer carries its chart and table, made as a report visual's
 * (decision 0016).
 *
 * @since 0.1.0
 */
import { Problems } from "@analytics/api"
import type { Theme } from "@analytics/charts"
import type { Questions, Report } from "@analytics/core"
import { Cause, Effect, Stream } from "effect"
import { HttpServerResponse } from "effect/http"
import * as SharedReport from "./SharedReport.ts"

/** Whether a request's `Accept` asks for server-sent events. */
export const wantsEventStream = (accept: string | undefined): boolean =>
  accept !== undefined && accept.split(",").some((part) => part.split(";")[0]!.trim().toLowerCase() === "text/event-stream")

/** The colours and locale an answer's chart and table are made in: the deployment's, as report views'. */
export interface Look {
  readonly theme: Theme.Theme
  readonly locale: string
}

/** The size an answer's chart is compiled at: a report card's width (the console redraws it to fit), a little lower. */
const answerChartSize = { width: SharedReport.chartSize.width, height: 260 } as const

/**
 * The answer's suggested visual made as a report visual is
 * (`SharedReport.visual`: the model's titles, formats and time units), its
 * amounts in short on the axis; its rows as formatted text.
 */
const drawn = (answer: Questions.Answer, look: Look) =>
  Effect.gen(function*() {
    if (answer.result === null || answer.visual === null || answer.query === null || answer.result.rows.length === 0) {
      return { chart: null, table: null }
    }
    const visual: Report.Visual = {
      id: "answer",
      type: answer.visual.type,
      dataset_id: answer.dataset_id as Report.Visual["dataset_id"],
      query: answer.query,
      encoding: answer.visual.encoding
    }
    const { data } = yield* SharedReport.visual(
      { _tag: "Rows", visual, columns: answer.result.columns, rows: answer.result.rows },
      { theme: look.theme, locale: look.locale, draw: false, size: answerChartSize, compactAxis: true }
    )
    const table = data.table ?? null
    if (data.state !== "rows" || data.kind === undefined || data.kind === "table") return { chart: null, table }
    const chart = {
      kind: data.kind,
      ...(data.vega === undefined ? {} : { vega: JSON.parse(JSON.stringify(data.vega)) as unknown }),
      ...(data.figure === undefined ? {} : { figure: data.figure }),
      ...(data.description === undefined ? {} : { description: data.description })
    }
    return { chart, table }
  })

/** An answer as the API shows it (the JSON response, and the `done` event's data). */
export const answerJson = (answer: Questions.Answer, look: Look) =>
  Effect.map(drawn(answer, look), ({ chart, table }) => ({
    status: answer.status,
    text: answer.text,
    dataset_id: answer.dataset_id,
    query: answer.query,
    sql: answer.sql,
    result: answer.result === null ? null : { columns: answer.result.columns, data: answer.result.rows, row_count: answer.result.rows.length },
    visual: answer.visual,
    chart,
    table
  }))

/** An event's SSE name and data. */
const wire = (event: Questions.Event, look: Look): Effect.Effect<readonly [string, unknown]> => {
  switch (event._tag) {
    case "Progress":
      return Effect.succeed(["progress", { stage: event.stage, message: event.message }])
    case "Query":
      return Effect.succeed(["query", { query: event.query, sql: event.sql }])
    case "Rows":
      return Effect.succeed(["rows", { columns: event.columns, data: event.rows, row_count: event.rows.length }])
    case "Text":
      return Effect.succeed(["answer", { text: event.text }])
    case "Done":
      return Effect.map(answerJson(event.answer, look), (json) => ["done", json] as const)
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
  toProblem: (error: E) => { readonly code: string; readonly detail?: string | undefined },
  look: Look
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.stream(
    events.pipe(
      Stream.mapEffect((event) => Effect.map(wire(event, look), ([name, data]) => frame(name, data))),
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
