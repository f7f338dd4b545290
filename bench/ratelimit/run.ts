/**
 * `npm run bench:ratelimit`: rate-limit decisions, ours against
 * rate-limiter-flexible (rlf) in the same run.
 *
 * 1. Memory: decisions per second of `RateLimitStore.makeMemory()` against
 *    rlf's memory limiters, in interleaved rounds (medians reported).
 * 2. PostgreSQL and Redis: latency per decision (p50/p99, sequential), decisions
 *    per second with `BENCH_CONCURRENCY` in flight, and round trips and
 *    commands per decision counted on the wire by a proxy (Redis: and by
 *    `INFO commandstats`). Throwaway servers are started with
 *    `scripts/TestPostgres.ts` and `scripts/TestRedis.ts`, unless
 *    `BENCH_DATABASE_URL` / `BENCH_REDIS_URL` name servers to use (the
 *    database URL needs CREATEDB: each side gets a fresh database, dropped at the end).
 *
 * Environment:
 * - `BENCH_SECONDS`     seconds per memory variant each round (default 1); concurrent store runs last half of it
 * - `BENCH_ROUNDS`      interleaved rounds (default 3)
 * - `BENCH_DECISIONS`   sequential decisions per store per round (default 1500)
 * - `BENCH_CONCURRENCY` decisions in flight in the concurrent store runs (default 32)
 * - `BENCH_ONLY`        comma-separated parts to run: memory,postgres,redis (default all)
 *
 * Results are printed and written to `bench/ratelimit/last-run.json`.
 */
import { writeRunRecord } from "../RunRecord.ts"
import * as Os from "node:os"
import * as Path from "node:path"
import { startTestPostgres } from "../../scripts/TestPostgres.ts"
import { startTestRedis } from "../../scripts/TestRedis.ts"
import { memoryVariants } from "./memory.ts"
import { benchPostgres } from "./postgres.ts"
import { benchRedis } from "./redis.ts"
import { limitNumbers, median, round, settings } from "./shared.ts"
import { concurrentSeconds, medians } from "./stores.ts"

