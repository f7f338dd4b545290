/**
 * Port: what turns a question about a dataset into a semantic query, and
 * the query's rows into words (the AI question endpoint, decision 0016). An
 * answerer never writes SQL and never runs anything: it proposes a
 * `SemanticQuery.Query` of the dataset's model, which the service decodes,
 * plans against the asker's row-level security and runs itself; then it
 * words the numbers it is shown. Two implementations: a built-in one that
 * works offline with no model, and an OpenAI-compatible chat-completions
 * adapter.
 *
 * @since 0.1.0
 */
import { Context, type Effect, type Stream } from "effect"
import type { Row } from "../datasets/AnalyticsEngine.ts"
import type { Encoding, VisualType } from "../reports/Report.ts"
import type { Model } from "../datasets/SemanticModel.ts"
import type { Column, Query } from "../datasets/SemanticQuery.ts"
import { TaggedFailure } from "../platform/Errors.ts"

/** A turn of the conversation before the question. */
export interface Turn {
  readonly role: "user" | "assistant"
  readonly content: string
}

/** A question, with what an answerer may read to answer it: the dataset's model (its members, never its rows) and the conversation so far. */
export interface Question {
  readonly text: string
  readonly dataset: { readonly name: string; readonly description: string | null; readonly model: Model }
  readonly context: ReadonlyArray<Turn>
  /**
   * The values of the model's string dimensions that the asker may see (read
   * under their row-level security, never anyone else's rows), for dimensions
   * with few enough values to list; absent or partial when unknown. Answerers
   * may use them to recognise filters ("in EU"); they are data of the dataset.
   */
  readonly values?: Readonly<Record<string, ReadonlyArray<string>>> | undefined
  /** The time "last month" and "this year" are read against (UTC). */
  readonly now: Date
}

/** How the answer is best shown: a visual of the query's columns. */
export interface SuggestedVisual {
  readonly type: VisualType
  readonly encoding: Encoding
}

/** What an answerer proposes for a question. */
export type Plan =
  | {
    readonly _tag: "Query"
    /** A semantic query of the model; checked and run by the service, never trusted. */
    readonly query: Query
    readonly visual: SuggestedVisual
  }
  | {
    readonly _tag: "CannotAnswer"
    /** Why, in words for the asker (what the dataset can answer instead). */
    readonly reason: string
  }

/** The query's result, as the answerer is shown it to word the answer. */
export interface Result {
  readonly query: Query
  readonly columns: ReadonlyArray<Column>
  readonly rows: ReadonlyArray<Row>
}

/** The answerer failed (its model unreachable, an answer that is no plan, a time-out). */
export class AnswererError extends TaggedFailure("AnswererError")<{
  readonly detail: string
  readonly cause?: unknown
}> {}

/** Turns questions into semantic queries and results into answers. */
export class Answerer extends Context.Service<Answerer, {
  /** Proposes a semantic query of the question's dataset, or says why it cannot answer. */
  readonly plan: (question: Question) => Effect.Effect<Plan, AnswererError>
  /** Words the answer from the rows the service ran, in pieces as they come. */
  readonly narrate: (question: Question, result: Result) => Stream.Stream<string, AnswererError>
}>()("@analytics/core/Answerer") {}
