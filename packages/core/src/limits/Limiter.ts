/**
 * Enforcing rate limits: decides requests against the `RateLimitStore` at
 * the clock's now, and gives the features the per-operation guards of
 * decision 0009 (quotas, password attempts, concurrency slots).
 *
 * When the shared store fails (or does not answer in time:
 * `RateLimitStore.timeLimited`), each process limits on its own memory rather than failing every request or
 * letting every request through (decision 0009): an outage of the store
 * loosens limits by at most the number of processes, and never answers a 5xx.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer } from "effect"
import { type StoreError, TaggedFailure } from "../platform/Errors.ts"
import { uuidv7 } from "../platform/Ids.ts"
import type { ConcurrencyLimit, OperationLimit, RefusalCode } from "./OperationLimits.ts"
import type * as RateLimit from "./RateLimit.ts"
import { makeMemory, RateLimitStore } from "./RateLimitStore.ts"

/** A request refused by a per-operation limit (429 with `Retry-After`). */
export class RateLimited extends TaggedFailure("RateLimited")<{
  readonly code: RefusalCode
  readonly detail: string
  readonly retryAfterSeconds: number
}> {}

/** A refusal with the code of the limit that refused it. */
export type RateLimitedWith<Code extends RefusalCode> = RateLimited & { readonly code: Code }

/** Enforces quotas and concurrency caps. */
export class Limiter extends Context.Service<Limiter, {
  /** Decides one request against `quotas` now (the API's two layers use this and render the decision). */
  readonly decide: (quotas: ReadonlyArray<RateLimit.Quota>) => Effect.Effect<RateLimit.Decision>
  /**
   * Decides one request against `quotas` at `now` (epoch ms) in one
   * synchronous step when the store keeps its states in this process
   * (`RateLimitStore.consumeNow`): the same decision as `decide`, without an
   * effect per request (decision 0008). `undefined` when the store is shared;
   * the caller then uses `decide`.
   */
  readonly decideNow: (quotas: ReadonlyArray<RateLimit.Quota>, now: number) => RateLimit.Decision | undefined
  /** Counts one run of an operation, or refuses it. */
  readonly enforce: <Code extends RefusalCode>(
    limit: OperationLimit<Code>
  ) => Effect.Effect<RateLimit.Decision, RateLimitedWith<Code>>
  /**
   * Counts an attempt, runs `verify`, and gives the attempt back when it
   * succeeds: only failures count (decision 0009 password attempts), and
   * concurrent guesses cannot slip past the count.
   */
  readonly attempt: <Code extends RefusalCode, E, R>(
    limit: OperationLimit<Code>,
    verify: Effect.Effect<boolean, E, R>
  ) => Effect.Effect<boolean, E | RateLimitedWith<Code>, R>
  /**
   * Runs `use` holding one slot of `limit`, or refuses with `Retry-After: 1`.
   * The slot is given back however `use` ends (success, failure,
   * interruption such as a client disconnect or a timeout); a process that
   * dies holding it loses it after `leaseMillis`.
   */
  readonly withSlot: <Code extends RefusalCode>(
    limit: ConcurrencyLimit<Code>,
    leaseMillis: number
  ) => <A, E, R>(use: Effect.Effect<A, E, R>) => Effect.Effect<A, E | RateLimitedWith<Code>, R>
}>()("@analytics/core/Limiter") {
  /** Enforces limits on the `RateLimitStore`. */
  static readonly layer = Layer.effect(Limiter, Effect.gen(function*() {
    const store = yield* RateLimitStore
    const fallback = makeMemory()
    /** The store's answer, or this process's own while the store fails. */
    const orFallback = <A>(
      operation: (store: RateLimitStore["Service"]) => Effect.Effect<A, StoreError>
    ): Effect.Effect<A> =>
      operation(store).pipe(
        Effect.catchTag("StoreError", (error) =>
          Effect.andThen(
            Effect.logWarning("Rate-limit store unreachable; limiting in this process", error),
            Effect.orDie(operation(fallback))
          ))
      )
    // An in-process store cannot fail: its decision needs no fallback, nor an effect.
    const consumeNow = store.consumeNow
    const decideAt = (quotas: ReadonlyArray<RateLimit.Quota>, now: number): Effect.Effect<RateLimit.Decision> =>
      consumeNow !== undefined
        ? Effect.sync(() => consumeNow(quotas, now))
        : orFallback((store) => store.consume(quotas, now))
    const refusal = <Code extends RefusalCode>(code: Code, detail: string, retryAfterSeconds: number) =>
      new RateLimited({ code, detail, retryAfterSeconds }) as RateLimitedWith<Code>
    const enforceAt = <Code extends RefusalCode>(limit: OperationLimit<Code>, now: number) =>
      Effect.flatMap(decideAt(limit.quotas, now), (decision) =>
        decision.allowed
          ? Effect.succeed(decision)
          : Effect.fail(refusal(limit.code, limit.detail(decision.refusedBy ?? ""), decision.retryAfterSeconds)))
    return {
      decide: (quotas) => Effect.flatMap(Clock.currentTimeMillis, (now) => decideAt(quotas, now)),
      decideNow: consumeNow === undefined ? () => undefined : consumeNow,
      enforce: (limit) => Effect.flatMap(Clock.currentTimeMillis, (now) => enforceAt(limit, now)),
      attempt: (limit, verify) =>
        Effect.gen(function*() {
          const countedAt = yield* Clock.currentTimeMillis
          yield* enforceAt(limit, countedAt)
          const succeeded = yield* verify
          if (succeeded) {
            const now = yield* Clock.currentTimeMillis
            yield* orFallback((store) => store.refund(limit.quotas, countedAt, now))
          }
          return succeeded
        }),
      withSlot: (limit, leaseMillis) => (use) =>
        Effect.acquireUseRelease(
          Effect.gen(function*() {
            const lease = yield* uuidv7
            const now = yield* Clock.currentTimeMillis
            const acquired = yield* orFallback((store) =>
              store.acquireSlot(limit.key, lease, limit.capacity, now, now + leaseMillis)
            )
            if (!acquired) {
              return yield* Effect.fail(refusal(limit.code, limit.detail, 1))
            }
            return lease
          }),
          () => use,
          (lease) =>
            orFallback((store) => store.releaseSlot(limit.key, lease)).pipe(
              // The fallback may hold the slot if the store failed at acquisition.
              Effect.andThen(Effect.orDie(fallback.releaseSlot(limit.key, lease)))
            )
        )
    }
  }))
}
