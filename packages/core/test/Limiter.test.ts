import { Limiter, RateLimit, RateLimitStore } from "@analytics/core"
import { rateLimitRuleArb } from "@analytics/testing"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"

/** A Limiter over `store`. */
const limiterOver = (store: RateLimitStore.RateLimitStore["Service"]) =>
  Effect.provide(
    Effect.gen(function*() {
      return yield* Limiter.Limiter
    }),
    Layer.provide(Limiter.Limiter.layer, Layer.succeed(RateLimitStore.RateLimitStore, store))
  )

/** The memory store without its synchronous decision: the Limiter then decides through `consume`, as over a shared store. */
const effectfulOnly = (): RateLimitStore.RateLimitStore["Service"] => {
  const { consumeNow: _, ...store } = RateLimitStore.makeMemory()
  return store
}

/** Three rules, and requests on subsets of them, most a few ms apart, some minutes apart (past the memory store's sweep). */
const runArb = fc.record({
  rules: fc.array(rateLimitRuleArb, { minLength: 3, maxLength: 3 }),
  steps: fc.array(
    fc.record({
      gap: fc.oneof(fc.integer({ min: 0, max: 800 }), fc.integer({ min: 0, max: 130_000 })),
      quotas: fc.subarray([0, 1, 2], { minLength: 1 })
    }),
    { minLength: 5, maxLength: 60 }
  )
})

describe("Limiter", () => {
  it.effect("over a memory store, decides in one step (decide, decideNow) exactly as through the store's effect, and as RateLimit.decide", () =>
    Effect.gen(function*() {
      for (const run of fc.sample(runArb, { numRuns: 60, seed: 20261126 })) {
        const inProcess = yield* limiterOver(RateLimitStore.makeMemory())
        const now = yield* limiterOver(RateLimitStore.makeMemory())
        const effectful = yield* limiterOver(effectfulOnly())
        const quotas = run.rules.map((rule, i): RateLimit.Quota => ({ name: `q${i}`, key: `k${i}`, rule }))
        const model = new Map<string, RateLimit.QuotaState>()
        yield* TestClock.setTime(1_700_000_000_000)
        for (const step of run.steps) {
          yield* TestClock.adjust(step.gap)
          const at = yield* Clock.currentTimeMillis
          const asked = step.quotas.map((i) => quotas[i])
          const expected = RateLimit.decide(asked.map((quota) => model.get(quota.key)), at, asked)
          if (expected.allowed) asked.forEach((quota, i) => model.set(quota.key, expected.states[i]!))
          const throughEffect = yield* effectful.decide(asked)
          const inOneStep = yield* inProcess.decide(asked)
          const given = now.decideNow(asked, at)
          assert.isDefined(given, "a memory store decides synchronously")
          assert.isUndefined(effectful.decideNow(asked, at), "a store without consumeNow does not")
          const label = `at +${at - 1_700_000_000_000} on ${step.quotas.join(",")}`
          assert.deepStrictEqual(inOneStep, throughEffect, label)
          assert.deepStrictEqual(given, throughEffect, label)
          // A refusal hands back the states it read; the store may have forgotten expired ones the model keeps.
          const comparable = (d: RateLimit.Decision) => ({ ...d, states: d.allowed ? d.states : [] })
          assert.deepStrictEqual(comparable(throughEffect), comparable(expected), label)
        }
      }
    }))

  it.effect("enforce and decide over a memory store share its states with decideNow", () =>
    Effect.gen(function*() {
      const limiter = yield* limiterOver(RateLimitStore.makeMemory())
      const quotas: ReadonlyArray<RateLimit.Quota> = [{ name: "burst", key: "k", rule: RateLimit.bucket(3, 60_000) }]
      const at = yield* Clock.currentTimeMillis
      assert.isTrue((yield* limiter.decide(quotas)).allowed)
      assert.isTrue(limiter.decideNow(quotas, at)!.allowed)
      assert.strictEqual((yield* limiter.decide(quotas)).statuses[0].remaining, 0)
      const refused = limiter.decideNow(quotas, at)!
      assert.isFalse(refused.allowed)
      assert.strictEqual(refused.refusedBy, "burst")
      assert.strictEqual(refused.retryAfterSeconds, 20)
    }))
})
