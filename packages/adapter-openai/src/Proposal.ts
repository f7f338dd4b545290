/**
 * What the model may answer a question with, as Effect Schemas: a query
 * of the dataset's model with the visual that shows it, or a reason it
 * cannot answer. Their strict JSON Schemas constrain the model's output
 * (tools or a response format); whatever it returns is decoded here,
 * excess keys refused, before it becomes a `Plan`.
 *
 * @since 0.1.0
 */
import { Answerer, Report, SemanticQuery } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as StrictJsonSchema from "./StrictJsonSchema.ts"

/** The visual suggested for the answer. */
export const SuggestedVisual = Schema.Struct({
  type: Report.VisualType,
  encoding: Report.Encoding
})

/** The arguments of the `query` tool: the semantic query and its visual. */
export const QueryArguments = Schema.Struct({
  query: SemanticQuery.Query,
  visual: SuggestedVisual
})

/** The arguments of the `cannot_answer` tool. */
export const CannotAnswerArguments = Schema.Struct({
  reason: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(2000))
})

/** The whole answer as one JSON object, for the `json_schema` response format (its root must be an object). */
export const Reply = Schema.Struct({
  answer: Schema.Union([QueryArguments, CannotAnswerArguments])
})

/** The tool names the model may call. */
export const toolNames = { query: "query", cannotAnswer: "cannot_answer" } as const

/** The tools of a planning request, strict. */
export const tools = [
  {
    type: "function",
    function: {
      name: toolNames.query,
      description: "Answer the question with a semantic query of the dataset's model and the visual that best shows its result.",
      strict: true,
      parameters: StrictJsonSchema.make(QueryArguments)
    }
  },
  {
    type: "function",
    function: {
      name: toolNames.cannotAnswer,
      description: "Say why the question cannot be answered from this dataset's members, and what it can answer instead.",
      strict: true,
      parameters: StrictJsonSchema.make(CannotAnswerArguments)
    }
  }
] as const

/** The response format of a planning request without tools, strict. */
export const responseFormat = {
  type: "json_schema",
  json_schema: { name: "answer", strict: true, schema: StrictJsonSchema.make(Reply) }
} as const

/** JSON text (or a server's already-parsed object) to a value; malformed text is an AnswererError. */
const parseJson = (what: string, text: unknown): Effect.Effect<unknown, Answerer.AnswererError> =>
  typeof text !== "string" ? Effect.succeed(text) : Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: (cause) => new Answerer.AnswererError({ detail: `The model's ${what} is not JSON: ${excerpt(text)}`, cause })
  })

const decodeStrict = <S extends Schema.Top & { readonly DecodingServices: never }>(schema: S, what: string) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (value: unknown): Effect.Effect<S["Type"], Answerer.AnswererError> =>
    decode(StrictJsonSchema.dropNulls(value), { onExcessProperty: "error", errors: "all" }).pipe(
      Effect.mapError((cause) => new Answerer.AnswererError({ detail: `The model's ${what} is not valid: ${cause.message}`, cause }))
    )
}

const decodeQuery = decodeStrict(QueryArguments, "query")
const decodeCannotAnswer = decodeStrict(CannotAnswerArguments, "cannot_answer call")
const decodeReply = decodeStrict(Reply, "answer")

const toPlan = (answer: typeof QueryArguments.Type | typeof CannotAnswerArguments.Type): Answerer.Plan =>
  "reason" in answer
    ? { _tag: "CannotAnswer", reason: answer.reason }
    : { _tag: "Query", query: answer.query, visual: answer.visual }

/** A tool call to a Plan: a known tool whose arguments decode, or an AnswererError. */
export const fromToolCall = (name: string, args: unknown): Effect.Effect<Answerer.Plan, Answerer.AnswererError> => {
  switch (name) {
    case toolNames.query:
      return Effect.map(Effect.flatMap(parseJson("query", args), decodeQuery), toPlan)
    case toolNames.cannotAnswer:
      return Effect.map(Effect.flatMap(parseJson("cannot_answer call", args), decodeCannotAnswer), toPlan)
    default:
      return Effect.fail(new Answerer.AnswererError({ detail: `The model called an unknown tool "${excerpt(name)}"` }))
  }
}

/** A `json_schema` reply's content to a Plan, or an AnswererError. */
export const fromContent = (content: string): Effect.Effect<Answerer.Plan, Answerer.AnswererError> =>
  Effect.map(Effect.flatMap(parseJson("answer", content), decodeReply), (reply) => toPlan(reply.answer))

/** The start of a text, for error details. */
export const excerpt = (text: string, length = 200): string => text.length <= length ? text : `${text.slice(0, length)}…`
