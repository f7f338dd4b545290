import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { TestClock } from "effect/testing"
import * as ApiToken from "../src/tenancy/ApiToken.ts"
import { Authenticator, layerTokens } from "../src/auth/Authenticator.ts"
import { DirectoryStore } from "../src/directory/DirectoryStore.ts"
import { Uuid } from "../src/platform/Ids.ts"
import type { TenantId } from "../src/tenancy/Tenant.ts"
import { adminRoles, ensureBootstrap, provision } from "../src/tenancy/Tenants.ts"
import { TenantStore } from "../src/tenancy/TenantStore.ts"
import { Transactor } from "../src/platform/Transactor.ts"

/** Memory stores, the authenticator over them, and a log of every tenant ever inserted (rolled back or not). */
const setup = (inserted: Array<TenantId> = []) => {
  const tenantStore = Effect.map(MemoryStores.tenantStore, (store) =>
    TenantStore.of({
      ...store,
      // yielding lets concurrent racers interleave here, as they would over a network store
      insertTenant: (tenant) =>
        Effect.suspend(() => (inserted.push(tenant.tenant_id), Effect.andThen(Effect.yieldNow, store.insertTenant(tenant))))
    }))
  const stores = Layer.mergeAll(
    Layer.effect(TenantStore, tenantStore),
    Layer.effect(DirectoryStore, MemoryStores.directoryStore),
    Layer.succeed(Transactor, MemoryStores.transactor)
  )
  return Layer.merge(layerTokens({ operatorToken: Option.none() }).pipe(Layer.provide(stores)), stores)
}

const run = <A, E>(effect: Effect.Effect<A, E, Authenticator | TenantStore | DirectoryStore | Transactor>, inserted?: Array<TenantId>) =>
  Effect.provide(effect, setup(inserted))

const authenticate = (token: string) =>
  Effect.flatMap(Authenticator, (auth) => auth.authenticate(Redacted.make(token)))

describe("Tenants.provision", () => {
  it.effect("creates a tenant, stamped with the clock, whose admin token authenticates to it", () =>
    run(Effect.gen(function*() {
      yield* TestClock.setTime(1_767_225_600_987)
      const { tenant, token } = yield* provision({ name: "Acme", plan: "growth" })
      assert.strictEqual(tenant.name, "Acme")
      assert.strictEqual(tenant.plan, "growth")
      assert.strictEqual(tenant.created_at.getTime(), 1_767_225_600_987)
      assert.isTrue(Schema.is(Uuid)(tenant.tenant_id))
      assert.match(token, /^ast_[A-Za-z0-9_-]{43}$/)
      const store = yield* TenantStore
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
        assert.deepStrictEqual(principal.roles, adminRoles)
        assert.deepStrictEqual(principal.roles, ["admin"])
      }
    })))

  it.effect("two provisions give two tenants with their own tokens", () =>
    run(Effect.gen(function*() {
      const a = yield* provision({ name: "Acme", plan: "starter" })
      const b = yield* provision({ name: "Acme", plan: "scale" })
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
    const inserted: Array<TenantId> = []
    return run(
      Effect.gen(function*() {
        const first = yield* ensureBootstrap(input)
        const second = yield* ensureBootstrap(input)
        assert.strictEqual(second, first)
        assert.deepStrictEqual(inserted, [first])
        const tenant = yield* (yield* TenantStore).findTenant(first)
        assert.strictEqual(tenant?.name, "Bootstrap")
        assert.strictEqual(tenant?.plan, "custom")
        const principal = yield* authenticate(input.token)
        assert.isTrue(principal._tag === "Member" && principal.tenantId === first)
      }),
      inserted
    )
  })

  it.effect("concurrently gives one tenant id, and no other tenant survives", () => {
    const inserted: Array<TenantId> = []
    return run(
      Effect.gen(function*() {
        const ids = yield* Effect.all(Array.from({ length: 8 }, () => ensureBootstrap(input)), {
          concurrency: "unbounded"
        })
        assert.strictEqual(new Set(ids).size, 1)
        const store = yield* TenantStore
        // every tenant a losing racer inserted was rolled back with its transaction
        const surviving: Array<TenantId> = []
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
      const a = yield* ensureBootstrap(input)
      const b = yield* ensureBootstrap({ ...input, token: "ast_another-bootstrap-token" })
      assert.notStrictEqual(a, b)
    })))
})
