/**
 * Decisions per second in memory: ours (`RateLimitStore.makeMemory()`, the
 * two-layer decision of `RateLimit.tenantQuotas`) run three ways, against
 * rate-limiter-flexible's memory limiters, each for `seconds` after a warm-up.
 */
import { RateLimitStore } from "@analytics/core"
import { Effect } from "effect"
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterUnion } from "rate-limiter-flexible"
import {
  keyOf,
  nowNanos,
  peerBurst,
  peerConsume,
  type PeerLimiter,
  peerSustained,
  quotasOf,
  secondsSince
} from "./shared.ts"

export interface MemoryVariant {
  readonly name: string
  readonly side: "ours" | "peer"
  readonly what: string
  /** Decides in batches until `seconds` have passed. */
  readonly run: (seconds: number) => Promise<{ readonly decisions: number; readonly refused: number; readonly seconds: number }>
}

/** Decisions between clock checks. */
const batch = 10_000

/** Ours: one store per variant, kept across rounds (as a process keeps its store). */
const oursVariant = (
  name: string,
  what: string,
  decideBatch: (store: RateLimitStore.RateLimitStore["Service"], from: number) => number | Promise<number>
): MemoryVariant => {
  const store = RateLimitStore.makeMemory()
  let next = 0
  return {
    name,
    side: "ours",
    what,
    run: async (seconds) => {
      let decisions = 0
      let refused = 0
      const start = nowNanos()
      while (secondsSince(start) < seconds) {
        refused += await decideBatch(store, next)
        next += batch
        decisions += batch
      }
      return { decisions, refused, seconds: secondsSince(start) }
    }
  }
}

const peerVariant = (name: string, what: string, limiter: PeerLimiter): MemoryVariant => {
  let next = 0
  return {
    name,
    side: "peer",
    what,
    run: async (seconds) => {
      let decisions = 0
      let refused = 0
      const start = nowNanos()
      while (secondsSince(start) < seconds) {
        for (let i = 0; i < batch; i++) if (!(await peerConsume(limiter, keyOf(next++)))) refused++
        decisions += batch
      }
      return { decisions, refused, seconds: secondsSince(start) }
    }
  }
}

export const memoryVariants = (): ReadonlyArray<MemoryVariant> => [
  oursVariant(
    "ours: in a fiber",
    "one Effect.runSync of a loop of 10,000 `yield* store.consume(quotas, Date.now())` (how the service's request fiber runs it)",
    (store, from) =>
      Effect.runSync(Effect.gen(function*() {
        let refused = 0
        for (let i = from; i < from + batch; i++) {
          if (!(yield* store.consume(quotasOf(i), Date.now())).allowed) refused++
        }
        return refused
      }))
  ),
  oursVariant(
    "ours: runSync per call",
    "`Effect.runSync(store.consume(quotas, Date.now()))` per decision: a new fiber each time",
    (store, from) => {
      let refused = 0
      for (let i = from; i < from + batch; i++) if (!Effect.runSync(store.consume(quotasOf(i), Date.now())).allowed) refused++
      return refused
    }
  ),
  oursVariant(
    "ours: await runPromise per call",
    "`await Effect.runPromise(store.consume(quotas, Date.now()))` per decision: a fiber and a promise each time, like the peer's await",
    async (store, from) => {
      let refused = 0
      for (let i = from; i < from + batch; i++) {
        if (!(await Effect.runPromise(store.consume(quotasOf(i), Date.now()))).allowed) refused++
      }
      return refused
    }
  ),
  peerVariant(
    "rlf: Union(burst, sustained)",
    "`await new RateLimiterUnion(burst, sustained).consume(key)`: both limiters count every request (two-layer)",
    new RateLimiterUnion(
      new RateLimiterMemory({ keyPrefix: "burst", ...peerBurst }),
      new RateLimiterMemory({ keyPrefix: "sustained", ...peerSustained })
    )
  ),
  peerVariant(
    "rlf: Bursty(sustained, burst)",
    "`await new BurstyRateLimiter(sustained, burst).consume(key)`: the burst limiter is consulted only when the first refuses, so with nothing refused it counts one limiter",
    new BurstyRateLimiter(
      new RateLimiterMemory({ keyPrefix: "sustained", ...peerSustained }),
      new RateLimiterMemory({ keyPrefix: "burst", ...peerBurst })
    )
  ),
  peerVariant(
    "rlf: Memory (one layer)",
    "`await new RateLimiterMemory(sustained).consume(key)`: one limiter, the lower bound of the peer's work",
    new RateLimiterMemory({ keyPrefix: "sustained", ...peerSustained })
  )
]
