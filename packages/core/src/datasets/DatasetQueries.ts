/**
 * Semantic queries of a dataset (decision 0013), for a principal with their
 * row-level security: compiled for the dataset's engine, run in the
 * tenant's turn on it within a timeout, or streamed to a file.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Stream } from "effect"
import type { Member } from "../auth/Principal.ts"
import { DirectoryStore } from "../directory/DirectoryStore.ts"
import type { UserId } from "../directory/User.ts"
import type { EngineScheduler, TurnExpired } from "../limits/EngineScheduler.ts"
import { RateLimited, type RateLimitedWith } from "../limits/Limiter.ts"
import { type NotFound, type StoreError, TaggedFailure } from "../platform/Errors.ts"
import * as Metrics from "../platform/Metrics.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { EngineError, type Row, type Writer } from "./AnalyticsEngine.ts"
import { type Dataset, readsInPlace, tableOf } from "./Dataset.ts"
import { engineFor, Engines, EngineUnavailable } from "./DatasetEngines.ts"
import { checked, get } from "./DatasetRecords.ts"
import type { DatasetStore } from "./DatasetStore.ts"
import * as ResultCache from "./ResultCache.ts"
import type * as SemanticModel from "./SemanticModel.ts"
import * as SemanticQuery from "./SemanticQuery.ts"
import * as SqlCompiler from "./SqlCompiler.ts"
import { type DialectName, dialects } from "./SqlDialect.ts"

/** How long a query may run before it is cancelled in the engine (reports set their own). */
export const defaultQueryTimeout = Duration.seconds(60)

/**
 * No turn on the analytics engine came within the query's timeout: the
 * engine is busy with this tenant's other queries (its fair share is in
 * use) or with everyone's. 429 `rate-limit/query-concurrency` with
 * `Retry-After`, as the per-workspace cap answers: the client should send
 * fewer queries at once, and retry.
 */
export type EngineBusy = RateLimitedWith<"rate-limit/query-concurrency">

const engineBusy = (expired: TurnExpired): EngineBusy =>
  new RateLimited({
    code: "rate-limit/query-concurrency",
    detail: `The analytics engine had no turn for this query within ${Math.round(expired.waitedMillis / 1000)} s: this tenant's other queries hold its share of the engine; send fewer at once`,
    retryAfterSeconds: 1
  }) as EngineBusy

/** The same, for work whose only failure is the engine's (streamed and written files). */
const engineBusyError = (expired: TurnExpired) =>
  new EngineError({ operation: "schedule", detail: `The analytics engine had no turn for this work within ${Math.round(expired.waitedMillis / 1000)} s` })

/** Runs engine work of `tenantId` in its turn, waiting at most `deadline` (`EngineScheduler.withTurn`), or at once without a scheduler. */
const inTurnWithin = (tenantId: TenantId, deadline: Duration.Input) => <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E | TurnExpired, R | Engines> =>
  Effect.flatMap(Engines, ({ scheduler }) => scheduler === undefined ? work : scheduler.withTurn(tenantId, deadline)(work))

/** A stream of engine work of `tenantId`, holding a turn while it runs; no turn within `deadline` is an EngineError. */
const streamedInTurn = <A>(
  scheduler: EngineScheduler["Service"] | undefined,
  tenantId: TenantId,
  stream: Stream.Stream<A, EngineError>
): Stream.Stream<A, EngineError> =>
  scheduler === undefined
    ? stream
    : Stream.unwrap(Effect.as(Effect.mapError(scheduler.turn(tenantId, defaultQueryTimeout), engineBusyError), stream))

/** The dataset has no rows yet: upload them first. */
export class NotLoaded extends TaggedFailure("NotLoaded")<{
  readonly datasetId: string
}> {
  readonly code = "dataset/not-loaded" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `Dataset ${this.datasetId} has no rows yet: load a CSV or Parquet file first`
  }
}

/** The query ran longer than allowed and was cancelled. */
export class QueryTimedOut extends TaggedFailure("QueryTimedOut")<{
  readonly seconds: number
}> {
  readonly code = "query/timed-out" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `The query ran longer than ${this.seconds} s and was cancelled; narrow it (filters, a date range, fewer dimensions)`
  }
}

