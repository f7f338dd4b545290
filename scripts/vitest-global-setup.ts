/**
 * Vitest globalSetup: makes a PostgreSQL URL and a Redis URL available to
 * tests as `inject("databaseUrl")` and `inject("redisUrl")` (empty string when
 * none is available).
 *
 * PostgreSQL:
 * 1. `TEST_DATABASE_URL` set (non-empty): use it as is.
 * 2. PostgreSQL server binaries found: start a throwaway server for this run
 *    (scripts/TestPostgres.ts) and stop it in teardown.
 * 3. Otherwise: `REQUIRE_POSTGRES=1` makes the run fail; else tests get "" and
 *    are expected to skip their database cases.
 *
 * Redis, likewise: `TEST_REDIS_URL`, else a throwaway `redis-server`
 * (scripts/TestRedis.ts), else "" (`REQUIRE_REDIS=1` makes the run fail).
 *
 * The URLs are also exported as `process.env.TEST_DATABASE_URL` and
 * `process.env.TEST_REDIS_URL` for the test workers (they inherit the
 * environment of the main vitest process).
 */
import type { TestProject } from "vitest/node"
import { findPostgresBin, startTestPostgres } from "./TestPostgres.ts"
import { findRedisServer, startTestRedis } from "./TestRedis.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** PostgreSQL connection URL for tests, or "" when none is available. */
    databaseUrl: string
    /** Redis connection URL for tests, or "" when none is available. */
    redisUrl: string
  }
}

type Teardown = () => Promise<void>

export default async function setup(project: TestProject): Promise<Teardown> {
  const stopPostgres = await setupPostgres(project)
  let stopRedis: Teardown | undefined
  try {
    stopRedis = await setupRedis(project)
  } catch (error) {
    await stopPostgres?.()
    throw error
  }
  return async () => {
    await stopRedis?.()
    await stopPostgres?.()
  }
}

async function setupPostgres(project: TestProject): Promise<Teardown | undefined> {
  const external = process.env["TEST_DATABASE_URL"]
  if (external !== undefined && external !== "") {
    project.provide("databaseUrl", external)
    return undefined
  }

  if (findPostgresBin() === undefined) {
    if (process.env["REQUIRE_POSTGRES"] === "1") {
      throw new Error(
        "REQUIRE_POSTGRES=1 but no PostgreSQL is available: TEST_DATABASE_URL is unset and no PostgreSQL server " +
          "binaries (initdb, pg_ctl, postgres) were found on PATH or in /usr/lib/postgresql/*/bin. " +
          "Install them (Debian: apt-get install postgresql) or set TEST_DATABASE_URL."
      )
    }
    console.warn(
      "[vitest-global-setup] No PostgreSQL available (no TEST_DATABASE_URL, no server binaries): database tests will skip."
    )
    project.provide("databaseUrl", "")
    return undefined
  }

  const startedAt = Date.now()
  const pg = await startTestPostgres()
  console.log(`[vitest-global-setup] PostgreSQL ready at ${pg.url} (${Date.now() - startedAt} ms)`)
  project.provide("databaseUrl", pg.url)
  process.env["TEST_DATABASE_URL"] = pg.url

  return async () => {
    if (process.env["TEST_DATABASE_URL"] === pg.url) delete process.env["TEST_DATABASE_URL"]
    await pg.stop()
  }
}

async function setupRedis(project: TestProject): Promise<Teardown | undefined> {
  const external = process.env["TEST_REDIS_URL"]
  if (external !== undefined && external !== "") {
    project.provide("redisUrl", external)
    return undefined
  }

  if (findRedisServer() === undefined) {
    if (process.env["REQUIRE_REDIS"] === "1") {
      throw new Error(
        "REQUIRE_REDIS=1 but no Redis is available: TEST_REDIS_URL is unset and no redis-server was found on PATH " +
          "or in /usr/bin. Install it (Debian: apt-get install redis-server) or set TEST_REDIS_URL."
      )
    }
    console.warn("[vitest-global-setup] No Redis available (no TEST_REDIS_URL, no redis-server): Redis tests will skip.")
    project.provide("redisUrl", "")
    return undefined
  }

  const startedAt = Date.now()
  const redis = await startTestRedis()
  console.log(`[vitest-global-setup] Redis ready at ${redis.url} (${Date.now() - startedAt} ms)`)
  project.provide("redisUrl", redis.url)
  process.env["TEST_REDIS_URL"] = redis.url

  return async () => {
    if (process.env["TEST_REDIS_URL"] === redis.url) delete process.env["TEST_REDIS_URL"]
    await redis.stop()
  }
}
