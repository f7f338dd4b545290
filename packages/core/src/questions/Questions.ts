/**
 * Questions about a dataset (`POST /v1/ai/ask`, decision 0016):
 * the answer is grounded in the semantic layer. The `Answerer` proposes a
 * semantic query, which is never trusted: it is decoded with the query
 * schema (unknown keys refused), checked against the model and planned
 * under the asker's row-level security, then run like any query of the
 * asker (in a slot of the workspace's concurrent queries, under a time
 * limit). The answerer then words the rows it is shown. What happens is a
 * stream of events (progress, the query and its SQL, the rows, pieces of
 * text, the whole answer), so a client can show it as it comes; ending the
 * stream early (a client that hangs up) interrupts whatever runs.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Schema, Stream } from "effect"
import type { EngineError, Row } from "../datasets/AnalyticsEngine.ts"
import { Answerer, AnswererError, type Plan as AnswerPlan, type Question, type SuggestedVisual } from "./Answerer.ts"
import { suggestVisual } from "./BuiltInAnswerer.ts"
import { type Dataset, readsInPlace } from "../datasets/Dataset.ts"
import * as Datasets from "../datasets/Datasets.ts"
import type { DatasetStore } from "../datasets/DatasetStore.ts"
import type { DirectoryStore } from "../directory/DirectoryStore.ts"
import { type Issue, NotFound, TaggedFailure } from "../platform/Errors.ts"
import { Limiter, type RateLimitedWith } from "../limits/Limiter.ts"
import * as Metrics from "../platform/Metrics.ts"
import * as OperationLimits from "../limits/OperationLimits.ts"
import * as Plan from "../tenancy/Plan.ts"
import type { Member } from "../auth/Principal.ts"
import * as Report from "../reports/Report.ts"
import * as Reports from "../reports/Reports.ts"
import type { ReportStore } from "../reports/ReportStore.ts"
import * as SemanticModel from "../datasets/SemanticModel.ts"
import * as SemanticQuery from "../datasets/SemanticQuery.ts"
import type { DialectName } from "../datasets/SqlDialect.ts"
import { TenantCache } from "../tenancy/TenantCache.ts"

/** The longest question accepted, in characters. */
export const maxQuestionLength = 2000
/** The most rows an answer carries: an answer is words and a chart, not an export. */
export const maxAnswerRows = 1000
/** How long an answerer may take to propose a query. */
export const planTimeout = Duration.seconds(30)
/** How long an answerer may take to word an answer. */
export const narrateTimeout = Duration.seconds(60)
/** The most string dimensions whose values a question is given, and the most values each. */
export const valuesLimits = { dimensions: 10, values: 100 } as const

/** A turn of the conversation so far. */
export const Turn = Schema.Struct({
  role: Schema.Literals(["user", "assistant"]),
  content: Schema.String.check(Schema.isMaxCodePoints(4000))
})

/** What a client asks: a question of a dataset, or of a report (one of its visuals). */
export const AskRequest = Schema.Struct({
  question: Schema.String.check(
    Schema.isMaxCodePoints(maxQuestionLength),
    Schema.isPattern(/\S/, { message: "Expected a question, not an empty text" })
  ).annotate({ description: `The question, in words (at most ${maxQuestionLength} characters)` }),
  dataset_id: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(100)).annotate({ description: "The dataset asked about; or give report_id" })),
  report_id: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(100)).annotate({
    description: "A report asked about: its visual's dataset (visual_id), or the one dataset its visuals show"
  })),
  visual_id: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(100)).annotate({
    description: "With report_id: the visual asked about; its filters apply to the answer"
  })),
  context: Schema.optionalKey(Schema.Array(Turn).check(Schema.isMaxLength(20)).annotate({
    description: "The conversation so far, oldest first, for follow-up questions (\"and by product?\")"
  }))
})
/** What a client asks. */
export type AskRequest = typeof AskRequest.Type

/** The request does not hold together (both or neither of dataset_id and report_id…); `field` names where. */
export class AskInvalid extends TaggedFailure("AskInvalid")<{
  readonly detail: string
  readonly field: string
}> {
  readonly code = "request/invalid" as const
  /** The field of the request, saying what its detail says. */
  get issue(): Issue {
    return { path: ["payload", this.field], message: this.detail }
  }
}

