import { ApiToken, Authenticator, Caller, DirectoryStore, Errors, Principal, Tenant, TenantCache, TenantStore, TenantTokens, User } from "@analytics/core"
import { MemoryStores } from "@analytics/adapter-memory"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Layer, Option, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { createHash } from "node:crypto"

const tenantA = "0199a1b2-0000-7000-8000-00000000000a" as Tenant.TenantId
const tenantB = "0199a1b2-0000-7000-8000-00000000000b" as Tenant.TenantId

const operatorToken = "ast_operator-token-for-tests-only"

/** Stores a token for a member and returns the token. */
const storeToken = (
  tenantId: Tenant.TenantId,
  userId: string,
  options: { readonly token?: string; readonly email?: string | null; readonly roles?: ReadonlyArray<string> } = {}
) =>
  Effect.gen(function*() {
    const store = yield* TenantStore.TenantStore
    const token = options.token ?? (yield* ApiToken.generate)
    const inserted = yield* store.insertToken({
      tokenId: `token-${userId}`,
      tenantId,
      tokenHash: yield* ApiToken.hash(token),
      userId,
      email: options.email === undefined ? `${userId}@example.com` : options.email,
      roles: options.roles ?? ["analyst"],
      createdAt: new Date(0)
    })
    assert.isTrue(inserted)
    return token
  })

const authenticate = (token: string) =>
  Effect.flatMap(Authenticator.Authenticator, (auth) => auth.authenticate(Redacted.make(token)))

/** The authenticator over fresh memory stores, the stores themselves exposed too. */
const setup = (operator: Option.Option<string>, store = MemoryStores.tenantStore) => {
  const stores = Layer.merge(Layer.effect(TenantStore.TenantStore, store), Layer.effect(DirectoryStore.DirectoryStore, MemoryStores.directoryStore))
  return Layer.merge(
    Authenticator.layerTokens({ operatorToken: Option.map(operator, (t) => Redacted.make(t)) }).pipe(Layer.provide(stores)),
    stores
  )
}

/** A memory TenantStore counting its token lookups. */
const countingLookups = () => {
  let count = 0
  const counting = Effect.map(MemoryStores.tenantStore, (store) =>
    TenantStore.TenantStore.of({
      ...store,
      findTokenByHash: (hash) => Effect.suspend(() => (count++, store.findTokenByHash(hash)))
    }))
  return { counting, lookups: () => count }
}

const withOperator = <A, E>(effect: Effect.Effect<A, E, Authenticator.Authenticator | TenantStore.TenantStore | DirectoryStore.DirectoryStore>) =>
  Effect.provide(effect, setup(Option.some(operatorToken)))
const withoutOperator = <A, E>(effect: Effect.Effect<A, E, Authenticator.Authenticator | TenantStore.TenantStore | DirectoryStore.DirectoryStore>) =>
  Effect.provide(effect, setup(Option.none()))

describe("ApiToken", () => {
  it.effect("generate gives `ast_` and 43 base64url characters (256 bits)", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 50; i++) {
        const token = yield* ApiToken.generate
        assert.match(token, /^ast_[A-Za-z0-9_-]{43}$/)
        assert.isTrue(token.startsWith(ApiToken.tokenPrefix))
      }
    }))

  it.effect("two generated tokens differ", () =>
    Effect.gen(function*() {
      const tokens = new Set<string>()
      for (let i = 0; i < 100; i++) tokens.add(yield* ApiToken.generate)
      assert.strictEqual(tokens.size, 100)
    }))

  it.effect("hash is the lowercase hex SHA-256 of the token", () =>
    Effect.gen(function*() {
      const token = yield* ApiToken.generate
      const hash = yield* ApiToken.hash(token)
      assert.strictEqual(hash, createHash("sha256").update(token).digest("hex"))
      assert.strictEqual(yield* ApiToken.hash(token), hash)
      assert.notStrictEqual(yield* ApiToken.hash(`${token}x`), hash)
    }))
})

