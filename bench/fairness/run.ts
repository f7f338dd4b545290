/**
 * `npm run bench:fairness`: one tenant's load must not stall another's
 * (decision 0018). The packaged host (`analytics-host serve`) runs in a child
 * process on a loopback port; two tenants each upload a dataset of
 * `BENCH_ROWS` rows (a CSV made here). Tenant A's query and A's
 * `GET /v1/workspaces` are timed, back to back, first alone, then while
 * tenant B floods its own dataset from another process: `BENCH_CLIENTS`
 * clients in a loop, within B's plan (its per-workspace query concurrency
 * answers 429 `rate-limit/query-concurrency` for the rest; each 429 is
 * counted and retried after its `Retry-After`). Printed: A's p50/p99 in
 * each phase and the ratios flood / alone. The bar: A's query p99 under
 * the flood at most 2x its p99 alone.
 *
 * Environment:
 * - `BENCH_ROWS`          rows of each tenant's dataset (default 300,000)
 * - `BENCH_SECONDS`       measured seconds of each phase (default 20)
 * - `BENCH_WARMUP_SECONDS` before each phase, unmeasured (default 3)
 * - `BENCH_CLIENTS`       tenant B's concurrent clients (default 40)
 * - `BENCH_B_QUERY_CONCURRENCY` B's negotiated concurrent queries per workspace (default 32, Scale's)
 * - `BENCH_PAUSE_MS`      tenant A's pause between two of its requests (default 10)
 * - `BENCH_STORE`         the host's `ANALYTICS_STORE` (default `pglite`, the host's default; `memory` is quicker to start)
 * - `BENCH_OUTPUT_DIR`    where `last-run.json` goes (default `bench/fairness`)
 * - `ANALYTICS_*`         passed to the host (e.g. `ANALYTICS_ENGINE_CONCURRENCY`)
 *
 * Only loopback is used.
 */
