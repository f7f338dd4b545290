/**
 * The analytics engine contract on PostgreSQL's uploads engine
 * (`PgEngine.layerUploads`, decision 0013, "Uploads on the PostgreSQL
 * store"), on a throwaway database; skipped without PostgreSQL.
 */
import { analyticsEngineContract } from "@analytics/testing"
import { describe } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { PgEngine } from "../src/index.ts"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"

if (databaseUrl === "") {
  describe.skip(`analytics engine contract: PostgreSQL uploads ${skippedForNoPostgres}`, () => {})
} else {
  analyticsEngineContract(
    "PostgreSQL uploads",
    Layer.unwrap(Effect.map(freshDatabase(databaseUrl), (url) => PgEngine.layerUploads(Redacted.make(url), { connections: 3 }))),
    { csv: true, writeFile: false, listTables: true }
  )
}
