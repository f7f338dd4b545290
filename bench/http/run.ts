/**
 * `npm run bench:http`: `GET /v1/workspaces?limit=20` with a bearer token
 * against ours, Fastify and bare `node:http`, in one run. Each server runs in
 * its own child process, one at a time; autocannon drives it from this one.
 *
 * Environment:
 * - `BENCH_SECONDS`     measured seconds per server (default 10), after a 2 s warm-up
 * - `BENCH_CONNECTIONS` concurrent connections (default 50)
 * - `BENCH_ROUNDS`      rounds (default 1); servers are interleaved round by
 *                       round and each measure's median over the rounds is
 *                       reported, which evens out background load on a shared machine
 * - `BENCH_ONLY`        comma-separated servers to run (`ours,fastify,node:http`)
 * - `BENCH_PROFILE`     a server to run under `node --cpu-prof`; its profile is
 *                       written to `bench/http/profiles/` and summarised
 *
 * Results are printed and written to `bench/http/last-run.json`.
 */
import { writeRunRecord } from "../RunRecord.ts"
import autocannon from "autocannon"
import { fork } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { benchPath, type CpuReport, cursorKeyOf, cursorSecretVariable, openCursor, pageLimit, type Ready } from "./shared.ts"
import * as Crypto from "node:crypto"
import { summarise } from "./profile-summary.ts"

const here = import.meta.dirname
const seconds = Number(process.env["BENCH_SECONDS"] ?? 10)
const connections = Number(process.env["BENCH_CONNECTIONS"] ?? 50)
const warmupSeconds = 2
const pipelining = 1
const rounds = Math.max(1, Number(process.env["BENCH_ROUNDS"] ?? 1))
const profiled = process.env["BENCH_PROFILE"]
const profileDir = Path.join(here, "profiles")

const servers = [
  { name: "ours", file: "ours.ts" },
  { name: "fastify", file: "fastify.ts" },
  { name: "node:http", file: "bare.ts" }
] as const
type ServerName = typeof servers[number]["name"]

const only = (process.env["BENCH_ONLY"] ?? profiled ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "")
const selected = only.length === 0 ? servers : servers.filter((s) => only.includes(s.name))
if (selected.length === 0) throw new Error(`BENCH_ONLY names no server: ${only.join(",")}`)

// ---------------------------------------------------------------------------
// child processes

interface Child {
  readonly ready: Ready
  readonly cpu: () => Promise<CpuReport>
  readonly stop: () => Promise<void>
}