import { type ChildProcess, fork, spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import * as Os from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { writeRunRecord } from "../RunRecord.ts"
import { model, percentile, queryA, queryB, salesCsv } from "./shared.ts"

const settings = {
  rows: Number(process.env["BENCH_ROWS"] ?? 300_000),
  seconds: Number(process.env["BENCH_SECONDS"] ?? 20),
  warmupSeconds: Number(process.env["BENCH_WARMUP_SECONDS"] ?? 3),
  clients: Number(process.env["BENCH_CLIENTS"] ?? 40),
  bQueryConcurrency: Number(process.env["BENCH_B_QUERY_CONCURRENCY"] ?? 32),
  store: process.env["BENCH_STORE"] ?? "pglite",
  pauseMs: Number(process.env["BENCH_PAUSE_MS"] ?? 10)
}
const outputDir = process.env["BENCH_OUTPUT_DIR"] ?? import.meta.dirname
const operatorToken = "bench-operator"
const bin = fileURLToPath(new URL("../../packages/host/src/bin.ts", import.meta.url))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const round = (x: number) => Math.round(x * 100) / 100

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** The host in a child process; its output kept for a failure's message. */
const startHost = async (dataDir: string) => {
  const port = await freePort()
  const passed = Object.fromEntries(Object.entries(process.env).filter(([name]) => name.startsWith("ANALYTICS_"))) as Record<string, string>
  const child = spawn(process.execPath, ["--conditions=@analytics/source", bin, "serve"], {
    env: {
      PATH: process.env["PATH"] ?? "",
      HOME: process.env["HOME"] ?? "",
      ...passed,
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      ANALYTICS_STORE: settings.store,
      ANALYTICS_DATA_DIR: dataDir,
      ANALYTICS_OPERATOR_TOKEN: operatorToken,
      LOG_LEVEL: "warn"
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-20_000))
  child.stdout!.on("data", keep)
  child.stderr!.on("data", keep)
  let exited = false
  const ended = new Promise<void>((resolve) => child.on("exit", () => ((exited = true), resolve())))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 120_000
  // Ready once the API answers (`/healthz` answers while storage still initialises).
  while (true) {
    if (exited || Date.now() > deadline) throw new Error(`the host did not start:\n${output}`)
    const status = await fetch(`${url}/v1/workspaces`).then((r) => r.status, () => 0)
    if (status === 401) break
    await sleep(100)
  }
  const stop = async () => {
    child.kill("SIGTERM")
    await ended
  }
  return { url, child, stop, output: () => output }
}

const call = async (url: string, method: string, path: string, token: string, body?: unknown, contentType = "application/json") => {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": contentType },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
  })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text}`)
  return JSON.parse(text)
}

/** A tenant with a workspace and a loaded dataset; its admin token. */
const tenantWithData = async (url: string, name: string, plan: Record<string, unknown>, csv: string) => {
  const { token } = await call(url, "POST", "/v1/tenants", operatorToken, { name, ...plan })
  const workspace = await call(url, "POST", "/v1/workspaces", token, { name })
  const dataset = await call(url, "POST", "/v1/datasets", token, { workspace_id: workspace.workspace_id, name: "Sales", source: { type: "upload" }, model })
  await call(url, "PUT", `/v1/datasets/${dataset.dataset_id}/data`, token, csv, "text/csv")
  return { token: token as string, datasetId: dataset.dataset_id as string }
}

/** Times `request` back to back until `until`; each latency in ms. Fails on any answer but 200. */
const timedLoop = async (until: number, request: () => Promise<Response>) => {
  const latencies: Array<number> = []
  while (performance.now() < until) {
    const start = performance.now()
    const response = await request()
    const text = await response.text()
    if (response.status !== 200) throw new Error(`tenant A was answered ${response.status}: ${text}`)
    latencies.push(performance.now() - start)
    await sleep(settings.pauseMs)
  }
  return latencies
}

/** One phase: A's query and A's workspace list, each timed back to back, at the same time, for `seconds`. */
const measureA = async (url: string, a: { token: string; datasetId: string }, seconds: number) => {
  const until = performance.now() + seconds * 1000
  const headers = { authorization: `Bearer ${a.token}`, "content-type": "application/json" }
  const body = JSON.stringify(queryA)
  const [query, workspaces] = await Promise.all([
    timedLoop(until, () => fetch(`${url}/v1/datasets/${a.datasetId}/query`, { method: "POST", headers, body })),
    timedLoop(until, () => fetch(`${url}/v1/workspaces`, { headers }))
  ])
  const summary = (xs: ReadonlyArray<number>) => ({ count: xs.length, p50Ms: round(percentile(xs, 0.5)), p99Ms: round(percentile(xs, 0.99)), maxMs: round(Math.max(...xs)) })
  return { query: summary(query), workspaces: summary(workspaces) }
}

/** B's flood in its own process, started and ready. */
const startFlood = async (url: string, b: { token: string; datasetId: string }) => {
  const child: ChildProcess = fork(fileURLToPath(new URL("./flood.ts", import.meta.url)), [
    JSON.stringify({ url, token: b.token, datasetId: b.datasetId, clients: settings.clients, query: queryB })
  ])
  await new Promise<void>((resolve, reject) => {
    child.once("message", () => resolve())
    child.once("exit", (code) => reject(new Error(`the flood exited (${code})`)))
  })
  const stop = () =>
    new Promise<any>((resolve) => {
      child.once("message", resolve)
      child.send("stop")
    })
  return { stop }
}

const main = async () => {
  const loadAtStart = Os.loadavg()[0]!
  const dir = mkdtempSync(join(Os.tmpdir(), "bench-fairness-"))
  let host: Awaited<ReturnType<typeof startHost>> | undefined
  try {
    const csv = salesCsv(settings.rows)
    host = await startHost(dir)
    const url = host.url
    let t0 = performance.now()
    // Request rates neither tenant reaches: only B's concurrent queries are limited (Scale's 32 per workspace by default).
    const plan = (queryConcurrency: number) => ({ plan: "custom", limits: { burst: 1_000_000, sustained: 1_000_000_000, query_concurrency: queryConcurrency } })
    const a = await tenantWithData(url, "Tenant A", plan(8), csv)
    const b = await tenantWithData(url, "Tenant B", plan(settings.bQueryConcurrency), csv)
    console.log(`host on ${settings.store}, two tenants with ${settings.rows.toLocaleString()} rows each, in ${Math.round(performance.now() - t0)} ms`)

    await measureA(url, a, settings.warmupSeconds)
    const alone = await measureA(url, a, settings.seconds)
    console.log(`alone: A's query p50 ${alone.query.p50Ms} ms, p99 ${alone.query.p99Ms} ms (${alone.query.count}); workspaces p99 ${alone.workspaces.p99Ms} ms`)

    t0 = performance.now()
    const flood = await startFlood(url, b)
    await sleep(settings.warmupSeconds * 1000)
    const underFlood = await measureA(url, a, settings.seconds)
    const b_ = await flood.stop()
    console.log(`flood: A's query p50 ${underFlood.query.p50Ms} ms, p99 ${underFlood.query.p99Ms} ms (${underFlood.query.count}); workspaces p99 ${underFlood.workspaces.p99Ms} ms`)

    const ratio = round(underFlood.query.p99Ms / alone.query.p99Ms)
    const workspacesRatio = round(underFlood.workspaces.p99Ms / alone.workspaces.p99Ms)
    const flooding = {
      clients: settings.clients,
      completed: b_.completed,
      perSecond: round(b_.perSecond),
      p50Ms: round(b_.p50Ms),
      p99Ms: round(b_.p99Ms),
      refused: b_.refused,
      failed: b_.failed
    }
    const line = (name: string, x: typeof alone.query, y: typeof alone.query) =>
      `${name.padEnd(26)} ${String(x.p50Ms).padStart(9)} ${String(x.p99Ms).padStart(9)} ${String(y.p50Ms).padStart(9)} ${String(y.p99Ms).padStart(9)} ${`${round(y.p99Ms / x.p99Ms)}x`.padStart(9)}`
    console.log()
    console.log(`${"tenant A, ms".padEnd(26)} ${"alone p50".padStart(9)} ${"p99".padStart(9)} ${"flood p50".padStart(9)} ${"p99".padStart(9)} ${"p99 ratio".padStart(9)}`)
    console.log(line("POST …/query", alone.query, underFlood.query))
    console.log(line("GET /v1/workspaces", alone.workspaces, underFlood.workspaces))
    console.log(
      `tenant B: ${flooding.clients} clients, ${flooding.completed} queries answered (${flooding.perSecond}/s, p50 ${flooding.p50Ms} ms), refused ${JSON.stringify(flooding.refused)}, failed ${flooding.failed}`
    )
    console.log(`A's query p99 under B's flood / alone: ${ratio}x (bar: <= 2x) ${ratio <= 2 ? "met" : "NOT MET"}`)
    const written = writeRunRecord(outputDir, {
      settings: {
        ...settings,
        // What the host runs with: its variables, or its defaults on this machine.
        engineConcurrency: Number(process.env["ANALYTICS_ENGINE_CONCURRENCY"] ?? Os.availableParallelism()),
        duckdbThreads: Number(process.env["ANALYTICS_DUCKDB_THREADS"] ?? Math.max(1, Math.floor(Os.availableParallelism() / 2))),
        loadAverage: { start: round(loadAtStart), end: round(Os.loadavg()[0]!) }
      },
      alone,
      flood: underFlood,
      tenantB: flooding,
      ratio,
      workspacesRatio,
      bar: 2,
      met: ratio <= 2
    })
    console.log(`written to ${written}`)
  } catch (error) {
    if (host !== undefined) console.error(host.output())
    throw error
  } finally {
    await host?.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()
