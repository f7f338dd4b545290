/** The per-operation limits over HTTP on the shared stores a deployment runs (decision 0009). */
import { operationLimitsSuite } from "./OperationLimitsSuite.ts"
import { SqlRateLimitStore, SqlStores } from "@analytics/adapter-postgres"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"
import { RedisRateLimitStore } from "@analytics/adapter-redis"
import { describe } from "@effect/vitest"
import { inject } from "vitest"
import { Effect, Layer, Redacted } from "effect"

const redisUrl: string = inject("redisUrl")

if (databaseUrl === "") {
  describe.skip(`per-operation limits over HTTP: postgresql ${skippedForNoPostgres}`, () => {})
} else {
  operationLimitsSuite(
    "postgresql",
    Layer.provide(
      SqlRateLimitStore.layer,
      Layer.unwrap(Effect.map(freshDatabase(databaseUrl), (url) => SqlStores.layerPg(Redacted.make(url))))
    )
  )
}

if (redisUrl === "") {
  describe.skip("per-operation limits over HTTP: redis (skipped: no redis-server; set TEST_REDIS_URL)", () => {})
} else {
  operationLimitsSuite("redis", RedisRateLimitStore.layerUrl(redisUrl))
}
