import { Tenant, TenantStore } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import * as path from "node:path"
import * as SqlClient from "effect/sql/SqlClient"
import { Migrations, PgliteClient, SqlStores } from "../src/index.ts"
import { databaseUrl, freshDatabase, skippedForNoPostgres, tempDir } from "@analytics/testing/postgres"

/** Every migration, in order, as `migrate` reports them. */
const applied = Object.keys(Migrations.migrations).map((id) => {
  const [n, ...name] = id.split("_")
  return [Number(n), name.join("_")] as const
})

const recorded = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ readonly migration_id: number }>`SELECT migration_id FROM analytics_migrations ORDER BY migration_id`)

describe("migrations: pglite", () => {
  it.live("a second run is a no-op", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Migrations.migrate, applied)
      assert.deepStrictEqual(yield* Migrations.migrate, [])
      assert.deepStrictEqual(yield* recorded, applied.map(([migration_id]) => ({ migration_id })))
    }).pipe(Effect.provide(PgliteClient.layer())), { timeout: 60_000 })

  it.live("a data dir (parents created) keeps a tenant across two layer builds", () =>
    Effect.gen(function*() {
      const dataDir = path.join(yield* tempDir("analytics-pglite-"), "nested", "pgdata")
      const tenant = new Tenant.Tenant({
        tenant_id: "019a0000-0000-7000-8000-000000000001" as Tenant.TenantId,
        name: "Persisted",
        plan: "scale",
        created_at: new Date(1_767_225_600_987)
      })
      yield* Effect.flatMap(TenantStore.TenantStore, (store) => store.insertTenant(tenant)).pipe(
        Effect.provide(SqlStores.layerPglite({ dataDir }))
      )
      const [found, rerun] = yield* Effect.all([
        Effect.flatMap(TenantStore.TenantStore, (store) => store.findTenant(tenant.tenant_id)),
        Migrations.migrate
      ]).pipe(Effect.provide(SqlStores.layerPglite({ dataDir })))
      assert.deepStrictEqual(found, tenant)
      assert.deepStrictEqual(rerun, [])
    }).pipe(Effect.scoped), { timeout: 60_000 })
})

if (databaseUrl === "") {
  describe.skip(`migrations: postgresql ${skippedForNoPostgres}`, () => {})
} else {
  /** A pool of its own per use, as a separate process would have. */
  const client = (url: string) => PgClient.layer({ url: Redacted.make(url) })

  describe("migrations: postgresql", () => {
    it.live("a second run is a no-op", () =>
      Effect.gen(function*() {
        const url = yield* freshDatabase(databaseUrl)
        yield* Effect.gen(function*() {
          assert.deepStrictEqual(yield* Migrations.migrate, applied)
          assert.deepStrictEqual(yield* Migrations.migrate, [])
          assert.deepStrictEqual(yield* recorded, applied.map(([migration_id]) => ({ migration_id })))
        }).pipe(Effect.provide(client(url)))
      }).pipe(Effect.scoped))

    it.live("concurrent runs from separate pools all succeed, and one applies", () =>
      Effect.gen(function*() {
        // Several rounds on fresh databases: the race is in creating the first tables.
        for (let round = 0; round < 3; round++) {
          const url = yield* freshDatabase(databaseUrl)
          const results = yield* Effect.all(
            Array.from({ length: 4 }, () => Effect.provide(Migrations.migrate, client(url))),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(results.filter((r) => r.length > 0), [applied])
          assert.deepStrictEqual(yield* Effect.provide(recorded, client(url)), applied.map(([migration_id]) => ({ migration_id })))
        }
      }).pipe(Effect.scoped))
  })
}
