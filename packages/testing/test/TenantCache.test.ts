import { Tenant, TenantCache, TenantStore } from "@analytics/core"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"

/** Whether reads are held after the store answers (`reached` then), until `release`. */
interface Hold {
  holding: boolean
  /** Whether the read waits a step before it says it is reached (else the test resumes within the lookup's first step). */
  readonly yieldFirst: boolean
  readonly reached: Deferred.Deferred<void>
  readonly release: Deferred.Deferred<void>
}

/** Memory tenant store that counts reads (and holds them when told), and the cache over it. */
const setup = (reads: { count: number }, hold?: Hold) => {
  const store = Layer.effect(
    TenantStore.TenantStore,
    Effect.map(MemoryStores.tenantStore, (s) => ({
      ...s,
      findTenant: (id: Tenant.TenantId) =>
        Effect.flatMap(Effect.suspend(() => (reads.count++, s.findTenant(id))), (found) =>
          hold?.holding === true
            ? Effect.andThen(
              hold.yieldFirst ? Effect.yieldNow : Effect.void,
              Effect.andThen(Deferred.succeed(hold.reached, undefined), Effect.as(Deferred.await(hold.release), found))
            )
            : Effect.succeed(found))
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

  it.effect("a changed tenant is read afresh on its next get", () => {
    const reads = { count: 0 }
    return Effect.gen(function*() {
      const cache = yield* TenantCache.TenantCache
      const store = yield* TenantStore.TenantStore
      yield* store.insertTenant(tenant)
      for (let i = 0; i < 3; i++) assert.strictEqual((yield* cache.get(tenant.tenant_id))?.plan, "scale")
      assert.strictEqual(reads.count, 1)
      assert.isTrue(yield* store.updateTenant(new Tenant.Tenant({ ...tenant, plan: "starter" })))
      yield* Effect.yieldNow // the announcement is handled by a fiber of its own
      assert.strictEqual((yield* cache.get(tenant.tenant_id))?.plan, "starter")
      assert.strictEqual((yield* cache.get(tenant.tenant_id))?.plan, "starter")
      assert.strictEqual(reads.count, 2)
    }).pipe(Effect.provide(setup(reads)))
  })

  // "as it starts": the store answers, and the change lands, before the cache has recorded the read (the test resumes
  // within the read's first step); "while it waits": the cache holds the read in flight when the change lands.
  for (const when of ["as it starts", "while it waits"] as const) {
    it.effect(`a read in flight when its tenant changes (${when}) answers its own request, and is not reused for the next`, () => {
      const reads = { count: 0 }
      const hold: Hold = { holding: false, yieldFirst: when === "while it waits", reached: Deferred.makeUnsafe(), release: Deferred.makeUnsafe() }
      return Effect.gen(function*() {
        const cache = yield* TenantCache.TenantCache
        const store = yield* TenantStore.TenantStore
        yield* store.insertTenant(tenant)
        hold.holding = true
        const inFlight = yield* Effect.forkChild(cache.get(tenant.tenant_id))
        yield* Deferred.await(hold.reached)
        hold.holding = false
        assert.isTrue(yield* store.updateTenant(new Tenant.Tenant({ ...tenant, plan: "starter" })))
        for (let i = 0; i < 10; i++) yield* Effect.yieldNow // the announcement is handled by a fiber of its own
        yield* Deferred.succeed(hold.release, undefined)
        // Begun before the change, it answers with what the store said then.
        assert.strictEqual((yield* Fiber.join(inFlight))?.plan, "scale")
        assert.strictEqual((yield* cache.get(tenant.tenant_id))?.plan, "starter")
        assert.strictEqual((yield* cache.get(tenant.tenant_id))?.plan, "starter")
        assert.strictEqual(reads.count, 2, "read again once, then kept")
      }).pipe(Effect.provide(setup(reads, hold)))
    })
  }
})
