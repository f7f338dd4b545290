/**
 * Questions about datasets, answered from their semantic layer (decision 0016).
 *
 * @since 0.1.0
 */
import { Questions, Report, SemanticQuery, SqlDialect } from "@analytics/core"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Authentication, Idempotent, idempotencyHeader } from "../Middleware.ts"
import * as Problems from "../Problems.ts"
import { QueryResultJson } from "../QueryResult.ts"
import { RateLimitClass } from "../RateLimitClass.ts"
import { TableJson } from "../ViewerData.ts"

/** The SQL a query ran as, with its bound values (as POST /v1/datasets/{id}/sql shows it). */
export const SqlTextJson = Schema.Struct({
  dialect: Schema.Literals(SqlDialect.dialectNames),
  sql: Schema.String,
  params: Schema.Array(Schema.Union([Schema.String, Schema.Number, Schema.Boolean]))
})

/** A visual suggested for an answer: a report visual's type and encoding over the result's columns. */
export const SuggestedVisualJson = Schema.Struct({ type: Report.VisualType, encoding: Report.Encoding })

/**
 * An answer's chart, planned and compiled on the server as a report visual's
 * is (the model's titles on the axes, its formats, months as "Jul 2026"),
 * its amounts in short on the axis ("€1.2M"): a chart's Vega spec, or a key
 * figure already formatted.
 */
export const AnswerChartJson = Schema.Struct({
  kind: Schema.String.annotate({ description: "What is drawn: a chart kind (bar, line…) or `kpi`" }),
  vega: Schema.optionalKey(Schema.Unknown.annotate({
    description: "A chart's compiled Vega 6 specification, reading `result.data` as its data source `rows` (open: Vega's own schema describes it)"
  })),
  figure: Schema.optionalKey(Schema.String.annotate({ description: "A key figure's value, formatted as its measure declares (`€1,234.50`)" })),
  description: Schema.optionalKey(Schema.String.annotate({ description: "A chart's text alternative" }))
})

/** The answer to a question (and the `data` of the stream's `done` event). */
export const AnswerJson = Schema.Struct({
  status: Schema.Literals(["answered", "cannot_answer", "query_refused"]).annotate({
    description: "answered: from the rows of `query`; cannot_answer: the answerer could not tell what to query (`text` says why and what the dataset can answer); query_refused: the query it proposed did not pass the service's checks and nothing ran"
  }),
  text: Schema.String.annotate({ description: "The answer in words, made from the rows; or why there is none" }),
  dataset_id: Schema.String,
  query: Schema.NullOr(SemanticQuery.Query).annotate({ description: "The semantic query that ran, as POST /v1/datasets/{id}/query takes it" }),
  sql: Schema.NullOr(SqlTextJson),
  result: Schema.NullOr(QueryResultJson).annotate({ description: `The rows, as POST /v1/datasets/{id}/query answers them (at most ${Questions.maxAnswerRows})` }),
  visual: Schema.NullOr(SuggestedVisualJson),
  chart: Schema.NullOr(AnswerChartJson).annotate({
    description: "The suggested visual drawn as a report visual is: null when there are no rows, or the visual is a table (see `table`)"
  }),
  table: Schema.NullOr(TableJson).annotate({
    description: "The rows as text, each cell formatted as its column's format says (the first 200); null when there are none"
  })
})

/** How the stream of `Accept: text/event-stream` is documented on the operation. */
const eventStream = (operation: Record<string, any>) => {
  const ok = operation.responses?.["200"]
  if (ok !== undefined) {
    ok.content = {
      ...ok.content,
      "text/event-stream": {
        schema: {
          type: "string",
          description:
            "Server-sent events, each `event: <name>` and `data: <JSON>`, in this order: `progress` ({stage, message}, several), " +
            "`query` ({query, sql}), `rows` ({columns, data, row_count}), `answer` ({text}: pieces of the answer, several), " +
            "then `done` (the whole answer, as the JSON response). A failure after the stream began is an `error` event whose data is a problem (RFC 9457) and ends the stream."
        }
      }
    }
  }
  operation.parameters = [
    ...(operation.parameters ?? []),
    {
      name: "accept",
      in: "header",
      required: false,
      description: "text/event-stream for a stream of server-sent events; anything else for one JSON answer",
      schema: { type: "string" }
    }
  ]
  return operation
}

/** Questions about datasets, answered from their semantic layer (decision 0016). */
export const AiGroup = HttpApiGroup.make("ai")
  .add(
    HttpApiEndpoint.post("ask", "/v1/ai/ask", {
      headers: idempotencyHeader,
      payload: Questions.AskRequest,
      success: AnswerJson,
      error: [
        Problems.NotFound,
        Problems.Forbidden,
        Problems.NotLoaded,
        Problems.EngineUnavailable,
        Problems.ModelInvalid,
        Problems.QueryInvalid,
        Problems.QueryTimedOut,
        Problems.QueryConcurrency,
        Problems.AiQuestionsExceeded,
        Problems.ServiceUnavailable
      ]
    }).middleware(Idempotent).annotate(RateLimitClass, "ai").annotate(
      OpenApi.Description,
      "Answers a question about a dataset (dataset_id) or a report (report_id, optionally visual_id) from its semantic layer: the answerer proposes a semantic query, " +
        "which the service checks and runs as the caller (their row-level security; a slot of the workspace's concurrent queries), then words the answer from the rows. " +
        "The answer carries the query, its SQL, the rows and a suggested visual. With `Accept: text/event-stream` the answer streams as server-sent events " +
        "(progress, query, rows, answer, done; error); a client that disconnects cancels the work. " +
        "At most 30 questions a minute per user and 500 an hour per workspace (429 rate-limit/ai-questions-exceeded); a stream counts once. " +
        "An Idempotency-Key replays a JSON answer; a streamed one is not kept."
    ).annotate(OpenApi.Transform, eventStream)
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Questions in words about datasets, answered with numbers from their semantic layer.")

// ---------------------------------------------------------------------------