/** How a question ended: answered with rows; the answerer could not answer it; or its proposed query was refused. */
export type Status = "answered" | "cannot_answer" | "query_refused"

/** The SQL a query ran as, as `POST /v1/datasets/{id}/sql` shows it. */
export interface SqlText {
  readonly dialect: DialectName
  readonly sql: string
  readonly params: ReadonlyArray<string | number | boolean>
}

/** The whole answer. */
export interface Answer {
  readonly status: Status
  /** The answer in words; when there is none, why, and what the dataset can answer. */
  readonly text: string
  readonly dataset_id: string
  readonly query: SemanticQuery.Query | null
  readonly sql: SqlText | null
  readonly result: { readonly columns: ReadonlyArray<SemanticQuery.Column>; readonly rows: ReadonlyArray<Row> } | null
  readonly visual: SuggestedVisual | null
}

/** What happens while a question is answered, in order. */
export type Event =
  | { readonly _tag: "Progress"; readonly stage: "planning" | "querying" | "answering"; readonly message: string }
  | { readonly _tag: "Query"; readonly query: SemanticQuery.Query; readonly sql: SqlText }
  | { readonly _tag: "Rows"; readonly columns: ReadonlyArray<SemanticQuery.Column>; readonly rows: ReadonlyArray<Row> }
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Done"; readonly answer: Answer }

/** What may refuse a question before any work starts. */
export type AskRefusal =
  | AskInvalid
  | NotFound
  | Datasets.NotLoaded
  | RateLimitedWith<"rate-limit/ai-questions-exceeded">
  | Datasets.QueryError

/** What may end the stream of an accepted question. */
export type AnswerError =
  | AnswererError
  | Datasets.QueryError
  | Datasets.QueryTimedOut
  | EngineError
  | RateLimitedWith<"rate-limit/query-concurrency">

/** The services answering needs. */
export type Services =
  | Answerer
  | Limiter
  | TenantCache
  | DatasetStore
  | ReportStore
  | DirectoryStore
  | Datasets.Engines

/** What a question is about, once resolved. */
interface Subject {
  readonly dataset: Dataset
  /** The filters of the visual asked about, added to every query. */
  readonly filters: NonNullable<SemanticQuery.Query["filters"]>
  readonly timeout: Duration.Duration
}

const invalid = (field: string, detail: string) => Effect.fail(new AskInvalid({ field, detail }))

/** The dataset a request names, directly or through a report (and visual). */
const subjectOf = (member: Member, request: AskRequest) =>
  Effect.gen(function*() {
    if ((request.dataset_id === undefined) === (request.report_id === undefined)) {
      return yield* invalid("dataset_id", "Give either dataset_id or report_id")
    }
    if (request.visual_id !== undefined && request.report_id === undefined) {
      return yield* invalid("visual_id", "visual_id names a visual of report_id")
    }
    if (request.dataset_id !== undefined) {
      const dataset = yield* Datasets.get(member.tenantId, request.dataset_id)
      return { dataset, filters: [], timeout: Datasets.defaultQueryTimeout } satisfies Subject
    }
    const report = yield* Reports.get(member.tenantId, request.report_id!)
    const timeout = Duration.seconds(report.settings.query_timeout_seconds)
    if (request.visual_id !== undefined) {
      const found = Report.findVisual(report, request.visual_id)
      if (found === undefined) return yield* new NotFound({ resource: "visual", id: request.visual_id })
      const dataset = yield* Datasets.get(member.tenantId, found.visual.dataset_id)
      return { dataset, filters: found.visual.query.filters ?? [], timeout } satisfies Subject
    }
    const ids = Report.datasetIdsOf(report.pages)
    if (ids.length !== 1) {
      return yield* invalid(
        "visual_id",
        ids.length === 0 ? "The report has no visuals to ask about" : "The report's visuals show several datasets: name the visual (visual_id) or the dataset"
      )
    }
    return { dataset: yield* Datasets.get(member.tenantId, ids[0]!), filters: [], timeout } satisfies Subject
  })

/** The service's checks of a proposed query: decoded with the schema (no unknown key), at most `maxAnswerRows` rows. */
const decodeProposal = Schema.decodeUnknownEffect(SemanticQuery.Query, { onExcessProperty: "error", errors: "first" })

