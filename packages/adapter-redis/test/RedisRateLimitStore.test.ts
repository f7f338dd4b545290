import { RateLimit, RateLimitStore, type TokenBucket } from "@analytics/core"
import { rateLimitStoreContract } from "@analytics/testing"
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Redis from "effect/persistence/Redis"
import { inject } from "vitest"
import { RedisRateLimitStore } from "../src/index.ts"

/** The test server's URL from the global setup, or "" when there is none. */
const redisUrl = inject("redisUrl")

/** Where these tests keep their keys, apart from the contract's. */
const keyPrefix = `test:${crypto.randomUUID()}:`

/** Sends one command on the test's own Redis connection. */
const redisCommand = <A>(command: string, ...args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    return yield* Effect.orDie(redis.send<A>(command, ...args))
  })

/** Calls per command name since the server started (commands run by scripts included). */
const commandCalls = Effect.gen(function*() {
  const info = yield* redisCommand<string>("INFO", "commandstats")
  const calls = new Map<string, number>()
  for (const [, name, count] of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) calls.set(name, Number(count))
  return calls
})

/** What the server ran while `effect` ran, by command, leaving out this test's own INFO. */
const commandsRunBy = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const before = yield* commandCalls
    yield* effect
    const after = yield* commandCalls
    const ran: Record<string, number> = {}
    for (const [name, count] of after) {
      if (name !== "info" && count !== (before.get(name) ?? 0)) ran[name] = count - (before.get(name) ?? 0)
    }
    return ran
  })

const now = Date.UTC(2026, 10, 21, 12, 0, 0)