const here = import.meta.dirname
const parts = ["memory", "postgres", "redis"] as const
const only = (process.env["BENCH_ONLY"] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
const selected = new Set(only.length === 0 ? parts : parts.filter((p) => only.includes(p)))
/** Warm-up of each memory variant, each round. */
const warmup = Math.min(0.25, settings.seconds / 4)
const load = () => Os.loadavg().map((n) => n.toFixed(2)).join(" ")

console.log(
  `rate-limit decisions, ours vs rate-limiter-flexible 11.4.0: ${settings.rounds} interleaved rounds (medians), ` +
    `${settings.seconds} s per memory variant, ${settings.decisions} sequential decisions per store, ` +
    `${settings.concurrency} in flight for ${concurrentSeconds} s, ${settings.tenants} tenants round-robin ` +
    `(node ${process.version}, ${Os.cpus().length} CPUs, load average ${load()})`
)

// ---------------------------------------------------------------------------
// 1. memory

interface MemoryRound {
  readonly round: number
  readonly name: string
  readonly decisionsPerSecond: number
  readonly decisions: number
  readonly refused: number
}

const memory = selected.has("memory") ? await (async () => {
  const variants = memoryVariants()
  const rounds: Array<MemoryRound> = []
  for (let r = 1; r <= settings.rounds; r++) {
    for (const variant of variants) {
      await variant.run(warmup)
      const measured = await variant.run(settings.seconds)
      const decisionsPerSecond = measured.decisions / measured.seconds
      rounds.push({ round: r, name: variant.name, decisionsPerSecond, decisions: measured.decisions, refused: measured.refused })
      console.log(`memory round ${r} ${variant.name.padEnd(32)} ${Math.round(decisionsPerSecond).toLocaleString("en").padStart(11)} decisions/s`)
    }
  }
  const results = variants.map(({ name, side, what }) => {
    const mine = rounds.filter((r) => r.name === name)
    return {
      name,
      side,
      what,
      decisionsPerSecond: median(mine.map((r) => r.decisionsPerSecond)),
      nsPerDecision: 1e9 / median(mine.map((r) => r.decisionsPerSecond)),
      refused: mine.reduce((sum, r) => sum + r.refused, 0)
    }
  })
  return { results, rounds }
})() : undefined

// ---------------------------------------------------------------------------
// 2. PostgreSQL and Redis

type StoreBench = Awaited<ReturnType<typeof benchPostgres>> | Awaited<ReturnType<typeof benchRedis>>

/** A server from the environment, else a throwaway one; `undefined` (with why) when neither is to be had. */
const withServer = async <A>(
  name: string,
  fromEnv: string | undefined,
  start: () => Promise<{ readonly url: string; readonly stop: () => Promise<void> }>,
  use: (url: string) => Promise<A>
): Promise<A | { readonly skipped: string }> => {
  if (fromEnv !== undefined && fromEnv !== "") return use(fromEnv)
  let server: { readonly url: string; readonly stop: () => Promise<void> }
  try {
    server = await start()
  } catch (error) {
    const why = String(error).split("\n")[0]
    console.log(`${name}: skipped, ${why}`)
    return { skipped: why }
  }
  try {
    return await use(server.url)
  } finally {
    await server.stop()
  }
}

const postgres = selected.has("postgres")
  ? await withServer("postgres", process.env["BENCH_DATABASE_URL"], startTestPostgres, benchPostgres)
  : undefined
const redis = selected.has("redis") ? await withServer("redis", process.env["BENCH_REDIS_URL"], startTestRedis, benchRedis) : undefined

// ---------------------------------------------------------------------------
// report

const summarise = (bench: StoreBench) => {
  const rows = medians(bench.entries, bench.rounds).map((r) => {
    const counted = bench.counted[r.name]
    return {
      ...r,
      roundTripsPerDecision: counted.roundTripsPerDecision,
      commandsPerDecision: counted.commandsPerDecision,
      ...("serverCommandsPerDecision" in counted ? { serverCommandsPerDecision: counted.serverCommandsPerDecision } : {})
    }
  })
  return { server: bench.server, results: rows, rounds: bench.rounds }
}
const isRun = (bench: StoreBench | { readonly skipped: string } | undefined): bench is StoreBench =>
  bench !== undefined && !("skipped" in bench)
const stores = {
  postgres: isRun(postgres) ? summarise(postgres) : postgres,
  redis: isRun(redis) ? summarise(redis) : redis
}

const ratios: Record<string, number> = {}
if (memory !== undefined) {
  console.log("\nmemory: decisions per second (median of rounds)")
  console.table(memory.results.map((r) => ({
    variant: r.name,
    "decisions/s": Math.round(r.decisionsPerSecond),
    "ns/decision": round(r.nsPerDecision),
    refused: r.refused
  })))
  for (const ours of memory.results.filter((r) => r.side === "ours")) {
    for (const peer of memory.results.filter((r) => r.side === "peer")) {
      ratios[`${ours.name} / ${peer.name}`] = round(ours.decisionsPerSecond / peer.decisionsPerSecond, 2)
    }
  }
  console.log("ratios ours / peer (decisions per second):")
  for (const [pair, ratio] of Object.entries(ratios)) console.log(`  ${ratio.toFixed(2).padStart(6)}x  ${pair}`)
}

for (const [name, bench] of Object.entries(stores)) {
  if (bench === undefined || "skipped" in bench) continue
  console.log(`\n${name} (${bench.server}): per decision, sequential p50/p99 (median of rounds); counted on the wire`)
  console.table(bench.results.map((r) => ({
    store: r.name,
    "p50 µs": round(r.p50),
    "p99 µs": round(r.p99),
    "mean µs": round(r.mean),
    "seq/s": Math.round(r.decisionsPerSecondSequential),
    [`/s (${settings.concurrency} in flight)`]: Math.round(r.decisionsPerSecondConcurrent),
    "round trips": round(r.roundTripsPerDecision, 3),
    [name === "postgres" ? "statements" : "commands sent"]: r.commandsPerDecision === null ? "n/a" : round(r.commandsPerDecision, 3),
    refused: r.refused
  })))
  for (const r of bench.results) {
    if ("serverCommandsPerDecision" in r && r.serverCommandsPerDecision !== undefined) {
      const ran = Object.entries(r.serverCommandsPerDecision).map(([command, n]) => `${command} ${round(n, 3)}`).join(", ")
      console.log(`  ${r.name.padEnd(32)} Redis ran per decision (INFO commandstats, scripts' own calls included): ${ran}`)
    }
  }
}

// ---------------------------------------------------------------------------
// verdict

const verdicts: Array<{ readonly check: string; readonly pass: boolean | null; readonly detail: string }> = []
if (memory !== undefined) {
  const rateOf = (name: string) => memory.results.find((r) => r.name === name)!.decisionsPerSecond
  // Ours as the service runs it (inside the request's fiber) against the peer doing the same two-layer work;
  // Bursty, with nothing refused, counts one limiter, and is shown for reference.
  const ours = rateOf("ours: in a fiber")
  const perCall = rateOf("ours: runSync per call")
  for (const [peer, bar] of [["rlf: Union(burst, sustained)", true], ["rlf: Bursty(sustained, burst)", false]] as const) {
    verdicts.push({
      check: `memory: ours (in a fiber) >= 2x ${peer}${bar ? "" : " (reference: one layer's work)"}`,
      pass: bar ? ours >= 2 * rateOf(peer) : null,
      detail: `${round(ours / rateOf(peer), 2)}x (a fiber per call: ${round(perCall / rateOf(peer), 2)}x)`
    })
  }
  const refused = memory.results.reduce((sum, r) => sum + r.refused, 0)
  verdicts.push({ check: "memory: nothing refused (equal work)", pass: refused === 0, detail: `${refused} refused` })
}
for (const [name, bench] of Object.entries(stores)) {
  if (bench === undefined) continue
  if ("skipped" in bench) {
    verdicts.push({ check: `${name}: ours one round trip per decision`, pass: null, detail: `not measured: ${bench.skipped}` })
    continue
  }
  const ours = bench.results.find((r) => r.side === "ours")!
  verdicts.push({
    check: `${name}: ours exactly one round trip per decision`,
    pass: ours.roundTripsPerDecision === 1 && ours.commandsPerDecision === 1,
    detail: `${ours.roundTripsPerDecision} round trips, ${ours.commandsPerDecision ?? "n/a"} ${
      name === "postgres" ? "statements" : "commands sent"
    } per decision`
  })
  const refused = bench.results.reduce((sum, r) => sum + r.refused, 0)
  if (refused > 0) verdicts.push({ check: `${name}: nothing refused`, pass: false, detail: `${refused} refused` })
}
console.log("\nbar:")
for (const v of verdicts) console.log(`  ${v.pass === null ? "----" : v.pass ? "PASS" : "FAIL"}  ${v.check}: ${v.detail}`)
console.log(`load average ${load()}`)

const output = writeRunRecord(here, {
      loadAverageAtEnd: Os.loadavg(),
      settings: {
        ...settings,
        memoryWarmupSeconds: warmup,
        concurrentSeconds,
        limits: limitNumbers,
        parts: [...selected]
      },
      memory: memory ?? null,
      memoryRatios: ratios,
      postgres: stores.postgres ?? null,
      redis: stores.redis ?? null,
      verdicts
    })
console.log(`results written to ${Path.relative(process.cwd(), output)}`)
