import { rateLimitStoreContract } from "@analytics/testing"
import { describe } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlRateLimitStore, SqlStores } from "../src/index.ts"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"

rateLimitStoreContract("pglite", Layer.provide(SqlRateLimitStore.layer, SqlStores.layerPglite()))

if (databaseUrl === "") {
  describe.skip(`rate-limit store contract: postgresql ${skippedForNoPostgres}`, () => {})
} else {
  rateLimitStoreContract(
    "postgresql",
    Layer.provide(
      SqlRateLimitStore.layer,
      Layer.unwrap(Effect.map(freshDatabase(databaseUrl), (url) => SqlStores.layerPg(Redacted.make(url))))
    )
  )
}