if (redisUrl === "") {
  it.skip(
    "redis store contract: skipped because no redis-server is available (install Debian's redis-server or set TEST_REDIS_URL)"
  )
} else {
  rateLimitStoreContract("redis", RedisRateLimitStore.layerUrl(redisUrl))

  describe("RedisRateLimitStore", () => {
    // Live services: decisions take explicit instants, and the expiry test waits for Redis's own clock.
    // No clock skew allowance: keys expire exactly when their states decide like none.
    const storeAndRedis = RedisRateLimitStore.layer({ keyPrefix, clockSkewMillis: 0 }).pipe(
      Layer.provideMerge(NodeRedis.layer({ url: redisUrl }))
    )
    layer(storeAndRedis, { excludeTestServices: true })(
      (it) => {
        // Counts server-side, so it needs a server no one else uses meanwhile (the throwaway one, or TEST_REDIS_URL's).
        it.effect("one round trip per operation: an EVALSHA (a ZREM to release a slot), nothing else", () =>
          Effect.gen(function*() {
            const store = yield* RateLimitStore.RateLimitStore
            const quotas: ReadonlyArray<RateLimit.Quota> = [
              { name: "burst", key: "trips:burst", rule: RateLimit.bucket(100) },
              { name: "sustained", key: "trips:sustained", rule: RateLimit.window(1_000) }
            ]
            const everyOperation = Effect.gen(function*() {
              yield* store.consume(quotas, now)
              yield* store.refund(quotas, now, now)
              yield* store.acquireSlot("trips", "lease", 1, now, now + 60_000)
              yield* store.releaseSlot("trips", "lease")
            })
            yield* everyOperation // loads the scripts (SCRIPT LOAD, once per script and Redis service)
            const consumes = yield* commandsRunBy(Effect.repeat(store.consume(quotas, now), { times: 4 }))
            // The script's own GET and SET per quota are counted too; the client sent only the EVALSHAs.
            assert.deepStrictEqual(consumes, { evalsha: 5, get: 10, set: 10 })
            assert.deepStrictEqual(yield* commandsRunBy(store.refund(quotas, now, now)), { evalsha: 1, get: 2, set: 2 })
            assert.deepStrictEqual(yield* commandsRunBy(store.acquireSlot("trips", "lease", 1, now, now + 60_000)), {
              evalsha: 1,
              zremrangebyscore: 1,
              zscore: 1,
              zcard: 1,
              zadd: 1,
              zrange: 1,
              pexpire: 1
            })
            assert.deepStrictEqual(yield* commandsRunBy(store.releaseSlot("trips", "lease")), { zrem: 1 })
          }))

        // Paths the contract's random runs rarely take: its refunds follow the last write, and few of its
        // steps back in time cross a window boundary.
        it.effect("a refund into the previous window, a clock stepped back a window: like the memory store", () =>
          Effect.gen(function*() {
            const redis = yield* RateLimitStore.RateLimitStore
            const memory = RateLimitStore.makeMemory()
            const quotas: ReadonlyArray<RateLimit.Quota> = [
              { name: "w", key: "edges:window", rule: RateLimit.window(2, 10_000) },
              { name: "b", key: "edges:bucket", rule: RateLimit.bucket(2, 10_000) }
            ]
            const run = (store: RateLimitStore.RateLimitStore["Service"]) =>
              Effect.gen(function*() {
                yield* store.consume(quotas, now + 9_000)
                yield* store.consume(quotas, now + 12_000)
                yield* store.refund(quotas, now + 9_000, now + 13_000)
                const afterRefund = yield* store.consume(quotas, now + 14_000)
                const steppedBack = yield* store.consume(quotas, now + 9_500)
                return [afterRefund, steppedBack]
              })
            const expected = yield* run(memory)
            assert.isTrue(expected[0].allowed)
            assert.isFalse(expected[1].allowed)
            assert.deepStrictEqual(yield* run(redis), expected)
          }))

        it.effect("exact near 2^53: states cross Lua, Redis and the reply without rounding", () =>
          Effect.gen(function*() {
            const redis = yield* RateLimitStore.RateLimitStore
            const memory = RateLimitStore.makeMemory()
            // 8e15 and 3.6e15 units, where Lua's tostring would write 8e+15. A token takes 2 s to come back,
            // so Redis (on its own clock) keeps every state while the test runs.
            const quotas: ReadonlyArray<RateLimit.Quota> = [
              { name: "b", key: "huge:bucket", rule: RateLimit.bucket(2_000_000, 4_000_000_000) },
              { name: "w", key: "huge:window", rule: RateLimit.window(1_000_000, 3_600_000) }
            ]
            let last: RateLimit.Decision | undefined
            for (const at of [now + 1, now + 1, now + 3, now + 3_600_007]) {
              last = yield* memory.consume(quotas, at)
              assert.deepStrictEqual(yield* redis.consume(quotas, at), last)
            }
            const bucket = last!.states[0] as TokenBucket.State
            assert.isTrue(bucket.level > 2 ** 52)
            assert.strictEqual(
              yield* redisCommand<string>("GET", `${keyPrefix}huge:bucket`),
              `${bucket.level}:${bucket.updatedAt}`
            )
          }))

        it.effect("keys expire when their state decides like no state, not later", () =>
          Effect.gen(function*() {
            const store = yield* RateLimitStore.RateLimitStore
            const burst: RateLimit.Quota = { name: "burst", key: "ttl:burst", rule: RateLimit.bucket(30, 60_000) }
            const sustained: RateLimit.Quota = { name: "sustained", key: "ttl:sustained", rule: RateLimit.window(500) }
            const attempts: RateLimit.Quota = { name: "ip", key: "ttl:log", rule: RateLimit.log(5, 300_000) }
            yield* store.consume([attempts], now)
            const decision = yield* store.consume([burst, sustained, attempts], now + 1_234)
            // A log is kept as its instants, and lives until its last one leaves the window.
            assert.strictEqual(yield* redisCommand<string>("GET", `${keyPrefix}ttl:log`), `log:${now},${now + 1_234}`)
            for (const [i, quota] of [burst, sustained, attempts].entries()) {
              const needed = RateLimit.expiresAt(quota.rule, decision.states[i]!) - (now + 1_234)
              const pttl = yield* redisCommand<number>("PTTL", `${keyPrefix}${quota.key}`)
              assert.isTrue(pttl > 0 && pttl <= needed && pttl > needed - 1_000, `${quota.key}: PTTL ${pttl}, needed ${needed}`)
            }
            yield* store.acquireSlot("ttl", "short", 2, now, now + 1_000)
            yield* store.acquireSlot("ttl", "long", 2, now, now + 30_000)
            const slotsPttl = yield* redisCommand<number>("PTTL", `${keyPrefix}slots:ttl`)
            assert.isTrue(slotsPttl > 29_000 && slotsPttl <= 30_000, `slots: PTTL ${slotsPttl}`)

            // By default a key lives 5 minutes more, for hosts whose clocks are behind.
            const skewed = yield* RedisRateLimitStore.make({ keyPrefix: `${keyPrefix}skewed:` })
            yield* skewed.consume([burst], now)
            const skewedPttl = yield* redisCommand<number>("PTTL", `${keyPrefix}skewed:${burst.key}`)
            const grace = RateLimit.retainAfterExpiryMillis
            assert.isTrue(skewedPttl > grace + 1_000 && skewedPttl <= grace + 2_000, `skewed: PTTL ${skewedPttl}`)
          }))

        it.effect("a state Redis dropped (expired or deleted) decides like a new one", () =>
          Effect.gen(function*() {
            const store = yield* RateLimitStore.RateLimitStore
            // Full again 200 ms after each request: the key lives 200 ms (on Redis's clock).
            const quotas: ReadonlyArray<RateLimit.Quota> = [{ name: "q", key: "dropped", rule: RateLimit.bucket(1, 200) }]
            const kept = (yield* store.consume(quotas, now)).states
            assert.isFalse((yield* store.consume(quotas, now)).allowed)
            yield* Effect.sleep("400 millis")
            assert.strictEqual(yield* redisCommand<number>("EXISTS", `${keyPrefix}dropped`), 0)
            const later = now + 200
            assert.deepStrictEqual(RateLimit.decide(kept, later, quotas), RateLimit.decide([undefined], later, quotas))
            assert.deepStrictEqual(yield* store.consume(quotas, later), RateLimit.decide([undefined], later, quotas))

            const window: RateLimit.Quota = { name: "w", key: "deleted", rule: RateLimit.window(1) }
            assert.isTrue((yield* store.consume([window], now)).allowed)
            assert.isFalse((yield* store.consume([window], now)).allowed)
            yield* redisCommand("DEL", `${keyPrefix}deleted`)
            assert.deepStrictEqual(yield* store.consume([window], now), RateLimit.decide([undefined], now, [window]))
          }))
      }
    )
  })
}
