/**
 * Throwaway PostgreSQL server for tests.
 *
 * `startTestPostgres()` creates a fresh cluster in a temporary directory
 * (initdb, trust auth, no fsync), starts it on a free port on 127.0.0.1 and
 * resolves once it accepts connections. `stop()` shuts it down immediately and
 * deletes the directory. Nothing is written outside the temporary directory.
 *
 * When running as root (CI containers) initdb/postgres refuse to run, so the
 * server runs as the `postgres` system user (Debian's postgresql package creates
 * it) or, failing that, a `pgtest` system user created on demand.
 *
 * Runs under Node 24 native type stripping: erasable syntax only.
 */
import { spawn, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { isExecutable, type LocalServer, pickFreePort, readLogTail, removeDir, sleep, tail } from "./LocalServer.ts"

/** A throwaway server at `postgres://postgres@127.0.0.1:<port>/postgres`; its directory holds the data directory, socket and log; stopped in immediate mode. */
export interface TestPostgres extends LocalServer {
  /** Shuts the server down (`pg_ctl stop -m fast`), keeping its data, as an operator restarting it would. */
  readonly halt: () => Promise<void>
  /** Starts a halted server again on the same port and data; resolves once it accepts connections. */
  readonly resume: () => Promise<void>
}

const READY_TIMEOUT_MS = 30_000
const REQUIRED_BINARIES = ["initdb", "pg_ctl", "postgres"] as const
/** sockaddr_un.sun_path is 108 bytes; leave room for "/.s.PGSQL.65535.lock". */
const MAX_SOCKET_DIR_LENGTH = 80

const hasServerBinaries = (dir: string): boolean =>
  REQUIRED_BINARIES.every((name) => isExecutable(path.join(dir, name)))

/** Compares dotted numeric versions ("15", "9.6", "16.2"), highest first. */
const compareVersionsDesc = (a: string, b: string): number => {
  const pa = a.split(".").map((n) => Number.parseInt(n, 10) || 0)
  const pb = b.split(".").map((n) => Number.parseInt(n, 10) || 0)
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pb[i] ?? 0) - (pa[i] ?? 0)
    if (d !== 0) return d
  }
  return 0
}

/**
 * Directory holding `initdb` (together with `pg_ctl` and `postgres`):
 * first `$PATH`, then `/usr/lib/postgresql/<version>/bin`, highest version first.
 * Returns `undefined` when no PostgreSQL server binaries are installed.
 */
export const findPostgresBin = (): string | undefined => {
  const pathDirs = (process.env["PATH"] ?? "").split(path.delimiter).filter((d) => d !== "")
  for (const dir of pathDirs) {
    const initdb = path.join(dir, "initdb")
    if (!isExecutable(initdb)) continue
    // Prefer the real directory when initdb is a symlink (e.g. /usr/local/bin -> /usr/lib/postgresql/15/bin).
    let realDir: string | undefined
    try {
      realDir = path.dirname(fs.realpathSync(initdb))
    } catch {
      realDir = undefined
    }
    for (const candidate of [realDir, dir]) {
      if (candidate !== undefined && hasServerBinaries(candidate)) return candidate
    }
  }
  const debianRoot = "/usr/lib/postgresql"
  let versions: Array<string> = []
  try {
    versions = fs.readdirSync(debianRoot)
  } catch {
    versions = []
  }
  versions.sort(compareVersionsDesc)
  for (const version of versions) {
    const dir = path.join(debianRoot, version, "bin")
    if (hasServerBinaries(dir)) return dir
  }
  return undefined
}

interface RunResult {
  readonly code: number | null
  readonly output: string
}

interface Runner {
  /** Run a PostgreSQL binary (as the unprivileged user when we are root). */
  readonly run: (file: string, args: ReadonlyArray<string>, timeoutMs: number) => Promise<RunResult>
  readonly runSync: (file: string, args: ReadonlyArray<string>, timeoutMs: number) => RunResult
  readonly user: string | undefined
}

/** Environment for child processes: drop libpq/server variables that could redirect them. */
const childEnv = (): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (key.startsWith("PG")) continue
    env[key] = value
  }
  return env
}

const runProcess = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  timeoutMs: number
): Promise<RunResult> =>
  new Promise((resolve) => {
    let output = ""
    let settled = false
    const child = spawn(command, [...args], {
      cwd,
      env: childEnv(),
      stdio: ["ignore", "pipe", "pipe"]
    })
    const timer = setTimeout(() => {
      output += `\n[timed out after ${timeoutMs} ms]`
      child.kill("SIGKILL")
    }, timeoutMs)
    const finish = (code: number | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve({ code, output })
    }
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")))
    child.on("error", (err) => {
      output += `\n${String(err)}`
      finish(null)
    })
    child.on("close", (code) => finish(code))
  })

