/**
 * What both `bench/http` runners (`run.ts` over loopback, `inproc.ts` in
 * process) send, in one place: the servers, the ratios printed, the
 * requests, and the POST's mix of first sights and replays.
 */
import { V8Flags } from "@analytics/adapter-node"

/** The servers measured, each started from its own file. */
export const servers = [
  { name: "ours", file: "ours.ts" },
  { name: "fastify", file: "fastify.ts" },
  { name: "node:http", file: "bare.ts" },
  { name: "effect", file: "effect.ts" }
] as const

/**
 * The ratios both runners print, server over peer: ours against each peer,
 * then the floor of Effect's platform (`effect`) against Fastify.
 */
export const ratioPairs = [["ours", "fastify"], ["ours", "node:http"], ["ours", "effect"], ["effect", "fastify"]] as const

/** The benchmarked request. */
export const benchPath = "/v1/workspaces?limit=20"
/** The collection the POST creates in. */
export const workspacesPath = "/v1/workspaces"

/** The body of every benchmarked POST (first sights and replays alike; a replay must send its first sight's body). */
export const postBody = JSON.stringify({ name: "Bench workspace", description: "Created by bench/http" })

/** One POST in `replayEvery` replays a pool key (`BENCH_POST_REPLAYS`, default 4); the others are first sights. */
export const replayEvery = Math.max(1, Math.floor(Number(process.env["BENCH_POST_REPLAYS"] ?? 4)))

/** How many keys are used (first sights, answered) before the POST is measured, for the replays to cycle through. */
export const poolSize = 500

/** The idempotency key of the `n`th POST of the mix: a pool key every `replayEvery`th request, else `fresh`. */
export const postKey = (n: number, pool: ReadonlyArray<string>, fresh: string): string =>
  n % replayEvery === replayEvery - 1 ? pool[Math.floor(n / replayEvery) % pool.length]! : fresh

/** The V8 flags every server runs with: `BENCH_NODE_FLAGS` (space-separated; `none`: V8's defaults), else (unset or empty) the host's. */
export const nodeFlagsOf = (variable: string | undefined): ReadonlyArray<string> => {
  const flags = variable?.trim() ?? ""
  return flags === "" ? V8Flags.serving : flags === "none" ? [] : flags.split(/\s+/)
}
