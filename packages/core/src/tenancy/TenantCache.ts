/**
 * Tenants as the request path reads them: by id, cached for a short while,
 * so every request can check that its principal's tenant exists (and later
 * read its plan) without a store round trip. Absent tenants are not cached,
 * so a tenant is usable the moment it is provisioned, and an updated tenant
 * is dropped as soon as the store reports the change (a plan change takes
 * effect on the tenant's next request).
 *
 * @since 0.1.0
 */
import { Cache, Clock, Context, Effect, Exit, Layer, Stream } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import * as HitPath from "../platform/HitPath.ts"
import type { Tenant, TenantId } from "./Tenant.ts"
import { TenantStore } from "./TenantStore.ts"

/** How long a tenant read from the store is reused. */
export const cacheMillis = 30_000

const cacheCapacity = 10_000

/** Cached tenant reads. */
export class TenantCache extends Context.Service<TenantCache, {
  readonly get: (tenantId: TenantId) => Effect.Effect<Tenant | undefined, StoreError>
}>()("@analytics/core/TenantCache") {
  /** The cache over the TenantStore. */
  static readonly layer = Layer.effect(
    TenantCache,
    Effect.gen(function*() {
      const store = yield* TenantStore
      // The per-request hit path (decision 0008): every authenticated request reads its tenant, and a plain Map answers
      // in one step where the cache runs several; the cache still shares the lookups of a miss.
      const hits = HitPath.make<TenantId, Tenant>(cacheCapacity)
      const cache = yield* Cache.makeWith((tenantId: TenantId) => HitPath.answer(hits, cacheMillis, store.findTenant(tenantId)), {
        capacity: cacheCapacity,
        // Only found tenants are kept: absent ones and failures are asked again next time.
        timeToLive: (exit) => (Exit.isSuccess(exit) && exit.value.value !== undefined ? cacheMillis : 0)
      })
      const changes = yield* store.changes
      // The cache first, then the hit path: a request between the two steps can only find the cache's fresh answers, and
      // whatever it keeps in the hit path is dropped by the second step.
      yield* Effect.forkScoped(Stream.runForEach(changes, (tenantId) =>
        Effect.andThen(Cache.invalidate(cache, tenantId), Effect.sync(() => hits.invalidate(tenantId)))))
      return {
        get: (tenantId) =>
          Clock.clockWith((clock) => {
            const known = hits.get(tenantId, clock.currentTimeMillisUnsafe())
            return known !== undefined ? Effect.succeed(known) : HitPath.lookUp(hits, cache, tenantId)
          })
      }
    })
  )
}