const runProcessSync = (
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  timeoutMs: number
): RunResult => {
  const result = spawnSync(command, [...args], {
    cwd,
    env: childEnv(),
    stdio: ["ignore", "pipe", "pipe"],
    timeout: timeoutMs,
    encoding: "utf8"
  })
  return {
    code: result.status,
    output: `${result.stdout ?? ""}${result.stderr ?? ""}${result.error ? String(result.error) : ""}`
  }
}

const isRoot = (): boolean => typeof process.getuid === "function" && process.getuid() === 0

const userExists = (user: string): boolean =>
  spawnSync("id", ["-u", user], { stdio: "ignore" }).status === 0

const userIds = (user: string): { uid: number; gid: number } => {
  const uid = spawnSync("id", ["-u", user], { encoding: "utf8" }).stdout.trim()
  const gid = spawnSync("id", ["-g", user], { encoding: "utf8" }).stdout.trim()
  const result = { uid: Number.parseInt(uid, 10), gid: Number.parseInt(gid, 10) }
  if (!Number.isInteger(result.uid) || !Number.isInteger(result.gid)) {
    throw new Error(`TestPostgres: cannot resolve uid/gid of user ${user}`)
  }
  return result
}

/** The unprivileged user to run PostgreSQL as when we are root. */
const ensureServerUser = (): string => {
  if (userExists("postgres")) return "postgres"
  if (userExists("pgtest")) return "pgtest"
  const created = spawnSync("useradd", ["-r", "-M", "pgtest"], { encoding: "utf8" })
  if (created.status !== 0 && !userExists("pgtest")) {
    throw new Error(
      `TestPostgres: running as root and no 'postgres' user exists; 'useradd -r -M pgtest' failed: ${
        (created.stderr ?? "") + (created.error ? String(created.error) : "")
      }`
    )
  }
  return "pgtest"
}

const makeRunner = (cwd: string): Runner => {
  if (!isRoot()) {
    return {
      user: undefined,
      run: (file, args, timeoutMs) => runProcess(file, args, cwd, timeoutMs),
      runSync: (file, args, timeoutMs) => runProcessSync(file, args, cwd, timeoutMs)
    }
  }
  const user = ensureServerUser()
  const wrap = (file: string, args: ReadonlyArray<string>) => ["-u", user, "--", file, ...args]
  return {
    user,
    run: (file, args, timeoutMs) => runProcess("runuser", wrap(file, args), cwd, timeoutMs),
    runSync: (file, args, timeoutMs) => runProcessSync("runuser", wrap(file, args), cwd, timeoutMs)
  }
}

/** Every ancestor must be traversable by "other" for the unprivileged server user. */
const isWorldTraversable = (dir: string): boolean => {
  try {
    let current = fs.realpathSync(dir)
    for (;;) {
      if ((fs.statSync(current).mode & 0o001) === 0) return false
      const parent = path.dirname(current)
      if (parent === current) return true
      current = parent
    }
  } catch {
    return false
  }
}

/** Characters we are happy to put in a postgresql.conf string and a socket path. */
const SAFE_PATH = /^[A-Za-z0-9/._-]+$/

const pickBaseDir = (): string => {
  const base = os.tmpdir()
  const ok =
    SAFE_PATH.test(base) &&
    base.length + 20 <= MAX_SOCKET_DIR_LENGTH &&
    (!isRoot() || isWorldTraversable(base))
  return ok ? base : "/tmp"
}

const tcpConnects = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" })
    const done = (ok: boolean) => {
      socket.removeAllListeners()
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })

const quoteConf = (value: string): string => `'${value.replace(/'/g, "''")}'`

/** Kills the postmaster directly; used if `pg_ctl stop` fails. */
const killPostmaster = (dataDir: string): void => {
  try {
    const pid = Number.parseInt(fs.readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0] ?? "", 10)
    if (Number.isInteger(pid) && pid > 0) process.kill(pid, "SIGKILL")
  } catch {
    // not running / already gone
  }
}

/**
 * Starts a throwaway PostgreSQL server and resolves once it accepts connections.
 * Throws (with the server log tail) if the binaries are missing or it fails to start within ~30 s.
 */
