/**
 * Runs `analytics-host` as a real child process, as a user would.
 */
import { until } from "@analytics/testing"
import { databaseUrl, freshDatabase } from "@analytics/testing/postgres"
import { Effect, Exit, Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const bin = fileURLToPath(new URL("../src/bin.ts", import.meta.url))

/** A free TCP port on this machine. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** A running host process. */
export interface Host {
  readonly url: string
  readonly process: ChildProcess
  /** Everything written to stdout and stderr so far. */
  readonly output: () => string
  /** Waits for the process to end; resolves its exit code (or signal). */
  readonly exited: Promise<number | string>
}

/** Runs the host with the given command and environment (PATH and HOME are kept). */
export const run = (args: ReadonlyArray<string>, env: Record<string, string>): Host => {
  // From the sources, as the repository runs them (decision 0006).
  const child = spawn(process.execPath, ["--conditions=@analytics/source", bin, ...args], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout!.on("data", (chunk) => (output += chunk))
  child.stderr!.on("data", (chunk) => (output += chunk))
  const exited = new Promise<number | string>((resolve) =>
    child.on("exit", (code, signal) => resolve(code ?? signal ?? "unknown"))
  )
  return { url: `http://127.0.0.1:${env.PORT ?? 3000}`, process: child, output: () => output, exited }
}

/** Polls until `GET /healthz` answers 200, the process exits, or the time runs out. */
export const healthy = async (host: Host, timeoutMs = 30_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  let ended = false
  void host.exited.then(() => (ended = true))
  while (Date.now() < deadline && !ended) {
    try {
      const response = await fetch(`${host.url}/healthz`)
      if (response.status === 200) return
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`the host did not become healthy:\n${host.output()}`)
}

/** Sends SIGTERM and waits for the exit. */
export const stop = async (host: Host): Promise<number | string> => {
  host.process.kill("SIGTERM")
  return host.exited
}

/** A JSON request against the host. */
export const call = async (
  host: Host,
  method: string,
  path: string,
  token?: string,
  body?: unknown
): Promise<{ status: number; body: any }> => {
  const headers: Record<string, string> = {}
  if (token !== undefined) headers.authorization = `Bearer ${token}`
  if (body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(host.url + path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
}

/** Cleanups a test file runs after its tests (`afterAll`), last registered first. */
export type Cleanups = Array<() => Promise<void>>

/** A fresh database on the test server; dropped by `cleanups`. */
export const freshDatabaseUrl = async (cleanups: Cleanups): Promise<string> => {
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(Scope.provide(freshDatabase(databaseUrl), scope))
  cleanups.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  return url
}

/**
 * A host on its default store (embedded PGlite in a fresh data directory,
 * removed by `cleanups`) with the demo data, healthy; its bootstrap admin
 * token and the demo report "Sales overview".
 */
export const demoHost = async (cleanups: Cleanups, publicBaseUrl: (port: number) => string, env: Record<string, string> = {}) => {
  const dataDir = mkdtempSync(join(tmpdir(), "analytics-demo-"))
  cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
  const token = `e2e-${randomUUID()}`
  const port = await freePort()
  const environment = {
    PORT: String(port),
    PUBLIC_BASE_URL: publicBaseUrl(port),
    ANALYTICS_DATA_DIR: dataDir,
    ANALYTICS_BOOTSTRAP_TOKEN: token,
    ANALYTICS_DEMO: "1",
    LOG_LEVEL: "warn",
    ...env
  }
  const host = run(["serve"], environment)
  cleanups.push(async () => void (await stop(host)))
  await healthy(host, 120_000)
  const [workspace] = (await call(host, "GET", "/v1/workspaces", token)).body.data
  const [report] = (await call(host, "GET", `/v1/reports?workspace_id=${workspace.workspace_id}`, token)).body.data
  return { host, token, port, dataDir, report, environment }
}

/** An export job once it has succeeded, failed or been canceled, polled every 200 ms until `timeoutMs`. */
export const settledJob = (host: Host, token: string, jobId: string, timeoutMs = 20_000) =>
  until(async () => (await call(host, "GET", `/v1/jobs/${jobId}`, token)).body, (job) => ["succeeded", "failed", "canceled"].includes(job.status), {
    what: `job ${jobId} settled`,
    timeoutMillis: timeoutMs,
    intervalMillis: 200
  })

/** A finished export's file, fetched at its signed result URL (no token); the response's headers and bytes. */
export const download = async (host: Host, token: string, jobId: string) => {
  const result = await call(host, "GET", `/v1/jobs/${jobId}/result`, token)
  if (result.status !== 200) throw new Error(`GET /v1/jobs/${jobId}/result: ${result.status} ${JSON.stringify(result.body)}`)
  const response = await fetch(result.body.url)
  if (response.status !== 200) throw new Error(`GET ${result.body.url}: ${response.status} ${await response.text()}`)
  return { url: result.body.url as string, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
}
