/**
 * Measuring a shared store (PostgreSQL or Redis), ours or the peer's, the same
 * way: sequential decisions for latency, decisions in flight for throughput,
 * and a counted run through the proxy for round trips.
 */
import type { RateLimitStore } from "@analytics/core"
import { Effect } from "effect"
import {
  type CountingProxy,
  keyOf,
  latencyOf,
  median,
  nowNanos,
  peerConsume,
  type PeerLimiter,
  quotasOf,
  secondsSince,
  settings
} from "./shared.ts"

/** One side's store, connected. */
export interface Contender {
  /** Sequential decisions, one at a time: the latency of each in µs. */
  readonly sequential: (n: number) => Promise<{ readonly micros: Float64Array; readonly refused: number }>
  /** `inFlight` decisions at a time for `seconds`. */
  readonly concurrent: (
    seconds: number,
    inFlight: number
  ) => Promise<{ readonly decisions: number; readonly refused: number; readonly seconds: number }>
}

/** Decision numbers are shared by every contender of a run, so each keeps moving round the tenants. */
let next = 0

/** Ours: the store's `consume` in one fiber per run, as the service's request fibers call it. */
export const oursContender = (store: RateLimitStore.RateLimitStore["Service"]): Contender => ({
  sequential: (n) =>
    Effect.runPromise(Effect.gen(function*() {
      const micros = new Float64Array(n)
      let refused = 0
      for (let i = 0; i < n; i++) {
        const quotas = quotasOf(next++)
        const start = nowNanos()
        const decision = yield* store.consume(quotas, Date.now())
        micros[i] = Number(nowNanos() - start) / 1000
        if (!decision.allowed) refused++
      }
      return { micros, refused }
    })),
  concurrent: (seconds, inFlight) =>
    Effect.runPromise(Effect.gen(function*() {
      let decisions = 0
      let refused = 0
      const start = nowNanos()
      const worker = Effect.gen(function*() {
        while (secondsSince(start) < seconds) {
          if (!(yield* store.consume(quotasOf(next++), Date.now())).allowed) refused++
          decisions++
        }
      })
      yield* Effect.forEach(Array.from({ length: inFlight }), () => worker, { concurrency: "unbounded", discard: true })
      return { decisions, refused, seconds: secondsSince(start) }
    }))
})

/** The peer: each `consume` awaited, as its users do. */
export const peerContender = (limiter: PeerLimiter): Contender => ({
  sequential: async (n) => {
    const micros = new Float64Array(n)
    let refused = 0
    for (let i = 0; i < n; i++) {
      const key = keyOf(next++)
      const start = nowNanos()
      const allowed = await peerConsume(limiter, key)
      micros[i] = Number(nowNanos() - start) / 1000
      if (!allowed) refused++
    }
    return { micros, refused }
  },
  concurrent: async (seconds, inFlight) => {
    let decisions = 0
    let refused = 0
    const start = nowNanos()
    const worker = async () => {
      while (secondsSince(start) < seconds) {
        if (!(await peerConsume(limiter, keyOf(next++)))) refused++
        decisions++
      }
    }
    await Promise.all(Array.from({ length: inFlight }, worker))
    return { decisions, refused, seconds: secondsSince(start) }
  }
})

export interface Entry {
  readonly name: string
  readonly side: "ours" | "peer"
  /** What this contender does per decision, for the report. */
  readonly what: string
  readonly contender: Contender
}

export interface RoundResult {
  readonly round: number
  readonly name: string
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
  readonly mean: number
  readonly decisionsPerSecondSequential: number
  readonly decisionsPerSecondConcurrent: number
  readonly refused: number
}

/** Seconds of each concurrent run. */
export const concurrentSeconds = settings.seconds / 2

/** Every entry, round by round (interleaved): `settings.decisions` sequential decisions, then `concurrentSeconds` concurrent. */
export const measureRounds = async (label: string, entries: ReadonlyArray<Entry>): Promise<Array<RoundResult>> => {
  const results: Array<RoundResult> = []
  // Warm-up: connections opened, scripts loaded, statements prepared, the JIT at work.
  for (const { contender } of entries) {
    await contender.sequential(Math.min(500, settings.decisions))
    await contender.concurrent(Math.min(0.25, concurrentSeconds), settings.concurrency)
  }
  for (let round = 1; round <= settings.rounds; round++) {
    for (const { contender, name } of entries) {
      const started = nowNanos()
      const sequential = await contender.sequential(settings.decisions)
      const sequentialSeconds = secondsSince(started)
      const concurrent = await contender.concurrent(concurrentSeconds, settings.concurrency)
      const latency = latencyOf(sequential.micros)
      results.push({
        round,
        name,
        ...latency,
        decisionsPerSecondSequential: settings.decisions / sequentialSeconds,
        decisionsPerSecondConcurrent: concurrent.decisions / concurrent.seconds,
        refused: sequential.refused + concurrent.refused
      })
      console.log(
        `${label} round ${round} ${name.padEnd(32)} p50 ${latency.p50.toFixed(0).padStart(5)} µs  p99 ${
          latency.p99.toFixed(0).padStart(6)
        } µs  ${Math.round(concurrent.decisions / concurrent.seconds).toString().padStart(6)}/s with ${settings.concurrency} in flight`
      )
    }
  }
  return results
}

/** Each entry's rounds, every number the median over the rounds (refusals summed). */
export const medians = (entries: ReadonlyArray<Entry>, rounds: ReadonlyArray<RoundResult>) =>
  entries.map(({ name, side, what }) => {
    const mine = rounds.filter((r) => r.name === name)
    const of = (key: Exclude<keyof RoundResult, "name" | "round" | "refused">) => median(mine.map((r) => r[key]))
    return {
      name,
      side,
      what,
      p50: of("p50"),
      p90: of("p90"),
      p99: of("p99"),
      max: of("max"),
      mean: of("mean"),
      decisionsPerSecondSequential: of("decisionsPerSecondSequential"),
      decisionsPerSecondConcurrent: of("decisionsPerSecondConcurrent"),
      refused: mine.reduce((sum, r) => sum + r.refused, 0)
    }
  })

/** Counted per decision through the proxy. */
export interface Counted {
  readonly decisions: number
  readonly roundTripsPerDecision: number
  /** PostgreSQL: Execute/Query messages; Redis: commands the client sent. */
  readonly commandsPerDecision: number | null
}

/**
 * `settings.countedDecisions` sequential decisions by a contender connected
 * through `proxy`, after a warm-up (connect, load scripts, prepare statements)
 * that is not counted. `around` runs just before and after the counted ones.
 */
export const countedRun = async (
  contender: Contender,
  proxy: CountingProxy,
  around?: { readonly before: () => Promise<void>; readonly after: () => Promise<void> }
): Promise<Counted> => {
  await contender.sequential(50)
  await around?.before()
  proxy.reset()
  const n = settings.countedDecisions
  await contender.sequential(n)
  const counts = proxy.counts()
  await around?.after()
  return {
    decisions: n,
    roundTripsPerDecision: counts.roundTrips / n,
    commandsPerDecision: counts.commands === undefined ? null : counts.commands / n
  }
}