/**
 * Who a member is to row-level security, now: their service roles and the
 * names of the executive roles they hold (read from the directory at each
 * query, never cached), and their attributes with `user_id` and `email`.
 */
export const securityContext = (member: Member): Effect.Effect<SemanticQuery.SecurityContext, StoreError, DirectoryStore> =>
  Effect.gen(function*() {
    const directory = yield* DirectoryStore
    const { roles } = yield* directory.membershipsOf(member.tenantId, member.userId as UserId)
    const names: Array<string> = []
    for (const roleId of roles) {
      const role = yield* directory.findGroup(member.tenantId, "executive_role", roleId)
      if (role !== undefined) names.push(role.name)
    }
    return {
      roles: [...member.roles, ...names],
      attributes: { ...member.attributes, user_id: member.userId, ...(member.email === null ? {} : { email: member.email }) }
    }
  })

/** A planned query of a loaded dataset, ready to compile for its engine. */
const prepared = (
  tenantId: TenantId,
  datasetId: string,
  query: SemanticQuery.Query,
  security: SemanticQuery.SecurityContext,
  dialect?: DialectName,
  options?: SemanticQuery.PlanOptions
) =>
  Effect.gen(function*() {
    const dataset = yield* get(tenantId, datasetId)
    if (!readsInPlace(dataset.source) && dataset.refreshed_at === null) return yield* new NotLoaded({ datasetId })
    const engine = yield* engineFor(dataset.source)
    const { scheduler } = yield* Engines
    const model = yield* checked(dataset.model, [])
    const plan = SemanticQuery.plan(model, query, security, new Date(yield* Clock.currentTimeMillis), options)
    if (plan instanceof SemanticQuery.QueryInvalid) return yield* plan
    return { dataset, engine, scheduler, compiled: SqlCompiler.compile(plan, { table: engine.sqlName?.(tableOf(dataset)) ?? tableOf(dataset) }, dialect === undefined ? engine.dialect : dialects[dialect]) }
  })

/** The errors of planning a query of a dataset. */
export type PlanError = NotFound | NotLoaded | EngineUnavailable | SemanticModel.ModelInvalid | SemanticQuery.QueryInvalid | StoreError

/** The errors of asking a dataset a query, before it runs: planning it, and waiting for a turn on the engine. */
export type QueryError = PlanError | EngineBusy

/** The SQL a query compiles to, for its dataset's engine or the `dialect` asked for (nothing is run). */
export const compile = (
  tenantId: TenantId,
  datasetId: string,
  query: SemanticQuery.Query,
  security: SemanticQuery.SecurityContext,
  dialect?: DialectName
): Effect.Effect<{ readonly dialect: DialectName; readonly compiled: SqlCompiler.Compiled }, PlanError, DatasetStore | Engines> =>
  Effect.map(prepared(tenantId, datasetId, query, security, dialect), ({ compiled, engine }) => ({ dialect: dialect ?? engine.dialect.name, compiled }))

/** Whether the engine of a dataset has a file writer of its own (`parquet`: DuckDB's). */
export const engineWrites = (
  tenantId: TenantId,
  datasetId: string,
  writer: Writer
): Effect.Effect<boolean, NotFound | StoreError, DatasetStore | Engines> =>
  Effect.flatMap(get(tenantId, datasetId), (dataset) =>
    Effect.map(Effect.orElseSucceed(engineFor(dataset.source), () => undefined), (engine) => engine?.[writer] !== undefined))

/** Files streamed from the engine carry every row; a limit the query names still applies. */
const streamed: SemanticQuery.PlanOptions = { everyRow: true }

/** A query's rows (every one, unless it names a limit) as a Parquet file written by its dataset's engine, streamed. */
export const parquet = (
  tenantId: TenantId,
  datasetId: string,
  query: SemanticQuery.Query,
  security: SemanticQuery.SecurityContext
): Effect.Effect<Stream.Stream<Uint8Array, EngineError>, PlanError, DatasetStore | Engines> =>
  Effect.flatMap(prepared(tenantId, datasetId, query, security, undefined, streamed), ({ compiled, dataset, engine, scheduler }) =>
    engine.parquet === undefined
      ? Effect.fail(new EngineUnavailable({ source: dataset.source.type }))
      : Effect.succeed(streamedInTurn(scheduler, tenantId, engine.parquet(compiled))))

