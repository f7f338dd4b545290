import { storeContract } from "@analytics/testing"
import { Effect, Layer } from "effect"
import { SqlStores } from "../src/index.ts"
import { tempDir } from "@analytics/testing/postgres"

storeContract("pglite (in memory)", SqlStores.layerPglite())

storeContract(
  "pglite (data dir)",
  Layer.unwrap(Effect.map(tempDir("analytics-pglite-"), (dataDir) => SqlStores.layerPglite({ dataDir })))
)
