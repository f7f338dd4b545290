/**
 * Vitest globalSetup of every project but `unit`: prepares what the project needs, by the table in
 * scripts/TestProjects.ts (`needs`), before its files run:
 *
 * - `viewer`: the report viewer built (`npm test` builds it first; a bare `vitest run` builds it here when
 *   `packages/viewer/bundle` has none yet; an old build is used as it is).
 * - `tls`: a throwaway CA and a loopback server certificate (scripts/TestCertificates.ts) in `TEST_TLS_DIR`,
 *   trusted by every worker through `NODE_EXTRA_CA_CERTS`, which Node reads when a worker starts: HTTPS
 *   receivers in tests are trusted the way an operator trusts a private CA.
 * - `postgres`: a PostgreSQL URL, as `inject("databaseUrl")` (empty string when none is available):
 *   1. `TEST_DATABASE_URL` set (non-empty): use it as is.
 *   2. PostgreSQL server binaries found: start a throwaway server for this run
 *      (scripts/TestPostgres.ts) and stop it in teardown.
 *   3. Otherwise: `REQUIRE_POSTGRES=1` makes the run fail; else tests get "" and
 *      are expected to skip their database cases.
 * - `redis`, likewise: `TEST_REDIS_URL`, else a throwaway `redis-server`
 *   (scripts/TestRedis.ts), else "" (`REQUIRE_REDIS=1` makes the run fail).
 *
 * The URLs are also exported as `process.env.TEST_DATABASE_URL` and
 * `process.env.TEST_REDIS_URL` for the test workers (they inherit the
 * environment of the main vitest process). Vitest runs the setups of all the projects of a run before
 * any test and their teardowns after the last: the first project that needs a server starts it, the
 * projects after it find its URL in the environment and use it, and the one that started it stops it.
 * A project none of whose files run (`--project unit`, a filter) sets up nothing.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { TestProject } from "vitest/node"
import { makeTestCertificates } from "./TestCertificates.ts"
import { findPostgresBin, startTestPostgres } from "./TestPostgres.ts"
import { findRedisServer, startTestRedis } from "./TestRedis.ts"
import { type Need, needs, type ProjectName, projectNames } from "./TestProjects.ts"
// The types of what is provided to the test files (`inject`), declared by the test kits.
import type {} from "../packages/testing/src/Provided.ts"


type Teardown = () => Promise<void>

/** A server the tests may use: how the run finds, requires or starts one. */
interface ServerSetup {
  readonly name: string
  /** The `inject` key the URL is provided under. */
  readonly key: "databaseUrl" | "redisUrl"
  /** The variable that points at an existing server (and carries the URL to the workers). */
  readonly urlVariable: string
  /** The variable that turns a missing server into a failure. */
  readonly requireVariable: string
  /** Whether a throwaway server can be started here. */
  readonly installed: () => boolean
  /** What to say when none is available. */
  readonly missing: string
  readonly start: () => Promise<{ readonly url: string; readonly stop: () => Promise<void> }>
}

const postgres: ServerSetup = {
  name: "PostgreSQL",
  key: "databaseUrl",
  urlVariable: "TEST_DATABASE_URL",
  requireVariable: "REQUIRE_POSTGRES",
  installed: () => findPostgresBin() !== undefined,
  missing: "no PostgreSQL server binaries (initdb, pg_ctl, postgres) were found on PATH or in /usr/lib/postgresql/*/bin. " +
    "Install them (Debian: apt-get install postgresql) or set TEST_DATABASE_URL.",
  start: startTestPostgres
}

const redis: ServerSetup = {
  name: "Redis",
  key: "redisUrl",
  urlVariable: "TEST_REDIS_URL",
  requireVariable: "REQUIRE_REDIS",
  installed: () => findRedisServer() !== undefined,
  missing: "no redis-server was found on PATH or in /usr/bin. Install it (Debian: apt-get install redis-server) or set TEST_REDIS_URL.",
  start: startTestRedis
}

/** The report viewer built, for the tests that serve it (an old build is used as it is). */
const ensureViewerBuilt = async () => {
  const root = path.join(import.meta.dirname, "..", "packages", "viewer")
  if (fs.existsSync(path.join(root, "bundle", ".vite", "manifest.json"))) return
  const { build } = await import("vite")
  await build({ configFile: path.join(root, "vite.config.ts") })
}

/** The throwaway CA and server certificate, made once a run (a later project finds them in the environment). */
const setupTls = async (): Promise<Teardown | undefined> => {
  // Made by an earlier project of this run: its CA is the one the workers trust.
  const existing = process.env.TEST_TLS_DIR
  const trusted = process.env.NODE_EXTRA_CA_CERTS
  if (existing && trusted && path.dirname(trusted) === existing && fs.existsSync(trusted)) return undefined
  const tls = makeTestCertificates(fs.mkdtempSync(path.join(os.tmpdir(), "analytics-tls-")))
  process.env.TEST_TLS_DIR = tls.dir
  process.env.NODE_EXTRA_CA_CERTS = tls.caCert
  return async () => {
    if (process.env.TEST_TLS_DIR === tls.dir) {
      delete process.env.TEST_TLS_DIR
      delete process.env.NODE_EXTRA_CA_CERTS
    }
    fs.rmSync(tls.dir, { recursive: true, force: true })
  }
}

const prepare: Readonly<Record<Need, (project: TestProject) => Promise<Teardown | undefined>>> = {
  viewer: async () => {
    await ensureViewerBuilt()
    return undefined
  },
  tls: setupTls,
  postgres: (project) => setupServer(project, postgres),
  redis: (project) => setupServer(project, redis)
}

export default async function setup(project: TestProject): Promise<Teardown> {
  const name = project.name as ProjectName
  if (!projectNames.includes(name)) throw new Error(`[vitest-global-setup] unknown project "${project.name}" (scripts/TestProjects.ts)`)
  const teardowns: Array<Teardown> = []
  const teardown = async () => {
    for (const stop of teardowns.reverse()) await stop()
  }
  try {
    for (const need of needs[name]) {
      const stop = await prepare[need](project)
      if (stop !== undefined) teardowns.push(stop)
    }
  } catch (error) {
    await teardown()
    throw error
  }
  return teardown
}

/** Provides the server's URL: the configured one, a throwaway server's, or "" (or fails when required). */
async function setupServer(project: TestProject, server: ServerSetup): Promise<Teardown | undefined> {
  const external = process.env[server.urlVariable]
  if (external !== undefined && external !== "") {
    project.provide(server.key, external)
    return undefined
  }

  if (!server.installed()) {
    if (process.env[server.requireVariable] === "1") {
      throw new Error(
        `${server.requireVariable}=1 but no ${server.name} is available: ${server.urlVariable} is unset and ${server.missing}`
      )
    }
    console.warn(
      `[vitest-global-setup] No ${server.name} available (no ${server.urlVariable}, none installed): its tests will skip.`
    )
    project.provide(server.key, "")
    return undefined
  }

  const startedAt = Date.now()
  const started = await server.start()
  console.log(`[vitest-global-setup] ${server.name} ready at ${started.url} (${Date.now() - startedAt} ms)`)
  project.provide(server.key, started.url)
  process.env[server.urlVariable] = started.url

  return async () => {
    if (process.env[server.urlVariable] === started.url) delete process.env[server.urlVariable]
    await started.stop()
  }
}