/** A visual the answerer proposed, if it fits the query's columns; else the service's own choice. */
const checkedVisual = (proposed: unknown, columns: ReadonlyArray<SemanticQuery.Column>): SuggestedVisual => {
  const decoded = Schema.decodeUnknownOption(Schema.Struct({ type: Report.VisualType, encoding: Report.Encoding }))(proposed, { onExcessProperty: "error" })
  if (decoded._tag === "Some") {
    const names = new Set(columns.map((c) => c.name))
    const { encoding } = decoded.value
    const used = [encoding.x, encoding.series, encoding.category, encoding.value, ...(encoding.y ?? []), ...(encoding.columns ?? [])]
    if (used.every((c) => c === undefined || names.has(c))) return decoded.value
  }
  return suggestVisual(columns)
}

/**
 * The values of string dimensions the asker can see, for an answerer to
 * recognise filters by ("in EU"): under their row-level security, in the
 * question's query slot; a dimension with more than `valuesLimits.values`
 * values is left out, as are values that fail to load.
 */
const visibleValues = (
  dataset: Dataset,
  security: SemanticQuery.SecurityContext,
  run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | RateLimitedWith<"rate-limit/query-concurrency">, R>
) =>
  Effect.gen(function*() {
    const values: Record<string, ReadonlyArray<string>> = {}
    const dimensions = dataset.model.dimensions.filter((d) => d.type === "string").slice(0, valuesLimits.dimensions)
    for (const dimension of dimensions) {
      const query: SemanticQuery.Query = { dimensions: [dimension.name], order: [{ member: dimension.name }], limit: valuesLimits.values + 1 }
      const result = yield* run(Datasets.query(dataset.tenant_id, dataset.dataset_id, query, security, Duration.seconds(10))).pipe(
        Effect.map((r) => r.rows),
        Effect.orElseSucceed(() => undefined)
      )
      if (result === undefined || result.length > valuesLimits.values) continue
      values[dimension.name] = result.flatMap((row) => (typeof row[dimension.name] === "string" ? [row[dimension.name] as string] : []))
    }
    return values
  })

/**
 * Accepts a question of `member` and answers it as a stream of events. The
 * request is checked first (the dataset or report exists in the member's
 * tenant, its rows are loaded) and the question is counted against the AI
 * limits (30 a minute per user, 500 an hour per workspace: a streamed
 * answer counts once); the returned stream then plans, runs and words the
 * answer as it is read.
 */
export const ask = (
  member: Member,
  request: AskRequest
): Effect.Effect<Stream.Stream<Event, AnswerError, Services>, AskRefusal, Services> =>
  Effect.gen(function*() {
    const subject = yield* subjectOf(member, request)
    const { dataset } = subject
    if (!readsInPlace(dataset.source) && dataset.refreshed_at === null) {
      return yield* new Datasets.NotLoaded({ datasetId: dataset.dataset_id })
    }
    const limiter = yield* Limiter
    yield* limiter.enforce(OperationLimits.aiQuestions({ userId: member.userId, workspaceId: dataset.workspace_id }))
    const security = yield* Datasets.securityContext(member)
    const tenant = yield* (yield* TenantCache).get(member.tenantId)
    const capacity = tenant === undefined ? 1 : Plan.limitsFor(tenant.plan, tenant.limits).queryConcurrency
    // As POST /v1/datasets/{id}/query: one slot of the workspace's concurrent queries while the engine works.
    const inSlot = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      limiter.withSlot(OperationLimits.queryConcurrency(dataset.workspace_id, capacity), Duration.toMillis(subject.timeout) + 30_000)(effect)
    return answer(member, request, subject, security, inSlot).pipe(
      Stream.tap((event) => event._tag === "Done" ? Metrics.questionAnswered(event.answer.status) : Effect.void),
      Stream.tapError(() => Metrics.questionAnswered("error"))
    )
  })

