/**
 * Throwaway Redis server for tests.
 *
 * `startTestRedis()` starts `redis-server` on a free port on 127.0.0.1 with
 * no persistence (`--save "" --appendonly no`) and a temporary working
 * directory, and resolves once it answers PING. `stop()` kills it and deletes
 * the directory. A system Redis (Debian's package starts one on 6379) is
 * never touched.
 *
 * Runs under Node 24 native type stripping: erasable syntax only.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { isExecutable, type LocalServer, pickFreePort, readLogTail, removeDir, sleep } from "./LocalServer.ts"

/** A throwaway server at `redis://127.0.0.1:<port>`; its directory holds the log. */
export type TestRedis = LocalServer

const READY_TIMEOUT_MS = 15_000

/** `redis-server` on `$PATH`, else Debian's `/usr/bin/redis-server`; `undefined` when neither exists. */
export const findRedisServer = (): string | undefined => {
  const dirs = (process.env["PATH"] ?? "").split(path.delimiter).filter((d) => d !== "")
  return [...dirs, "/usr/bin"].map((dir) => path.join(dir, "redis-server")).find(isExecutable)
}

/** Whether a server on `port` answers PING with PONG. */
const answersPing = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" })
    let reply = ""
    const done = (ok: boolean) => {
      socket.removeAllListeners()
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once("connect", () => socket.write("PING\r\n"))
    socket.on("data", (chunk: Buffer) => {
      reply += chunk.toString("utf8")
      if (reply.includes("\r\n")) done(reply.startsWith("+PONG"))
    })
    socket.once("error", () => done(false))
  })

/** Starts `redis-server` on `port`; resolves with the process once it answers PING, or with why it did not. */
const startOn = async (
  bin: string,
  port: number,
  dir: string,
  logFile: string,
  deadline: number
): Promise<{ readonly child: ChildProcess } | { readonly failure: string }> => {
  const child = spawn(
    bin,
    ["--save", "", "--appendonly", "no", "--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--logfile", logFile],
    { cwd: dir, stdio: "ignore" }
  )
  let exited: string | undefined
  child.once("exit", (code, signal) => (exited = `exited (code ${code}, signal ${signal})`))
  child.once("error", (err) => (exited = String(err)))
  while (Date.now() < deadline) {
    if (exited !== undefined) return { failure: exited }
    if (await answersPing(port)) return { child }
    await sleep(50)
  }
  child.kill("SIGKILL")
  return { failure: `did not answer PING within ${READY_TIMEOUT_MS / 1000} s` }
}

/**
 * Starts a throwaway Redis server and resolves once it answers PING.
 * Throws (with the server log tail) if `redis-server` is missing or does not start in time.
 */
export const startTestRedis = async (): Promise<TestRedis> => {
  const bin = findRedisServer()
  if (bin === undefined) {
    throw new Error(
      "TestRedis: redis-server not found on PATH or in /usr/bin. Install it (Debian: apt-get install redis-server) or set TEST_REDIS_URL."
    )
  }
  const deadline = Date.now() + READY_TIMEOUT_MS
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "redistest-"))
  const logFile = path.join(dir, "redis.log")
  let child: ChildProcess | undefined
  let port = 0
  // Another process may take the port between our probe and the server's bind: retry on a new one.
  for (let attempt = 1; child === undefined; attempt++) {
    port = await pickFreePort()
    const started = await startOn(bin, port, dir, logFile, deadline)
    if ("child" in started) {
      child = started.child
    } else if (attempt >= 3 || Date.now() >= deadline || !/address already in use/i.test(readLogTail(logFile, 30))) {
      const log = readLogTail(logFile, 30)
      removeDir(dir)
      throw new Error(`TestRedis: ${bin} on port ${port} ${started.failure}\n--- server log tail ---\n${log}`)
    }
  }

  const server = child
  let stopped = false
  const stopSync = () => {
    if (stopped) return
    stopped = true
    server.kill("SIGKILL")
    removeDir(dir)
  }
  // Last resort if the test runner exits without calling stop().
  process.once("exit", stopSync)

  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    process.removeListener("exit", stopSync)
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()))
      server.kill("SIGKILL")
      await exited
    }
    removeDir(dir)
  }

  return { url: `redis://127.0.0.1:${port}`, port, dir, stop }
}
