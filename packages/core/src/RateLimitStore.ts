/**
 * Port: where rate-limit states live. A store applies `RateLimit.decide` to
 * the state of a key atomically, so concurrent requests (and several host
 * processes on one shared store) never admit more than the limits.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer } from "effect"
import type { StoreError } from "./Errors.ts"
import * as RateLimit from "./RateLimit.ts"

/** Keeps rate-limit states and decides requests against them. */
export class RateLimitStore extends Context.Service<RateLimitStore, {
  /** Decides one request on `key` at `now` (epoch ms) and keeps the resulting state. */
  readonly consume: (key: string, now: number, limits: RateLimit.Limits) => Effect.Effect<RateLimit.Decision, StoreError>
}>()("@analytics/core/RateLimitStore") {
  /** States in this process's memory: for one process, and for tests. */
  static readonly layerMemory = Layer.sync(RateLimitStore, () => makeMemory())
}

/** A store in this process's memory (also the fallback while a shared store is unreachable). */
export const makeMemory = (): RateLimitStore["Service"] => {
  const states = new Map<string, RateLimit.State>()
  return {
    consume: (key, now, limits) =>
      Effect.sync(() => {
        const decision = RateLimit.decide(states.get(key), now, limits)
        if (decision.allowed) states.set(key, decision.state)
        return decision
      })
  }
}
