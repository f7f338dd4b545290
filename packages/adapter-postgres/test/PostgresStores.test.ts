import { storeContract } from "@analytics/testing"
import { describe } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { SqlStores } from "../src/index.ts"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"

if (databaseUrl === "") {
  describe.skip(`store contract: postgresql ${skippedForNoPostgres}`, () => {})
} else {
  storeContract(
    "postgresql",
    Layer.unwrap(Effect.map(freshDatabase(databaseUrl), (url) => SqlStores.layerPg(Redacted.make(url))))
  )
}
