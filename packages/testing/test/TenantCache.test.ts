import { Tenant, TenantCache, TenantStore } from "@analytics/core"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"

/** Memory tenant store that counts reads, and the cache over it. */
const setup = (reads: { count: number }) => {
  const store = Layer.effect(
    TenantStore.TenantStore,
    Effect.map(MemoryStores.tenantStore, (s) => ({
      ...s,
      findTenant: (id: Tenant.TenantId) => Effect.suspend(() => (reads.count++, s.findTenant(id)))
    }))
  )
  return Layer.provideMerge(TenantCache.TenantCache.layer, store)
}

const tenant = new Tenant.Tenant({
  tenant_id: "019a0000-0000-7000-8000-0000000000aa" as Tenant.TenantId,
  name: "Acme",
  plan: "scale",
  created_at: new Date(0)
})

describe("TenantCache", () => {
  it.effect("reuses a tenant for 30 s, never caches an absent one", () => {
    const reads = { count: 0 }
    return Effect.gen(function*() {
      const cache = yield* TenantCache.TenantCache
      assert.strictEqual(yield* cache.get(tenant.tenant_id), undefined)
      yield* (yield* TenantStore.TenantStore).insertTenant(tenant)
      assert.deepStrictEqual(yield* cache.get(tenant.tenant_id), tenant, "absent results are not cached")
      assert.strictEqual(reads.count, 2)
      yield* TestClock.adjust(TenantCache.cacheMillis - 1)
      assert.deepStrictEqual(yield* cache.get(tenant.tenant_id), tenant)
      assert.strictEqual(reads.count, 2, "served from the cache")
      yield* TestClock.adjust(1)
      yield* cache.get(tenant.tenant_id)
      assert.strictEqual(reads.count, 3, "read again once the entry is 30 s old")
    }).pipe(Effect.provide(setup(reads)))
  })
})
