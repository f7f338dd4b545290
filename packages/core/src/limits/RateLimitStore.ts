/**
 * Port: where rate-limit states live. A store applies `RateLimit.decide` to
 * the states of a request's quotas atomically, so concurrent requests (and
 * several host processes on one shared store) never admit more than the
 * limits; and it keeps the leased slots of concurrency caps (decision 0009).
 *
 * A store over a network bounds each operation with `timeLimited`, so a
 * slow store never holds a request. Every store computes with the same
 * integer arithmetic, and
 * `rateLimitStoreContract` (in `@analytics/testing`) checks that each
 * one decides exactly like `RateLimit.decide`.
 *
 * @since 0.1.0
 */
import { Context, Duration, Effect, Layer } from "effect"
import { StoreError } from "../platform/Errors.ts"
import * as RateLimit from "./RateLimit.ts"

/** Keeps rate-limit states and concurrency slots. */
export class RateLimitStore extends Context.Service<RateLimitStore, {
  /** Decides one request against `quotas` at `now` (epoch ms) and keeps the resulting states, all or nothing. */
  readonly consume: (
    quotas: ReadonlyArray<RateLimit.Quota>,
    now: number
  ) => Effect.Effect<RateLimit.Decision, StoreError>
  /**
   * `consume`, synchronously, for a store in this process's memory: the
   * edge decides every request, and one step costs less than an effect per
   * request (decision 0008). A store over a network has none; the Limiter then
   * uses `consume`. It must decide exactly like `consume`.
   */
  readonly consumeNow?: ((quotas: ReadonlyArray<RateLimit.Quota>, now: number) => RateLimit.Decision) | undefined
  /** Gives back a request admitted at `countedAt` on each of `quotas`. */
  readonly refund: (
    quotas: ReadonlyArray<RateLimit.Quota>,
    countedAt: number,
    now: number
  ) => Effect.Effect<void, StoreError>
  /**
   * Takes one of `capacity` slots of `key` for `lease` until `expiresAt`
   * (epoch ms), unless all are held by unexpired leases: a holder that dies
   * without releasing gives its slot back when its lease expires.
   */
  readonly acquireSlot: (
    key: string,
    lease: string,
    capacity: number,
    now: number,
    expiresAt: number
  ) => Effect.Effect<boolean, StoreError>
  /** Gives a slot back (nothing when the lease holds none). */
  readonly releaseSlot: (key: string, lease: string) => Effect.Effect<void, StoreError>
}>()("@analytics/core/RateLimitStore") {
  /** States in this process's memory: for one process, and for tests. */
  static readonly layerMemory = Layer.sync(RateLimitStore, () => makeMemory())
}

/** How long a shared store may take to answer before the decision is made without it. */
export const answerTimeout = Duration.millis(500)

/**
 * For shared stores (over a network): an operation that has not answered
 * within `answerTimeout` fails as a `StoreError`, so the Limiter decides in
 * process instead of holding the request. An in-process store needs none.
 */
export const timeLimited = (operation: string) => <A, R>(effect: Effect.Effect<A, StoreError, R>): Effect.Effect<A, StoreError, R> =>
  Effect.timeoutOrElse(effect, {
    duration: answerTimeout,
    orElse: () => Effect.fail(new StoreError({ operation, cause: `no answer within ${Duration.format(answerTimeout)}` }))
  })

/** How often (in the store's own `now`, ms) the memory store forgets expired states. */
const sweepEveryMillis = 60_000

/** A store in this process's memory (also the fallback while a shared store is unreachable). */
export const makeMemory = (): RateLimitStore["Service"] => {
  const states = new Map<string, { readonly state: RateLimit.QuotaState; readonly forgetAt: number }>()
  const slots = new Map<string, Map<string, number>>()
  let sweptAt = 0
  // Keys are per tenant, user and client IP: forget the ones that decide like new, or memory grows with every IP seen.
  const sweep = (now: number) => {
    if (now - sweptAt < sweepEveryMillis) return
    sweptAt = now
    for (const [key, kept] of states) if (kept.forgetAt <= now) states.delete(key)
    for (const [key, leases] of slots) {
      for (const [lease, expiresAt] of leases) if (expiresAt <= now) leases.delete(lease)
      if (leases.size === 0) slots.delete(key)
    }
  }
  const keep = (quota: RateLimit.Quota, state: RateLimit.QuotaState | undefined) => {
    if (state !== undefined) states.set(quota.key, { state, forgetAt: RateLimit.expiresAt(quota.rule, state) + RateLimit.retainAfterExpiryMillis })
  }
  const consumeNow = (quotas: ReadonlyArray<RateLimit.Quota>, now: number): RateLimit.Decision => {
    sweep(now)
    const kept: Array<RateLimit.QuotaState | undefined> = new Array(quotas.length)
    for (let i = 0; i < quotas.length; i++) kept[i] = states.get(quotas[i].key)?.state
    const decision = RateLimit.decide(kept, now, quotas)
    if (decision.allowed) {
      // A consumed state's reset instant is its expiresAt: no need to work it out again.
      for (let i = 0; i < quotas.length; i++) {
        states.set(quotas[i].key, {
          state: decision.states[i]!,
          forgetAt: decision.statuses[i].resetAt + RateLimit.retainAfterExpiryMillis
        })
      }
    }
    return decision
  }
  return {
    consume: (quotas, now) => Effect.sync(() => consumeNow(quotas, now)),
    consumeNow,
    refund: (quotas, countedAt, now) =>
      Effect.sync(() => {
        for (const quota of quotas) {
          keep(quota, RateLimit.refundOne(quota.rule, states.get(quota.key)?.state, countedAt, now))
        }
      }),
    acquireSlot: (key, lease, capacity, now, expiresAt) =>
      Effect.sync(() => {
        sweep(now)
        const leases = slots.get(key) ?? new Map<string, number>()
        for (const [held, until] of leases) if (until <= now) leases.delete(held)
        if (leases.size >= capacity && !leases.has(lease)) return false
        leases.set(lease, expiresAt)
        slots.set(key, leases)
        return true
      }),
    releaseSlot: (key, lease) =>
      Effect.sync(() => {
        slots.get(key)?.delete(lease)
      })
  }
}
