import { type Dataset, DatasetStore, DeliveryStore, type Tenant, TenantStore, type Webhook, type Workspace, WorkspaceStore } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { SqlStores } from "../src/index.ts"

const tenantId = "00000000-0000-4000-8000-000000000001" as Tenant.TenantId
const workspaceId = "00000000-0000-4000-8000-000000000002" as Workspace.WorkspaceId
const datasetId = "00000000-0000-4000-8000-000000000003" as Dataset.DatasetId
const webhookId = "00000000-0000-4000-8000-000000000004" as Webhook.WebhookId
const badAttemptsId = "00000000-0000-4000-8000-000000000005" as Webhook.DeliveryId
const badBodyId = "00000000-0000-4000-8000-000000000006" as Webhook.DeliveryId

/** The failure of `effect`, which must be a StoreError naming `operation` (not a value, nor a defect). */
const storeErrorOf = <A, E>(effect: Effect.Effect<A, E>, operation: string) =>
  Effect.gen(function*() {
    const error = yield* Effect.flip(effect)
    assert.strictEqual((error as { readonly _tag?: string })._tag, "StoreError")
    assert.strictEqual((error as { readonly operation?: string }).operation, operation)
  })

// On an in-memory PGlite, where raw SQL can put in rows no store writes.
describe("rows of the wrong shape", () => {
  it.effect("fail their query with a StoreError naming it, not a wrong value", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const workspaces = yield* WorkspaceStore.WorkspaceStore
      const tenants = yield* TenantStore.TenantStore
      const datasets = yield* DatasetStore.DatasetStore
      const deliveries = yield* DeliveryStore.DeliveryStore
      // Rows no store writes, put in by raw SQL (a constraint relaxed for the NULL).
      yield* sql`INSERT INTO tenants (tenant_id, name, plan, limits, created_at)
        VALUES (${tenantId}, 't', 'custom', '{"burst": "many"}'::jsonb, now())`
      yield* sql`ALTER TABLE workspaces ALTER COLUMN name DROP NOT NULL`
      yield* sql`INSERT INTO workspaces (workspace_id, tenant_id, name, description, created_at)
        VALUES (${workspaceId}, ${tenantId}, NULL, NULL, now())`
      yield* sql`INSERT INTO datasets (dataset_id, tenant_id, workspace_id, name, source, model, columns, created_at, updated_at)
        VALUES (${datasetId}, ${tenantId}, ${workspaceId}, 'd', '{"type": "upload"}'::jsonb, '{}'::jsonb,
          '"not columns"'::jsonb, now(), now())`
      yield* sql`INSERT INTO webhooks (webhook_id, tenant_id, url, events, enabled, owner_user_id, secret, created_at, updated_at)
        VALUES (${webhookId}, ${tenantId}, 'https://example.com', '{}', true, 'u', 's', now(), now())`
      yield* sql`INSERT INTO webhook_deliveries (delivery_id, tenant_id, webhook_id, event_type, body, status, attempts,
          created_at, updated_at)
        VALUES (${badAttemptsId}, ${tenantId}, ${webhookId}, 'e', '{}', 'failed',
          '[{"attempted_at": "not a time", "status_code": null, "latency_ms": 1, "error": "x"}]'::jsonb, now(), now()),
          (${badBodyId}, ${tenantId}, ${webhookId}, 'e', 'not json', 'failed', '[]'::jsonb, now(), now())`

      yield* storeErrorOf(workspaces.find(tenantId, workspaceId), "WorkspaceStore.find")
      yield* storeErrorOf(tenants.findTenant(tenantId), "TenantStore.findTenant")
      yield* storeErrorOf(datasets.find(tenantId, datasetId), "DatasetStore.find")
      yield* storeErrorOf(deliveries.find(tenantId, webhookId, badAttemptsId), "DeliveryStore.find")
      yield* storeErrorOf(deliveries.find(tenantId, webhookId, badBodyId), "DeliveryStore.find")
    }).pipe(Effect.provide(Layer.orDie(SqlStores.layerPglite())), Effect.scoped), 60_000)
})