describe("Authenticator.layerTokens", () => {
  it.effect("a stored token authenticates to its own member", () =>
    withOperator(Effect.gen(function*() {
      const ana = yield* storeToken(tenantA, "ana", { roles: ["admin", "analyst"] })
      const bob = yield* storeToken(tenantB, "bob", { email: null, roles: [] })
      const asAna = yield* authenticate(ana)
      assert.strictEqual(asAna._tag, "Member")
      if (asAna._tag === "Member") {
        assert.strictEqual(asAna.tenantId, tenantA)
        assert.strictEqual(asAna.userId, "ana")
        assert.strictEqual(asAna.email, "ana@example.com")
        assert.deepStrictEqual(asAna.roles, ["admin", "analyst"])
      }
      const asBob = yield* authenticate(bob)
      assert.strictEqual(asBob._tag, "Member")
      if (asBob._tag === "Member") {
        assert.strictEqual(asBob.tenantId, tenantB)
        assert.strictEqual(asBob.userId, "bob")
        assert.isNull(asBob.email)
        assert.deepStrictEqual(asBob.roles, [])
      }
      // again, from the cache
      const again = yield* authenticate(ana)
      assert.isTrue(again._tag === "Member" && again.tenantId === tenantA && again.userId === "ana")
    })))

  it.effect("unknown, empty, altered and over-long tokens give Unauthenticated", () =>
    withOperator(Effect.gen(function*() {
      const stored = yield* storeToken(tenantA, "ana")
      const long = `ast_${"a".repeat(596)}`
      assert.strictEqual(long.length, 600)
      yield* storeToken(tenantA, "long", { token: long })
      const rejected = [
        yield* ApiToken.generate,
        "",
        long,
        stored.toUpperCase(),
        `${stored} `,
        ` ${stored}`,
        stored.slice(0, -1),
        `Bearer ${stored}`,
        stored.slice(4),
        `${operatorToken}x`,
        yield* ApiToken.hash(stored)
      ]
      for (const token of rejected) {
        const error = yield* Effect.flip(authenticate(token))
        assert.strictEqual(error._tag, "Unauthenticated", JSON.stringify(token.slice(0, 40)))
        if (error._tag === "Unauthenticated") assert.strictEqual(error.code, "auth/unauthenticated")
      }
      // the stored one still works
      assert.strictEqual((yield* authenticate(stored))._tag, "Member")
    })))

  it.effect("authenticateToken answers every token as authenticate does, without a Redacted wrapper", () =>
    withOperator(Effect.gen(function*() {
      const auth = yield* Authenticator.Authenticator
      const byToken = auth.authenticateToken
      assert.isDefined(byToken)
      const ana = yield* storeToken(tenantA, "ana")
      const bo = yield* storeToken(tenantB, "bo", { roles: ["admin"] })
      const tokens = [ana, bo, operatorToken, "", `${ana}x`, `ast_${"d".repeat(509)}`, yield* ApiToken.generate]
      for (const token of tokens) {
        const wrapped = yield* Effect.result(authenticate(token))
        const plain = yield* Effect.result(byToken!(token))
        // Members compare by value; a refusal by its tag and detail.
        assert.deepStrictEqual(JSON.parse(JSON.stringify(plain)), JSON.parse(JSON.stringify(wrapped)), token.slice(0, 20))
      }
      assert.strictEqual((yield* byToken!(bo))._tag, "Member")
      assert.strictEqual((yield* byToken!(operatorToken))._tag, "Operator")
    })))

  it.effect("Caller.resolver wraps the token for an authenticator without authenticateToken (an embedding app's own)", () => {
    const seen: Array<unknown> = []
    const own = Layer.succeed(Authenticator.Authenticator, {
      authenticate: (credential: Redacted.Redacted<string>) => {
        seen.push(credential)
        return Redacted.value(credential) === "theirs"
          ? Effect.succeed(new Principal.Member({ tenantId: tenantA, userId: "u1", email: null, roles: ["analyst"] }))
          : Effect.fail(new Errors.Unauthenticated({ detail: "not theirs" }))
      }
    })
    const tenants = TenantCache.TenantCache.layer.pipe(Layer.provide(Layer.effect(TenantStore.TenantStore, MemoryStores.tenantStore)))
    return Effect.gen(function*() {
      const resolve = yield* Caller.resolver
      const caller = yield* resolve("theirs")
      assert.isTrue(caller.principal._tag === "Member" && caller.principal.userId === "u1")
      assert.strictEqual((yield* Effect.flip(resolve("other")))._tag, "Unauthenticated")
      assert.strictEqual(seen.length, 2)
      assert.isTrue(seen.every((credential) => Redacted.isRedacted(credential)))
    }).pipe(Effect.provide(Layer.merge(own, tenants)))
  })

  it.effect("tokens up to 512 characters are looked up, longer ones are not", () =>
    withOperator(Effect.gen(function*() {
      const at512 = `ast_${"b".repeat(508)}`
      const at513 = `ast_${"c".repeat(509)}`
      yield* storeToken(tenantA, "u512", { token: at512 })
      yield* storeToken(tenantA, "u513", { token: at513 })
      assert.strictEqual((yield* authenticate(at512))._tag, "Member")
      assert.strictEqual((yield* Effect.flip(authenticate(at513)))._tag, "Unauthenticated")
    })))

  it.effect("the operator token authenticates as the Operator", () =>
    withOperator(Effect.gen(function*() {
      const principal = yield* authenticate(operatorToken)
      assert.strictEqual(principal._tag, "Operator")
      // member tokens still work next to it
      assert.strictEqual((yield* authenticate(yield* storeToken(tenantA, "ana")))._tag, "Member")
    })))

  it.effect("with no operator configured, the operator token is rejected", () =>
    withoutOperator(Effect.gen(function*() {
      const error = yield* Effect.flip(authenticate(operatorToken))
      assert.strictEqual(error._tag, "Unauthenticated")
      assert.strictEqual((yield* Effect.flip(authenticate("")))._tag, "Unauthenticated")
      assert.strictEqual((yield* authenticate(yield* storeToken(tenantA, "ana")))._tag, "Member")
    })))

  it.effect("a verified token is remembered for 30 seconds, then looked up again", () => {
    const { counting, lookups } = countingLookups()
    return Effect.provide(
      Effect.gen(function*() {
        const token = yield* storeToken(tenantA, "ana")
        yield* authenticate(token)
        assert.strictEqual(lookups(), 1)
        yield* TestClock.adjust(Duration.millis(29_999))
        yield* authenticate(token)
        assert.strictEqual(lookups(), 1)
        yield* TestClock.adjust(Duration.millis(1))
        yield* authenticate(token)
        assert.strictEqual(lookups(), 2)
        // unknown tokens are never cached
        const unknown = yield* ApiToken.generate
        yield* Effect.flip(authenticate(unknown))
        yield* Effect.flip(authenticate(unknown))
        assert.strictEqual(lookups(), 4)
        // the operator and malformed tokens never reach the store
        yield* authenticate(operatorToken)
        yield* Effect.flip(authenticate(""))
        yield* Effect.flip(authenticate("x".repeat(600)))
        assert.strictEqual(lookups(), 4)
      }),
      setup(Option.some(operatorToken), counting)
    )
  })

  it.effect("a removed token is refused on its next use, not after the cache's 30 seconds", () =>
    withOperator(Effect.gen(function*() {
      const store = yield* TenantStore.TenantStore
      const token = yield* storeToken(tenantA, "ana")
      const other = yield* storeToken(tenantB, "bob")
      yield* authenticate(token)
      yield* authenticate(other)
      assert.isTrue(yield* store.removeToken(tenantA, "token-ana"))
      yield* Effect.yieldNow // the announcement is handled by a fiber of its own
      assert.strictEqual((yield* Effect.flip(authenticate(token)))._tag, "Unauthenticated")
      assert.strictEqual((yield* authenticate(other))._tag, "Member")
    })))

  // "as it starts": the store answers, and the removal lands, before the cache has recorded the lookup (the test resumes
  // within the lookup's first step); "while it waits": the cache holds the lookup in flight when the removal lands.
  for (const when of ["as it starts", "while it waits"] as const) {
    it.effect(`a lookup in flight when its token is removed (${when}) answers its own request, and is not reused for the next`, () => {
      // The store's answer is read, then held until the test lets it go: the removal and its announcement happen meanwhile.
      const held = { reached: Deferred.makeUnsafe<void>(), release: Deferred.makeUnsafe<void>(), holding: false }
      const holding = Effect.map(MemoryStores.tenantStore, (store) =>
        TenantStore.TenantStore.of({
          ...store,
          findTokenByHash: (hash) =>
            Effect.flatMap(store.findTokenByHash(hash), (record) =>
              held.holding
                ? Effect.andThen(
                  when === "as it starts" ? Effect.void : Effect.yieldNow,
                  Effect.andThen(Deferred.succeed(held.reached, undefined), Effect.as(Deferred.await(held.release), record))
                )
                : Effect.succeed(record))
        }))
      return Effect.provide(
        Effect.gen(function*() {
          const store = yield* TenantStore.TenantStore
          const token = yield* storeToken(tenantA, "ana")
          held.holding = true
          const inFlight = yield* Effect.forkChild(authenticate(token))
          yield* Deferred.await(held.reached)
          held.holding = false
          assert.isTrue(yield* store.removeToken(tenantA, "token-ana"))
          for (let i = 0; i < 10; i++) yield* Effect.yieldNow // the announcement is handled by a fiber of its own
          yield* Deferred.succeed(held.release, undefined)
          // Begun before the removal, it answers with what the store said then.
          assert.strictEqual((yield* Fiber.join(inFlight))._tag, "Member")
          assert.strictEqual((yield* Effect.flip(authenticate(token)))._tag, "Unauthenticated")
          assert.strictEqual((yield* Effect.flip(authenticate(token)))._tag, "Unauthenticated")
        }),
        setup(Option.none(), holding)
      )
    })
  }

  it.effect("a remembered token is refused after a removal's announcement, over and over, and others are looked up again", () => {
    const { counting, lookups } = countingLookups()
    return Effect.provide(
      Effect.gen(function*() {
        const store = yield* TenantStore.TenantStore
        const token = yield* storeToken(tenantA, "ana")
        const other = yield* storeToken(tenantB, "bob")
        for (let i = 0; i < 3; i++) {
          assert.strictEqual((yield* authenticate(token))._tag, "Member")
          assert.strictEqual((yield* authenticate(other))._tag, "Member")
        }
        assert.strictEqual(lookups(), 2, "each token looked up once, then remembered")
        assert.isTrue(yield* store.removeToken(tenantA, "token-ana"))
        yield* Effect.yieldNow
        for (let i = 0; i < 3; i++) assert.strictEqual((yield* Effect.flip(authenticate(token)))._tag, "Unauthenticated")
        assert.strictEqual((yield* authenticate(other))._tag, "Member")
        assert.strictEqual((yield* authenticate(other))._tag, "Member")
        // Every token is forgotten on a change: the refused one is asked each time, the other once more.
        assert.strictEqual(lookups(), 2 + 3 + 1)
      }),
      setup(Option.none(), counting)
    )
  })

  it.effect("a user's personal token acts as the directory user of each request", () =>
    withOperator(Effect.gen(function*() {
      const directory = yield* DirectoryStore.DirectoryStore
      const now = new Date(0)
      const ana: User.User = {
        user_id: "0199a1b2-0000-7000-8000-0000000000a1" as User.UserId,
        tenant_id: tenantA,
        email: "ana@example.com",
        name: "Ana",
        status: "active",
        roles: ["member"],
        external_id: null,
        user_name: null,
        created_at: now,
        updated_at: now
      }
      assert.strictEqual(yield* directory.insertUser(ana), "written")
      const issued = yield* TenantTokens.issueForUser(ana)
      const first = yield* authenticate(issued.token)
      assert.isTrue(first._tag === "Member" && first.userId === ana.user_id && first.roles.join() === "member")
      // promoted: admin from the next request, though the token is cached
      assert.strictEqual(yield* directory.updateUser({ ...ana, roles: ["admin"] }), "written")
      const promoted = yield* authenticate(issued.token)
      assert.isTrue(promoted._tag === "Member" && promoted.roles.join() === "admin")
      // deprovisioned: refused from the next request
      assert.strictEqual(yield* directory.updateUser({ ...ana, status: "deprovisioned" }), "written")
      const refused = yield* Effect.flip(authenticate(issued.token))
      assert.strictEqual(refused._tag, "Unauthenticated")
      // and no new token is issued for them
      const deprovisioned = yield* Effect.flip(TenantTokens.issueForUser({ ...ana, status: "deprovisioned" }))
      assert.strictEqual(deprovisioned._tag, "UserDeprovisioned")
    })))
})
