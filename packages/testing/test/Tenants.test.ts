import { ApiToken, Authenticator, DirectoryStore, Ids, Tenant, TenantStore, Tenants, Transactor } from "@analytics/core"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { TestClock } from "effect/testing"

/** Memory stores, the authenticator over them, and a log of every tenant ever inserted (rolled back or not). */
const setup = (inserted: Array<Tenant.TenantId> = []) => {
  const tenantStore = Effect.map(MemoryStores.tenantStore, (store) =>
    TenantStore.TenantStore.of({
      ...store,
      // yielding lets concurrent racers interleave here, as they would over a network store
      insertTenant: (tenant) =>
        Effect.suspend(() => (inserted.push(tenant.tenant_id), Effect.andThen(Effect.yieldNow, store.insertTenant(tenant))))
    }))
  const stores = Layer.mergeAll(
    Layer.effect(TenantStore.TenantStore, tenantStore),
    Layer.effect(DirectoryStore.DirectoryStore, MemoryStores.directoryStore),
    Layer.succeed(Transactor.Transactor, MemoryStores.transactor)
  )
  return Layer.merge(Authenticator.layerTokens({ operatorToken: Option.none() }).pipe(Layer.provide(stores)), stores)
}

const run = <A, E>(effect: Effect.Effect<A, E, Authenticator.Authenticator | TenantStore.TenantStore | DirectoryStore.DirectoryStore | Transactor.Transactor>, inserted?: Array<Tenant.TenantId>) =>
  Effect.provide(effect, setup(inserted))

const authenticate = (token: string) =>
  Effect.flatMap(Authenticator.Authenticator, (auth) => auth.authenticate(Redacted.make(token)))

describe("Tenants.provision", () => {
  it.effect("creates a tenant, stamped with the clock, whose admin token authenticates to it", () =>
    run(Effect.gen(function*() {
      yield* TestClock.setTime(1_767_225_600_987)
      const { tenant, token } = yield* Tenants.provision({ name: "Acme", plan: "growth" })
      assert.strictEqual(tenant.name, "Acme")
      assert.strictEqual(tenant.plan, "growth")
      assert.strictEqual(tenant.created_at.getTime(), 1_767_225_600_987)
      assert.isTrue(Schema.is(Ids.Uuid)(tenant.tenant_id))
      assert.match(token, /^ast_[A-Za-z0-9_-]{43}$/)
      const store = yield* TenantStore.TenantStore
      assert.deepStrictEqual(yield* store.findTenant(tenant.tenant_id), tenant)
      // only the hash is stored
      assert.isUndefined(yield* store.findTokenByHash(token))
      const record = yield* store.findTokenByHash(yield* ApiToken.hash(token))
      assert.strictEqual(record?.tenantId, tenant.tenant_id)
      const principal = yield* authenticate(token)
      assert.strictEqual(principal._tag, "Member")
      if (principal._tag === "Member") {
        assert.strictEqual(principal.tenantId, tenant.tenant_id)
        assert.strictEqual(principal.userId, `admin@${tenant.tenant_id}`)
        assert.isNull(principal.email)
        assert.deepStrictEqual(principal.roles, Tenants.adminRoles)
        assert.deepStrictEqual(principal.roles, ["admin"])
      }
    })))

  it.effect("two provisions give two tenants with their own tokens", () =>
    run(Effect.gen(function*() {
      const a = yield* Tenants.provision({ name: "Acme", plan: "starter" })
      const b = yield* Tenants.provision({ name: "Acme", plan: "scale" })
      assert.notStrictEqual(a.tenant.tenant_id, b.tenant.tenant_id)
      assert.notStrictEqual(a.token, b.token)
      const asA = yield* authenticate(a.token)
      const asB = yield* authenticate(b.token)
      assert.isTrue(asA._tag === "Member" && asA.tenantId === a.tenant.tenant_id)
      assert.isTrue(asB._tag === "Member" && asB.tenantId === b.tenant.tenant_id)
    })))
})

describe("Tenants.ensureBootstrap", () => {
  const input = { token: "ast_bootstrap-token-for-tests", plan: "custom", name: "Bootstrap" } as const

  it.effect("twice gives one tenant, whose admin token is the bootstrap token", () => {
    const inserted: Array<Tenant.TenantId> = []
    return run(
      Effect.gen(function*() {
        const first = yield* Tenants.ensureBootstrap(input)
        const second = yield* Tenants.ensureBootstrap(input)
        assert.strictEqual(second, first)
        assert.deepStrictEqual(inserted, [first])
        const tenant = yield* (yield* TenantStore.TenantStore).findTenant(first)
        assert.strictEqual(tenant?.name, "Bootstrap")
        assert.strictEqual(tenant?.plan, "custom")
        const principal = yield* authenticate(input.token)
        assert.isTrue(principal._tag === "Member" && principal.tenantId === first)
      }),
      inserted
    )
  })

  it.effect("concurrently gives one tenant id, and no other tenant survives", () => {
    const inserted: Array<Tenant.TenantId> = []
    return run(
      Effect.gen(function*() {
        const ids = yield* Effect.all(Array.from({ length: 8 }, () => Tenants.ensureBootstrap(input)), {
          concurrency: "unbounded"
        })
        assert.strictEqual(new Set(ids).size, 1)
        const store = yield* TenantStore.TenantStore
        // every tenant a losing racer inserted was rolled back with its transaction
        const surviving: Array<Tenant.TenantId> = []
        for (const id of inserted) if ((yield* store.findTenant(id)) !== undefined) surviving.push(id)
        assert.deepStrictEqual(surviving, [ids[0]])
        // the racers really raced: several created a tenant before one stored the token
        assert.isAbove(inserted.length, 1)
        const principal = yield* authenticate(input.token)
        assert.isTrue(principal._tag === "Member" && principal.tenantId === ids[0])
      }),
      inserted
    )
  })

  it.effect("another bootstrap token gives another tenant", () =>
    run(Effect.gen(function*() {
      const a = yield* Tenants.ensureBootstrap(input)
      const b = yield* Tenants.ensureBootstrap({ ...input, token: "ast_another-bootstrap-token" })
      assert.notStrictEqual(a, b)
    })))
})
