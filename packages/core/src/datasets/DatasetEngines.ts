/**
 * The engines datasets run on (decision 0013): the deployment's engine for
 * each type of source, the scheduler that gives tenants turns on them, and
 * the cache of uploaded datasets' results.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import { EngineScheduler } from "../limits/EngineScheduler.ts"
import { TaggedFailure } from "../platform/Errors.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import { AnalyticsEngine, AnalyticsEngine as AnalyticsEngineTag } from "./AnalyticsEngine.ts"
import type { DatasetSource, SourceType } from "./Dataset.ts"
import * as ResultCache from "./ResultCache.ts"

/** The layers of the engines datasets run on, keyed by the source type each serves (`Dataset.sourceTypes`); any may be absent. */
export type EngineLayers<E> = { readonly [T in SourceType]?: Layer.Layer<AnalyticsEngine, E> | undefined }

/**
 * The deployment's engines, keyed by the source type each serves: `upload`
 * for uploaded files (embedded DuckDB, or PostgreSQL's uploads), `postgres`
 * for the operator's tables read in place. A type without one is refused
 * (`EngineUnavailable`).
 */
export type EngineRegistry = { readonly [T in SourceType]?: AnalyticsEngine["Service"] | undefined }

/**
 * The engines datasets run on (`bySource`), and the scheduler that
 * shares them between tenants (`EngineScheduler`). Without a scheduler,
 * work runs as it comes (tests that build the engines by hand).
 */
export class Engines extends Context.Service<Engines, {
  readonly bySource: EngineRegistry
  readonly scheduler?: EngineScheduler["Service"] | undefined
  /** Results of uploaded datasets' queries, kept while their load stays; none kept without it. */
  readonly results?: ResultCache.ResultCache | undefined
}>()("@analytics/core/Datasets/Engines") {
  /** The engines built from their layers, and closed with this one, shared by the `EngineScheduler`. */
  static readonly layer = <E>(layers: EngineLayers<E>): Layer.Layer<Engines, E, EngineScheduler> =>
    Layer.effect(
      Engines,
      Effect.gen(function*() {
        const bySource: { [T in SourceType]?: AnalyticsEngine["Service"] } = {}
        for (const [type, layer] of Object.entries(layers) as Array<[SourceType, Layer.Layer<AnalyticsEngine, E> | undefined]>) {
          if (layer !== undefined) bySource[type] = Context.get(yield* Layer.build(layer), AnalyticsEngineTag)
        }
        return { bySource, scheduler: yield* EngineScheduler, results: ResultCache.make() }
      })
    )

  /** Engines already built, as layers again (the host hands the ones it built to the app it serves). */
  static readonly layersOf = (bySource: EngineRegistry): EngineLayers<never> =>
    Object.fromEntries(Object.entries(bySource).flatMap(([type, engine]) =>
      engine === undefined ? [] : [[type, Layer.succeed(AnalyticsEngineTag, engine)]]
    ))
}

/** Runs engine work of `tenantId` in its turn, however long it waits for it. */
export const inTurn = (tenantId: TenantId) => <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Engines> =>
  Effect.flatMap(Engines, ({ scheduler }) =>
    scheduler === undefined
      ? work
      // Without a deadline no turn expires.
      : Effect.catchTag(scheduler.withTurn(tenantId)(work), "TurnExpired", (expired) => Effect.die(expired)) as Effect.Effect<A, E, R>)

/** No engine serves this kind of source here. */
export class EngineUnavailable extends TaggedFailure("EngineUnavailable")<{
  readonly source: DatasetSource["type"]
}> {
  readonly code = "dataset/engine-unavailable" as const
  /** The sentence its problem says. */
  get problemDetail(): string {
    return this.source === "upload"
      ? "This service has no engine for uploaded files"
      : "This service has no PostgreSQL engine configured for direct query"
  }
}

/** The engine that serves the dataset's type of source, or EngineUnavailable. */
export const engineFor = (source: DatasetSource) =>
  Effect.flatMap(Engines, (engines) => {
    const engine = engines.bySource[source.type]
    return engine === undefined ? Effect.fail(new EngineUnavailable({ source: source.type })) : Effect.succeed(engine)
  })
