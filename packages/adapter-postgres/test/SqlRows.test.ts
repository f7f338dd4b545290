import { TenantStore, WorkspaceStore } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { SqlStores } from "../src/index.ts"

const tenantId = "00000000-0000-4000-8000-000000000001"
const workspaceId = "00000000-0000-4000-8000-000000000002"

/** The failure of `effect`, which must be a StoreError naming `operation`. */
const storeErrorOf = <A, E>(effect: Effect.Effect<A, E>, operation: string) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(effect)
    assert.strictEqual((error as { readonly _tag?: string })._tag, "StoreError")
    assert.strictEqual((error as { readonly operation?: string }).operation, operation)
  })

describe("rows of the wrong shape", () => {
  it.effect("fail their query with a StoreError naming it, not a wrong value", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const workspaces = yield* WorkspaceStore.WorkspaceStore
      const tenants = yield* TenantStore.TenantStore
      // Rows no store writes: constraints relaxed to let raw SQL put them in.
      yield* sql`INSERT INTO tenants (tenant_id, name, plan, limits, created_at)
        VALUES (${tenantId}, 't', 'custom', '{"burst": "many"}'::jsonb, now())`
      yield* sql`ALTER TABLE workspaces ALTER COLUMN name DROP NOT NULL`
      yield* sql`INSERT INTO workspaces (workspace_id, tenant_id, name, description, created_at)
        VALUES (${workspaceId}, ${tenantId}, NULL, NULL, now())`

      yield* storeErrorOf(workspaces.find(tenantId as never, workspaceId as never), "WorkspaceStore.find")
      yield* storeErrorOf(tenants.findTenant(tenantId as never), "TenantStore.findTenant")
    }).pipe(Effect.provide(Layer.orDie(SqlStores.layerPglite())), Effect.scoped), 60_000)
})