const start = (name: ServerName, file: string): Promise<Child> => {
  const execArgv = ["--disable-warning=ExperimentalWarning"]
  if (profiled === name) {
    Fs.mkdirSync(profileDir, { recursive: true })
    execArgv.push(
      "--cpu-prof",
      `--cpu-prof-dir=${profileDir}`,
      `--cpu-prof-name=${name.replace(/\W/g, "_")}-${Date.now()}.cpuprofile`,
      "--cpu-prof-interval=250"
    )
  }
  const child = fork(Path.join(here, file), [], {
    execArgv,
    env: { ...process.env, [cursorSecretVariable]: cursorSecret },
    stdio: ["ignore", "inherit", "inherit", "ipc"]
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  let onCpu: ((report: CpuReport) => void) | undefined
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s`)), 60_000)
    void exited.then((code) => reject(new Error(`${name} exited with ${code} before it was ready`)))
    child.on("message", (message: Ready | CpuReport) => {
      if (message.type === "cpu") return onCpu?.(message)
      clearTimeout(timer)
      resolve({
        ready: message,
        cpu: () =>
          new Promise((resolveCpu) => {
            onCpu = resolveCpu
            child.send({ type: "cpu" })
          }),
        stop: async () => {
          child.send({ type: "stop" })
          const killer = setTimeout(() => child.kill("SIGKILL"), 15_000)
          await exited
          clearTimeout(killer)
        }
      })
    })
  })
}

// ---------------------------------------------------------------------------
// checks before measuring: the same answer, and the same refusals

const fail = (name: string, what: string): never => {
  throw new Error(`${name}: ${what}`)
}

/** The cursor secret every server seals with: the runner opens each one's cursor with it. */
const cursorSecret = Crypto.randomBytes(32).toString("base64url")
const cursorKey = await cursorKeyOf(Buffer.from(cursorSecret, "base64url"))

/** The parts of a first-page cursor payload that do not depend on time, keys, tenant or data. */
const cursorShape = (payload: Record<string, unknown>) =>
  JSON.stringify({
    keys: Object.keys(payload),
    v: payload["v"],
    e: payload["e"],
    q: payload["q"],
    tenant: typeof payload["n"],
    s: payload["s"]
  })

interface Verified {
  readonly bytes: number
  readonly contentType: string
  readonly cursorShape: string
}

const verify = async (name: string, base: string, token: string): Promise<Verified> => {
  const auth = { authorization: `Bearer ${token}` }
  const response = await fetch(`${base}${benchPath}`, { headers: auth })
  const text = await response.text()
  if (response.status !== 200) fail(name, `GET ${benchPath} answered ${response.status}: ${text}`)
  const body = JSON.parse(text) as {
    data: Array<Record<string, unknown>>
    page: { limit: unknown; next_cursor: unknown; has_more: unknown }
  }
  if (body.data.length !== pageLimit) fail(name, `${body.data.length} items instead of ${pageLimit}`)
  const keys = ["workspace_id", "name", "description", "created_at"]
  for (const item of body.data) {
    if (JSON.stringify(Object.keys(item)) !== JSON.stringify(keys)) fail(name, `item keys ${Object.keys(item)}`)
    if (typeof item["created_at"] !== "string" || Number.isNaN(Date.parse(item["created_at"]))) {
      fail(name, `created_at ${String(item["created_at"])} is not an ISO date`)
    }
  }
  for (let i = 1; i < body.data.length; i++) {
    const a = body.data[i - 1]
    const b = body.data[i]
    const ta = Date.parse(a["created_at"] as string)
    const tb = Date.parse(b["created_at"] as string)
    if (ta < tb || (ta === tb && (a["workspace_id"] as string) > (b["workspace_id"] as string))) {
      fail(name, "items are not sorted by created_at desc, workspace_id asc")
    }
  }
  const { page } = body
  if (page.limit !== pageLimit || page.has_more !== true || typeof page.next_cursor !== "string") {
    fail(name, `page ${JSON.stringify(page)}`)
  }
  // One unpadded base64url string (decision 0003), which opens with the shared secret.
  if (!/^[\w-]+$/.test(page.next_cursor as string)) fail(name, `next_cursor ${String(page.next_cursor)}`)
  const payload = await openCursor(cursorKey, page.next_cursor as string).catch((error) => fail(name, `next_cursor does not open: ${error}`))

  const refusals: Array<[string, Record<string, string>, number]> = [
    [benchPath, {}, 401],
    [benchPath, { authorization: "Bearer ast_not-a-token" }, 401],
    ["/v1/workspaces?limit=0", auth, 400],
    ["/v1/workspaces?limit=501", auth, 400],
    ["/v1/workspaces?limit=2.5", auth, 400],
    ["/v1/workspaces?limit=ten", auth, 400],
    ["/v1/workspaces?limit=20&unknown=1", auth, 400]
  ]
  for (const [path, headers, status] of refusals) {
    const refused = await fetch(`${base}${path}`, { headers })
    await refused.arrayBuffer()
    if (refused.status !== status) fail(name, `GET ${path} answered ${refused.status} instead of ${status}`)
  }
  return {
    bytes: Buffer.byteLength(text),
    contentType: response.headers.get("content-type") ?? "",
    cursorShape: cursorShape(payload)
  }
}

// ---------------------------------------------------------------------------
// measuring

interface Measured {
  readonly server: ServerName
  readonly reqPerSec: number
  readonly reqPerSecStddev: number
  readonly latencyP50Ms: number
  readonly latencyP99Ms: number
  readonly latencyAvgMs: number
  readonly totalRequests: number
  readonly non2xx: number
  readonly errors: number
  readonly timeouts: number
  readonly serverCpuPercent: number
  /** Server CPU time (all threads) per completed request: robust to other load on the machine. */
  readonly serverCpuMicrosPerRequest: number
  readonly loadgenCpuPercent: number
  readonly loadAverage1m: number
  readonly bodyBytes: number
  readonly contentType: string
  readonly cursorShape: string
}

const load = (url: string, token: string, duration: number) =>
  autocannon({ url, connections, pipelining, duration, headers: { authorization: `Bearer ${token}` } })

/** The measured window of the profiled server, on its monotonic clock (last round). */
let profileWindow: { readonly from: number; readonly to: number } | undefined

const percentOfCore = (micros: number, seconds: number) => Math.round((micros / 1e6 / seconds) * 1000) / 10

const measure = async (name: ServerName, file: string, round: number): Promise<Measured> => {
  const child = await start(name, file)
  try {
    const base = `http://127.0.0.1:${child.ready.port}`
    const checked = await verify(name, base, child.ready.token)
    process.stdout.write(
      `${rounds > 1 ? `round ${round} ` : ""}${name.padEnd(10)} verified (200, ${pageLimit} items, ${checked.bytes} B);` +
        ` warming up ${warmupSeconds} s`
    )
    await load(`${base}${benchPath}`, child.ready.token, warmupSeconds)
    process.stdout.write(`, measuring ${seconds} s`)
    const cpuBefore = await child.cpu()
    const loadgenBefore = process.cpuUsage()
    const result = await load(`${base}${benchPath}`, child.ready.token, seconds)
    const loadgen = process.cpuUsage(loadgenBefore)
    const cpuAfter = await child.cpu()
    if (profiled === name) profileWindow = { from: cpuBefore.monotonicMicros, to: cpuAfter.monotonicMicros }
    const cpuMicros = cpuAfter.user + cpuAfter.system - cpuBefore.user - cpuBefore.system
    const loadAverage1m = Os.loadavg()[0]
    process.stdout.write(` ${Math.round(result.latency.totalCount / result.duration)} req/s\n`)
    return {
      server: name,
      // Completed requests over the measured time (autocannon's per-second mean misses partial seconds).
      reqPerSec: result.latency.totalCount / result.duration,
      reqPerSecStddev: result.requests.stddev,
      latencyP50Ms: result.latency.p50,
      latencyP99Ms: result.latency.p99,
      latencyAvgMs: result.latency.average,
      totalRequests: result.latency.totalCount,
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      serverCpuPercent: percentOfCore(cpuMicros, result.duration),
      serverCpuMicrosPerRequest: Math.round(cpuMicros / Math.max(1, result.latency.totalCount)),
      loadgenCpuPercent: percentOfCore(loadgen.user + loadgen.system, result.duration),
      loadAverage1m: Math.round(loadAverage1m * 100) / 100,
      bodyBytes: checked.bytes,
      contentType: checked.contentType,
      cursorShape: checked.cursorShape
    }
  } finally {
    await child.stop()
  }
}

console.log(
  `GET ${benchPath}, ${connections} connections, pipelining ${pipelining}, ${warmupSeconds} s warm-up + ${seconds} s each` +
    `${rounds > 1 ? `, ${rounds} interleaved rounds (median reported)` : ""}` +
    ` (node ${process.version}, ${Os.cpus().length} CPUs, load average ${Os.loadavg()[0].toFixed(2)})` +
    (profiled === undefined ? "" : ` -- ${profiled} runs under --cpu-prof, its numbers are not comparable`)
)
const allRounds: Array<Measured> = []
for (let round = 1; round <= rounds; round++) {
  for (const { name, file } of selected) allRounds.push(await measure(name, file, round))
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** Each server's rounds, every numeric measure taken as its median over the rounds. */
const results: Array<Measured> = selected.map(({ name }) => {
  const mine = allRounds.filter((r) => r.server === name)
  const first = mine[0]
  const merged: Record<string, unknown> = { ...first }
  for (const [key, value] of Object.entries(first)) {
    if (typeof value === "number") merged[key] = median(mine.map((r) => r[key as keyof Measured] as number))
  }
  return merged as unknown as Measured
})

// ---------------------------------------------------------------------------
// report

const round = (n: number, digits = 0) => Math.round(n * 10 ** digits) / 10 ** digits
const rows = results.map((r) => ({
  server: r.server,
  "req/s": round(r.reqPerSec),
  "± stddev": round(r.reqPerSecStddev),
  "p50 ms": r.latencyP50Ms,
  "p99 ms": r.latencyP99Ms,
  "avg ms": round(r.latencyAvgMs, 2),
  "server CPU %": r.serverCpuPercent,
  "CPU µs/req": r.serverCpuMicrosPerRequest,
  "loadgen CPU %": r.loadgenCpuPercent,
  "load avg": r.loadAverage1m,
  requests: r.totalRequests,
  "non-2xx": r.non2xx,
  errors: r.errors + r.timeouts
}))
console.table(rows)

const byName = new Map(results.map((r) => [r.server, r]))
const ours = byName.get("ours")
const ratios: Record<string, { reqPerSec: number; latencyP99: number; requestsPerCpuSecond: number }> = {}
if (ours !== undefined) {
  for (const peer of ["fastify", "node:http"] as const) {
    const other = byName.get(peer)
    if (other === undefined) continue
    ratios[`ours / ${peer}`] = {
      reqPerSec: round(ours.reqPerSec / other.reqPerSec, 3),
      latencyP99: round(ours.latencyP99Ms / other.latencyP99Ms, 3),
      requestsPerCpuSecond: round(other.serverCpuMicrosPerRequest / ours.serverCpuMicrosPerRequest, 3)
    }
    const ratio = ratios[`ours / ${peer}`]
    console.log(
      `ours / ${peer.padEnd(9)}  req/s ${ratio.reqPerSec.toFixed(3)}x   p99 ${ratio.latencyP99.toFixed(3)}x (lower is better)` +
        `   req per CPU-second ${ratio.requestsPerCpuSecond.toFixed(3)}x`
    )
  }
  const vsFastify = ratios["ours / fastify"]
  if (vsFastify !== undefined) {
    console.log(vsFastify.reqPerSec >= 1 ? "bar met: ours >= 1.0x Fastify" : "bar NOT met: ours < 1.0x Fastify")
  }
}
const shapes = new Set(results.map((r) => r.cursorShape))
const sizes = new Set(results.map((r) => r.bodyBytes))
if (shapes.size > 1 || sizes.size > 1) {
  console.log(
    "WARNING: the servers' answers differ, so the peers may no longer do the service's work:\n" +
      results.map((r) => `  ${r.server.padEnd(10)} ${r.bodyBytes} B, cursor ${r.cursorShape}`).join("\n")
  )
}
const unsaturated = results.filter((r) => r.serverCpuPercent < 85)
if (unsaturated.length > 0) {
  console.log(
    `note: ${unsaturated.map((r) => r.server).join(", ")} used < 85% of a core while measured: the load generator ` +
      `or other processes on this ${Os.cpus().length}-CPU machine (load average above) limited it, not only the server`
  )
}

const output = writeRunRecord(here, {
      request: `GET ${benchPath}`,
      settings: { seconds, warmupSeconds, connections, pipelining, rounds, profiled: profiled ?? null },
      profileWindowMicros: profileWindow ?? null,
      results,
      rounds: allRounds,
      ratios
    })
console.log(`results written to ${Path.relative(process.cwd(), output)}`)

if (profiled !== undefined) {
  const written = Fs.readdirSync(profileDir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => Path.join(profileDir, f))
    .sort((a, b) => Fs.statSync(b).mtimeMs - Fs.statSync(a).mtimeMs)[0]
  if (written !== undefined) {
    console.log(`\nprofile: ${Path.relative(process.cwd(), written)}`)
    console.log(summarise(written, { window: profileWindow }))
  }
}
