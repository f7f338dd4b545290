/**
 * The `Answerer` port over any OpenAI-compatible chat-completions API
 * (OpenAI, gateways, vLLM, Ollama, llama.cpp…). Planning is one completion
 * whose output is constrained to the semantic query's schema, by strict
 * tools (`query`, `cannot_answer`) or a strict `json_schema` response
 * format, then decoded with the Effect Schema, excess keys refused: what
 * does not decode is an AnswererError and never reaches the service.
 * Narrating is a second, streamed completion shown the first rows of the
 * result.
 *
 * @since 0.1.0
 */
import { Answerer } from "@analytics/core"
import { Duration, Effect, Layer, type Redacted, Stream } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import * as ChatCompletions from "./ChatCompletions.ts"
import * as Prompt from "./Prompt.ts"
import * as Proposal from "./Proposal.ts"

/** Which server, model and key; how long to wait; how the output is constrained. */
export interface Options {
  /** The API's base URL, e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama), `http://localhost:8000/v1` (vLLM). */
  readonly baseUrl: string
  /** Sent as a bearer token; omit it for servers that need none. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** The model's name on that server. */
  readonly model: string
  /** How long to wait for a plan, for narration to start and for each of its pieces (default 30 s). */
  readonly timeoutMillis?: number | undefined
  /**
   * How the plan's shape is imposed: `tools` (default; the model calls
   * `query` or `cannot_answer`) or `json_schema` (a response format, for
   * servers or models without tool calling).
   */
  readonly output?: "tools" | "json_schema" | undefined
  /** How many of the result's rows narration is shown (default 200). */
  readonly maxRows?: number | undefined
}

/** The answerer over the HTTP client in context. */
export const make = (options: Options): Effect.Effect<Answerer.Answerer["Service"], never, HttpClient.HttpClient> =>
  Effect.map(Effect.context<HttpClient.HttpClient>(), (context) => {
    const endpoint: ChatCompletions.Endpoint = {
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      timeout: Duration.millis(options.timeoutMillis ?? 30_000)
    }
    const output = options.output ?? "tools"
    const maxRows = options.maxRows ?? 200

    const plan = (question: Answerer.Question): Effect.Effect<Answerer.Plan, Answerer.AnswererError> =>
      ChatCompletions.complete(endpoint, {
        model: options.model,
        messages: Prompt.plan(question, output),
        ...(output === "tools"
          ? { tools: Proposal.tools, tool_choice: "required" }
          : { response_format: Proposal.responseFormat })
      }).pipe(
        Effect.flatMap((completion) => {
          const message = completion.choices[0].message
          const call = message.tool_calls?.[0]
          if (call !== undefined) return Proposal.fromToolCall(call.function.name, call.function.arguments)
          if (typeof message.refusal === "string" && message.refusal !== "") {
            return Effect.succeed<Answerer.Plan>({ _tag: "CannotAnswer", reason: message.refusal })
          }
          const content = message.content ?? ""
          if (output === "json_schema" && content !== "") return Proposal.fromContent(content)
          return Effect.fail(
            new Answerer.AnswererError({
              detail: content === ""
                ? "The model gave no answer"
                : `The model answered in text instead of calling a tool: ${Proposal.excerpt(content)}`
            })
          )
        }),
        Effect.provideContext(context)
      )

    const narrate = (question: Answerer.Question, result: Answerer.Result): Stream.Stream<string, Answerer.AnswererError> =>
      ChatCompletions.stream(endpoint, { model: options.model, messages: Prompt.narrate(question, result, maxRows) }).pipe(
        Stream.provideContext(context)
      )

    return { plan, narrate }
  })

/** The answerer over Node's fetch. */
export const layer = (options: Options): Layer.Layer<Answerer.Answerer> =>
  Layer.effect(Answerer.Answerer, make(options)).pipe(Layer.provide(FetchHttpClient.layer))
