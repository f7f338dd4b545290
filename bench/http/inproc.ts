/**
 * `npm run bench:http:inproc`: each server's own CPU cost per request,
 * without sockets (`inproc-driver.ts`): every server in its own process,
 * its handler called directly, the same scenarios as `run.ts`. No loopback,
 * kernel or load generator shares the CPU, so the figures move far less
 * than `bench:http`'s from run to run; they leave out what every server
 * pays alike (the socket, Node's HTTP parser). For comparing changes to the
 * serving path; the bar is `bench:http`'s.
 *
 * - `BENCH_SCENARIOS`  comma-separated scenarios (`page1,page2,post`, the default: all)
 * - `BENCH_ONLY`       comma-separated servers (`ours,fastify,node:http,effect`)
 * - `BENCH_REQUESTS`   requests per round (default 20000)
 * - `BENCH_ROUNDS`     rounds per scenario (default 5; the median is reported)
 * - `BENCH_IN_FLIGHT`  requests in flight (default 50; 1: one at a time, the steadiest measure)
 * - `BENCH_OUTPUT_DIR` where `last-run.json` goes (default `bench/http/inproc`)
 * - `BENCH_NODE_FLAGS` V8 flags every server runs with (as `run.ts`: the host's by default, `none` for V8's)
 */
import { fork } from "node:child_process"
import * as Crypto from "node:crypto"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import { writeRunRecord } from "../RunRecord.ts"
import type { InProcessResult } from "./inproc-driver.ts"
import { nodeFlagsOf, poolSize, ratioPairs, replayEvery, servers } from "./mix.ts"
import { cursorSecretVariable, inProcessVariable } from "./shared.ts"

const here = Path.dirname(fileURLToPath(import.meta.url))
const list = (variable: string) => (process.env[variable] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
const only = list("BENCH_ONLY")
const selected = only.length === 0 ? servers : servers.filter((s) => only.includes(s.name))
if (selected.length === 0) throw new Error(`BENCH_ONLY names no server: ${only.join(",")}`)
const nodeFlags = nodeFlagsOf(process.env["BENCH_NODE_FLAGS"])
const allScenarios = ["page1", "page2", "post"]
const scenarios = list("BENCH_SCENARIOS").length === 0 ? allScenarios : allScenarios.filter((s) => list("BENCH_SCENARIOS").includes(s))
const options = {
  scenarios,
  requests: Math.max(100, Number(process.env["BENCH_REQUESTS"] ?? 20_000)),
  rounds: Math.max(1, Number(process.env["BENCH_ROUNDS"] ?? 5)),
  inFlight: Math.max(1, Number(process.env["BENCH_IN_FLIGHT"] ?? 50))
}

/** One server measured in its own process. */
const measure = (file: string) =>
  new Promise<ReadonlyArray<InProcessResult>>((resolve, reject) => {
    const child = fork(Path.join(here, file), [], {
      execArgv: ["--disable-warning=ExperimentalWarning", ...nodeFlags],
      env: { ...process.env, [cursorSecretVariable]: Crypto.randomBytes(32).toString("base64url"), [inProcessVariable]: JSON.stringify(options) },
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    let results: ReadonlyArray<InProcessResult> | undefined
    child.on("message", (message: { type: string; results?: ReadonlyArray<InProcessResult> }) => {
      if (message.type === "inproc") results = message.results
    })
    child.once("exit", (code) => results === undefined ? reject(new Error(`${file} exited with ${code} without results`)) : resolve(results))
  })

const measured: Record<string, ReadonlyArray<InProcessResult>> = {}
for (const server of selected) {
  process.stdout.write(`${server.name}: ${options.rounds} rounds of ${options.requests} requests per scenario...\n`)
  measured[server.name] = await measure(server.file)
}

for (const scenario of scenarios) {
  const row = (name: string) => measured[name]?.find((r) => r.scenario === scenario)
  console.log(`\n${scenario}`)
  console.table(Object.keys(measured).map((name) => ({
    server: name,
    "CPU µs/req (median)": Number(row(name)!.medianMicros.toFixed(1)),
    "best round": Number(row(name)!.bestMicros.toFixed(1))
  })))
  // Requests per CPU-second, the server's over the peer's: above 1.0 the server does the work with less CPU.
  for (const [name, peer] of ratioPairs) {
    const server = row(name)
    const other = row(peer)
    if (server !== undefined && other !== undefined) {
      console.log(`${name} / ${peer}: ${(other.medianMicros / server.medianMicros).toFixed(3)}x requests per CPU-second`)
    }
  }
}

console.log(`\nwritten: ${writeRunRecord(process.env["BENCH_OUTPUT_DIR"] ?? Path.join(here, "inproc"), { settings: { ...options, replayEvery, poolSize, nodeFlags }, results: measured })}`)