const answer = (
  member: Member,
  request: AskRequest,
  subject: Subject,
  security: SemanticQuery.SecurityContext,
  inSlot: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | RateLimitedWith<"rate-limit/query-concurrency">, R>
): Stream.Stream<Event, AnswerError, Services> => {
  const { dataset } = subject
  const done = (answer: Omit<Answer, "dataset_id">): Event => ({ _tag: "Done", answer: { ...answer, dataset_id: dataset.dataset_id } })
  const progress = (stage: "planning" | "querying" | "answering", message: string): Event => ({ _tag: "Progress", stage, message })
  const nothing = { query: null, sql: null, result: null, visual: null }
  return Stream.concat(
    Stream.make(progress("planning", `Reading the question against the model of "${dataset.name}"`)),
    Stream.unwrap(Effect.gen(function*() {
      const answerer = yield* Answerer
      const values = yield* inSlot(visibleValues(dataset, security, (e) => e))
      const question: Question = {
        text: request.question,
        dataset: { name: dataset.name, description: dataset.description, model: dataset.model },
        context: request.context ?? [],
        now: new Date(yield* Clock.currentTimeMillis),
        values
      }
      const plan: AnswerPlan = yield* answerer.plan(question).pipe(
        Effect.timeoutOrElse({
          duration: planTimeout,
          orElse: () => Effect.fail(new AnswererError({ detail: `The answerer proposed no query within ${Duration.format(planTimeout)}` }))
        })
      )
      if (plan._tag === "CannotAnswer") {
        return Stream.make(done({ status: "cannot_answer", text: plan.reason, ...nothing }))
      }
      // The proposal is untrusted input: decoded as a client's query would be, then planned by the service.
      const refused = (detail: string) =>
        Stream.make(done({ status: "query_refused", text: `The query proposed for this question was refused: ${detail}`, ...nothing }))
      // A filter nested past the bound is refused before the decoder recurses into it (decision 0013).
      const filters: unknown = typeof plan.query === "object" && plan.query !== null ? (plan.query as { readonly filters?: unknown }).filters : undefined
      if (Array.isArray(filters) && filters.some((f) => SemanticModel.nestingOf(f) > SemanticModel.maxFilterNesting)) {
        return refused(SemanticModel.tooDeepMessage)
      }
      const decoded = yield* Effect.result(decodeProposal(plan.query))
      if (decoded._tag === "Failure") return refused(decoded.failure.message)
      const proposed = decoded.success
      const query: SemanticQuery.Query = {
        ...proposed,
        ...(subject.filters.length === 0 ? {} : { filters: [...subject.filters, ...(proposed.filters ?? [])] }),
        limit: Math.min(proposed.limit ?? maxAnswerRows, maxAnswerRows)
      }
      const compiled = yield* Effect.result(Datasets.compile(member.tenantId, dataset.dataset_id, query, security))
      if (compiled._tag === "Failure") {
        const error = compiled.failure
        if (error._tag === "QueryInvalid") return refused(error.detail)
        return yield* Effect.fail(error)
      }
      const sql: SqlText = { dialect: compiled.success.dialect, sql: compiled.success.compiled.sql, params: compiled.success.compiled.params }
      return Stream.concat(
        Stream.fromIterable<Event>([{ _tag: "Query", query, sql }, progress("querying", "Running the query")]),
        Stream.unwrap(Effect.gen(function*() {
          const { compiled: ran, rows } = yield* inSlot(Datasets.query(member.tenantId, dataset.dataset_id, query, security, subject.timeout))
          const columns = ran.columns
          const visual = checkedVisual(plan.visual, columns)
          const pieces: Array<string> = []
          const narration = answerer.narrate(question, { query, columns, rows }).pipe(
            Stream.timeoutOrElse({
              duration: narrateTimeout,
              orElse: () => Stream.fail(new AnswererError({ detail: `The answerer did not finish its answer within ${Duration.format(narrateTimeout)}` }))
            }),
            Stream.map((text): Event => {
              pieces.push(text)
              return { _tag: "Text", text }
            })
          )
          return Stream.fromIterable<Event>([{ _tag: "Rows", columns, rows }, progress("answering", "Wording the answer")]).pipe(
            Stream.concat(narration),
            Stream.concat(Stream.suspend(() =>
              Stream.make(done({ status: "answered", text: pieces.join(""), query, sql, result: { columns, rows }, visual }))
            ))
          )
        }))
      )
    }))
  )
}

/** The answer of a whole stream: its `Done` event's. */
export const collect = <E, R>(events: Stream.Stream<Event, E, R>): Effect.Effect<Answer, E, R> =>
  Effect.flatMap(Stream.runLast(Stream.filter(events, (e) => e._tag === "Done")), (last) =>
    last._tag === "Some" && last.value._tag === "Done"
      ? Effect.succeed(last.value.answer)
      : Effect.die(new Error("An answer stream ended without its answer")))
