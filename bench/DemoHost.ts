/**
 * The packaged host, run by the browser benchmarks the way a new user runs
 * it: `analytics-host serve` with the demo data on its own PGlite folder,
 * on a free loopback port, healthy before the first load.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const bin = fileURLToPath(new URL("../packages/host/src/bin.ts", import.meta.url))

/** A free loopback port. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

/** The packaged host with the demo data, healthy; stopped by `stop`. `name` labels its data folder and admin token. */
export const startDemoHost = async (name: string) => {
  const port = await freePort()
  const dataDir = mkdtempSync(join(tmpdir(), `bench-${name}-`))
  const token = `bench-${name}-admin`
  const child = spawn(process.execPath, ["--conditions=@analytics/source", bin, "serve"], {
    env: {
      PATH: process.env["PATH"] ?? "",
      HOME: process.env["HOME"] ?? "",
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}/`,
      ANALYTICS_DATA_DIR: dataDir,
      ANALYTICS_BOOTSTRAP_TOKEN: token,
      ANALYTICS_DEMO: "1",
      LOG_LEVEL: "warn"
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (chunk) => (output += chunk))
  child.stderr.on("data", (chunk) => (output += chunk))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 180_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the host exited:\n${output}`)
    if (Date.now() > deadline) throw new Error(`the host did not become healthy:\n${output}`)
    const healthy = await fetch(`${url}/healthz`).then((r) => r.ok, () => false)
    if (healthy) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const stop = async () => {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
    rmSync(dataDir, { recursive: true, force: true })
  }
  return { url, token, stop }
}