/**
 * A query's rows (every one, unless it names a limit) as a CSV file
 * streamed from its dataset's engine, or `undefined` when the engine has no
 * streamed writer (the caller then reads a bounded result with `query`).
 */
export const csv = (
  tenantId: TenantId,
  datasetId: string,
  query: SemanticQuery.Query,
  security: SemanticQuery.SecurityContext
): Effect.Effect<Stream.Stream<Uint8Array, EngineError> | undefined, PlanError, DatasetStore | Engines> =>
  Effect.map(prepared(tenantId, datasetId, query, security, undefined, streamed), ({ compiled, engine, scheduler }) =>
    engine.csv === undefined ? undefined : streamedInTurn(scheduler, tenantId, engine.csv(compiled)))

/**
 * How a query's rows (every one, unless it names a limit) are written to a
 * file by its dataset's engine itself, or `undefined` when the engine has
 * no such writer (then `csv` and `parquet` stream them).
 */
export const fileWriter = (
  tenantId: TenantId,
  datasetId: string,
  query: SemanticQuery.Query,
  security: SemanticQuery.SecurityContext,
  format: "csv" | "parquet"
): Effect.Effect<((path: string) => Effect.Effect<void, EngineError>) | undefined, PlanError, DatasetStore | Engines> =>
  Effect.map(prepared(tenantId, datasetId, query, security, undefined, streamed), ({ compiled, engine, scheduler }) => {
    const writeFile = engine.writeFile
    if (writeFile === undefined) return undefined
    return (path: string) =>
      scheduler === undefined
        ? writeFile(compiled, format, path)
        : scheduler.withTurn(tenantId, defaultQueryTimeout)(writeFile(compiled, format, path)).pipe(Effect.catchTag("TurnExpired", (expired) => Effect.fail(engineBusyError(expired))))
  })

/**
 * Runs a query of a dataset for a principal in a turn of its tenant's on
 * the engine (`EngineScheduler`). `timeout` bounds the whole: a query with
 * no turn within it fails with EngineBusy (429), one still running at its
 * end is cancelled in the engine (QueryTimedOut).
 */
export const query = (
  tenantId: TenantId,
  datasetId: string,
  query: SemanticQuery.Query,
  security: SemanticQuery.SecurityContext,
  timeout: Duration.Input = defaultQueryTimeout
): Effect.Effect<
  { readonly dataset: Dataset; readonly compiled: SqlCompiler.Compiled; readonly rows: ReadonlyArray<Row> },
  QueryError | QueryTimedOut | EngineError,
  DatasetStore | Engines
> =>
  Effect.gen(function*() {
    const { compiled, dataset, engine } = yield* prepared(tenantId, datasetId, query, security)
    const { results } = yield* Engines
    // A loaded dataset's rows change only with its load, which the key names; a table read in place may change at any time.
    const cache = results !== undefined && !readsInPlace(dataset.source) && (yield* ResultCache.Enabled)
      ? { results, key: ResultCache.key(dataset, compiled) }
      : undefined
    const cached = cache?.results.get(cache.key)
    if (cached !== undefined) return { dataset, compiled, rows: cached }
    const budget = Duration.toMillis(timeout)
    const asked = yield* Clock.currentTimeMillis
    const rows = yield* Effect.gen(function*() {
      // What the wait for a turn left of the timeout.
      const waited = (yield* Clock.currentTimeMillis) - asked
      yield* Effect.annotateCurrentSpan("dataset.engine_wait_ms", waited)
      const left = Math.max(0, budget - waited)
      return yield* engine.run(compiled, { timeout }).pipe(
        Effect.timeoutOrElse({
          duration: left,
          orElse: () => Effect.fail(new QueryTimedOut({ seconds: Duration.toSeconds(timeout) }))
        }),
        Metrics.timedQuery(dataset.source.type)
      )
    }).pipe(
      inTurnWithin(tenantId, budget),
      Effect.catchTag("TurnExpired", (expired) => Effect.fail(engineBusy(expired))),
      Effect.withSpan("dataset.query", { attributes: { "dataset.engine": dataset.source.type, "dataset.id": dataset.dataset_id } })
    )
    cache?.results.set(cache.key, rows)
    return { dataset, compiled, rows }
  })
