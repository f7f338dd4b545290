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
import { Cache, Context, Effect, Exit, Layer, Stream } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { Tenant, TenantId } from "./Tenant.ts"
import { TenantStore } from "./TenantStore.ts"

/** How long a tenant read from the store is reused. */
export const cacheMillis = 30_000

/** Cached tenant reads. */
export class TenantCache extends Context.Service<TenantCache, {
  readonly get: (tenantId: TenantId) => Effect.Effect<Tenant | undefined, StoreError>
}>()("@analytics/core/TenantCache") {
  /** The cache over the TenantStore. */
  static readonly layer = Layer.effect(
    TenantCache,
    Effect.gen(function*() {
      const store = yield* TenantStore
      const cache = yield* Cache.makeWith((tenantId: TenantId) => store.findTenant(tenantId), {
        capacity: 10_000,
        // Only found tenants are kept: absent ones and failures are asked again next time.
        timeToLive: (exit) => (Exit.isSuccess(exit) && exit.value !== undefined ? cacheMillis : 0)
      })
      const changes = yield* store.changes
      yield* Effect.forkScoped(Stream.runForEach(changes, (tenantId) => Cache.invalidate(cache, tenantId)))
      return { get: (tenantId) => Cache.get(cache, tenantId) }
    })
  )
}
