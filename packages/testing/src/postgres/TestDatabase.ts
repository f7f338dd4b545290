/**
 * Test helpers: a fresh PostgreSQL database per test file run, and a fresh
 * temporary directory, each removed when its scope closes, so reruns start
 * clean and leave nothing behind.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted, type Scope } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { inject } from "vitest"
import type {} from "../Provided.ts"

/** The test server's URL from the global setup, or "" when there is none. */
export const databaseUrl: string = inject("databaseUrl") ?? ""

/** How a suite that needs PostgreSQL is named when it cannot run. */
export const skippedForNoPostgres = "(skipped: no PostgreSQL; set TEST_DATABASE_URL)"

/** Runs one statement on the server's admin database, over a connection of its own. */
const admin = (adminUrl: string, statement: string) =>
  Effect.scoped(
    Effect.flatMap(PgClient.make({ url: Redacted.make(adminUrl), maxConnections: 1 }), (sql) => sql.unsafe(statement))
  ).pipe(Effect.provide(Reactivity.layer))

/** A new, empty database on the server at `adminUrl`, dropped (connections and all) when the scope closes. */
export const freshDatabase = (adminUrl: string): Effect.Effect<string, never, Scope.Scope> => {
  const name = `analytics_test_${crypto.randomUUID().replaceAll("-", "")}`
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return Effect.acquireRelease(
    Effect.as(Effect.orDie(admin(adminUrl, `CREATE DATABASE "${name}"`)), url.toString()),
    () => Effect.orDie(admin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`))
  )
}

/** A new temporary directory, deleted with its contents when the scope closes. */
export const tempDir = (prefix: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(() => fs.mkdtemp(path.join(os.tmpdir(), prefix))),
    (dir) => Effect.promise(() => fs.rm(dir, { recursive: true, force: true }))
  )
