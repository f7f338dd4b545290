/**
 * Vitest globalSetup: makes a PostgreSQL URL available to tests as
 * `inject("databaseUrl")` (empty string when no database is available).
 *
 * 1. `TEST_DATABASE_URL` set (non-empty): use it as is.
 * 2. PostgreSQL server binaries found: start a throwaway server for this run
 *    (scripts/TestPostgres.ts) and stop it in teardown.
 * 3. Otherwise: `REQUIRE_POSTGRES=1` makes the run fail; else tests get "" and
 *    are expected to skip their database cases.
 *
 * The URL is also exported as `process.env.TEST_DATABASE_URL` for the test
 * workers (they inherit the environment of the main vitest process).
 */
import type { TestProject } from "vitest/node"
import { findPostgresBin, startTestPostgres } from "./TestPostgres.ts"

declare module "vitest" {
  export interface ProvidedContext {
    /** PostgreSQL connection URL for tests, or "" when none is available. */
    databaseUrl: string
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
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
