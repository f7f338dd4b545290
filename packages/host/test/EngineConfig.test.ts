/**
 * The engine's variables: `ANALYTICS_ENGINE_CONCURRENCY` and
 * `ANALYTICS_DUCKDB_THREADS` default from this machine's CPUs (decided here
 * in the host, not in core), are read when set, and refused by name when
 * invalid.
 */
import * as HostConfig from "../src/HostConfig.ts"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option } from "effect"
import { availableParallelism } from "node:os"

const load = (env: Record<string, string>) =>
  HostConfig.load.pipe(Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env: { ANALYTICS_STORE: "memory", ...env } }))))

describe("engine configuration", () => {
  it.effect("defaults from the CPUs, values read when set, each invalid one named", () =>
    Effect.gen(function*() {
      const defaults = yield* load({})
      assert.strictEqual(defaults.datasets.engineConcurrency, availableParallelism())
      assert.strictEqual(defaults.datasets.duckdbThreads, Math.max(1, Math.floor(availableParallelism() / 2)))
      const set = yield* load({ ANALYTICS_ENGINE_CONCURRENCY: "12", ANALYTICS_DUCKDB_THREADS: "3" })
      assert.strictEqual(set.datasets.engineConcurrency, 12)
      assert.strictEqual(set.datasets.duckdbThreads, 3)
      const problems = yield* Effect.flip(load({ ANALYTICS_ENGINE_CONCURRENCY: "0", ANALYTICS_DUCKDB_THREADS: "two" }))
      assert.strictEqual(problems.length, 2, problems.join("\n"))
      assert.isTrue(problems.some((p) => p.startsWith("ANALYTICS_ENGINE_CONCURRENCY")), problems.join("\n"))
      assert.isTrue(problems.some((p) => p.startsWith("ANALYTICS_DUCKDB_THREADS")), problems.join("\n"))
    }))

  it.effect("uploads live in DuckDB on pglite and memory, in the database on postgres unless ANALYTICS_DUCKDB_PATH is set (decision 0013)", () =>
    Effect.gen(function*() {
      const postgres = { ANALYTICS_STORE: "postgres", DATABASE_URL: "postgres://u@db.example/analytics" }
      const onPostgres = yield* load(postgres)
      assert.isTrue(onPostgres.datasets.uploadsInDatabase)
      assert.isTrue(Option.isNone(onPostgres.datasets.duckdbPath))
      const withFile = yield* load({ ...postgres, ANALYTICS_DUCKDB_PATH: "/var/lib/analytics/rows.duckdb" })
      assert.isFalse(withFile.datasets.uploadsInDatabase)
      assert.deepStrictEqual(withFile.datasets.duckdbPath, Option.some("/var/lib/analytics/rows.duckdb"))
      for (const store of ["memory", "pglite"]) {
        const config = yield* load({ ANALYTICS_STORE: store, ANALYTICS_DATA_DIR: "/data" })
        assert.isFalse(config.datasets.uploadsInDatabase, store)
        assert.deepStrictEqual(config.datasets.duckdbPath, Option.some(store === "memory" ? ":memory:" : "/data/analytics.duckdb"))
      }
    }))
})