export const startTestPostgres = async (): Promise<TestPostgres> => {
  const binDir = findPostgresBin()
  if (binDir === undefined) {
    throw new Error(
      "TestPostgres: PostgreSQL server binaries (initdb, pg_ctl, postgres) not found on PATH or in /usr/lib/postgresql/*/bin. " +
        "Install them (Debian: apt-get install postgresql) or set TEST_DATABASE_URL."
    )
  }
  const bin = (name: string) => path.join(binDir, name)
  const startedAt = Date.now()
  const deadline = startedAt + READY_TIMEOUT_MS

  const dir = fs.mkdtempSync(path.join(pickBaseDir(), "pgtest-"))
  const dataDir = path.join(dir, "data")
  const logFile = path.join(dir, "postgres.log")
  let runner: Runner
  try {
    runner = makeRunner(dir)
    if (runner.user !== undefined) {
      const { uid, gid } = userIds(runner.user)
      fs.chownSync(dir, uid, gid)
    }
  } catch (err) {
    removeDir(dir)
    throw err
  }

  function fail(message: string, output: string): never {
    killPostmaster(dataDir)
    const log = readLogTail(logFile, 40)
    removeDir(dir)
    throw new Error(
      `TestPostgres: ${message}\n--- command output ---\n${tail(output, 40) || "(none)"}\n--- server log tail (${logFile}) ---\n${log}`
    )
  }

  const initdb = await runner.run(
    bin("initdb"),
    ["-D", dataDir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"],
    Math.max(deadline - Date.now(), 5_000)
  )
  if (initdb.code !== 0) fail(`initdb failed (exit ${initdb.code}) using ${binDir}`, initdb.output)

  // Server settings shared by every start attempt; the port is passed on the command line.
  const settings = [
    "",
    "# --- scripts/TestPostgres.ts ---",
    "fsync = off",
    "synchronous_commit = off",
    "full_page_writes = off",
    `listen_addresses = ${quoteConf("127.0.0.1")}`,
    `unix_socket_directories = ${quoteConf(dir)}`,
    "max_connections = 200",
    ""
  ].join("\n")
  fs.appendFileSync(path.join(dataDir, "postgresql.conf"), settings)

  let port = 0
  for (let attempt = 1; ; attempt++) {
    port = await pickFreePort()
    const remainingS = Math.max(Math.ceil((deadline - Date.now()) / 1000), 5)
    const start = await runner.run(
      bin("pg_ctl"),
      ["start", "-D", dataDir, "-l", logFile, "-w", "-t", String(remainingS), "-o", `-p ${port}`],
      (remainingS + 5) * 1000
    )
    if (start.code === 0) break
    // Another process may have grabbed the port between our probe and the server's bind: retry.
    const log = readLogTail(logFile, 20)
    const portTaken = /could not (bind|create listen socket)|address already in use/i.test(log)
    if (!portTaken || attempt >= 3 || Date.now() >= deadline) {
      fail(`pg_ctl start failed (exit ${start.code}) on port ${port}`, start.output)
    }
    killPostmaster(dataDir)
  }

  // pg_ctl -w waits for the postmaster to report ready; confirm over TCP as clients will connect.
  const pgIsReady = isExecutable(bin("pg_isready")) ? bin("pg_isready") : undefined
  for (;;) {
    let ready: boolean
    let lastOutput = ""
    if (pgIsReady !== undefined) {
      const probe = await runProcess(
        pgIsReady,
        ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", "postgres", "-t", "2"],
        dir,
        5_000
      )
      ready = probe.code === 0
      lastOutput = probe.output
    } else {
      ready = await tcpConnects(port)
    }
    if (ready) break
    if (Date.now() >= deadline) {
      fail(`server did not accept connections on 127.0.0.1:${port} within ${READY_TIMEOUT_MS / 1000} s`, lastOutput)
    }
    await sleep(100)
  }

  let stopped = false
  const stopSync = () => {
    if (stopped) return
    stopped = true
    const result = runner.runSync(bin("pg_ctl"), ["stop", "-D", dataDir, "-m", "immediate", "-w", "-t", "10"], 15_000)
    if (result.code !== 0) killPostmaster(dataDir)
    removeDir(dir)
  }
  // Last resort if the test runner exits without calling stop().
  process.once("exit", stopSync)

  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    process.removeListener("exit", stopSync)
    const result = await runner.run(
      bin("pg_ctl"),
      ["stop", "-D", dataDir, "-m", "immediate", "-w", "-t", "10"],
      15_000
    )
    if (result.code !== 0) killPostmaster(dataDir)
    removeDir(dir)
  }

  const halt = async (): Promise<void> => {
    const result = await runner.run(bin("pg_ctl"), ["stop", "-D", dataDir, "-m", "fast", "-w", "-t", "30"], 35_000)
    if (result.code !== 0) throw new Error(`TestPostgres: pg_ctl stop failed (exit ${result.code})\n${tail(result.output, 20)}`)
  }

  const resume = async (): Promise<void> => {
    const result = await runner.run(
      bin("pg_ctl"),
      ["start", "-D", dataDir, "-l", logFile, "-w", "-t", "30", "-o", `-p ${port}`],
      35_000
    )
    if (result.code !== 0) {
      throw new Error(`TestPostgres: pg_ctl start failed (exit ${result.code})\n${tail(result.output, 20)}\n${readLogTail(logFile, 20)}`)
    }
  }

  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop,
    halt,
    resume
  }
}
