/**
 * The rate-limit store contract: one suite every `RateLimitStore` must pass
 * unchanged (memory, PostgreSQL, PGlite, Redis). A store must decide exactly
 * like the pure `RateLimit.decide` on the states it keeps (buckets, windows
 * and sliding logs), atomically under concurrency, and keep concurrency
 * slots to their capacity.
 *
 * @since 0.1.0
 */
import { Ids, RateLimit, RateLimitStore } from "@analytics/core"
import { assert, describe, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import * as fc from "fast-check"

/** A fresh key prefix, so runs on one shared database or Redis never meet. */
const freshPrefix = Effect.map(Ids.uuidv7, (id) => `contract:${id}`)

/** Rules of every kind (bucket, sliding window, sliding log), small enough that runs of a few dozen requests meet their limits. */
export const ruleArb: fc.Arbitrary<RateLimit.Rule> = fc.oneof(
  fc.record({ capacity: fc.integer({ min: 1, max: 6 }), fillMillis: fc.integer({ min: 1_000, max: 20_000 }) })
    .map(({ capacity, fillMillis }) => RateLimit.bucket(capacity, fillMillis)),
  fc.record({ limit: fc.integer({ min: 1, max: 12 }), windowMillis: fc.integer({ min: 2_000, max: 60_000 }) })
    .map(({ limit, windowMillis }) => RateLimit.window(limit, windowMillis)),
  fc.record({ limit: fc.integer({ min: 1, max: 8 }), windowMillis: fc.integer({ min: 2_000, max: 60_000 }) })
    .map(({ limit, windowMillis }) => RateLimit.log(limit, windowMillis))
)

/** One step of a run: a request on some of the quotas, or a refund of the last admitted one. */
type Step =
  | { readonly _tag: "consume"; readonly at: number; readonly quotas: ReadonlyArray<number> }
  | { readonly _tag: "refund"; readonly at: number }

/** Three rules, and steps on subsets of them at non-decreasing instants (with a few steps back in time). */
const runArb = fc.record({
  rules: fc.array(ruleArb, { minLength: 3, maxLength: 3 }),
  start: fc.integer({ min: 10 ** 12, max: 2 * 10 ** 12 }),
  steps: fc.array(
    fc.record({
      gap: fc.oneof(fc.integer({ min: 0, max: 800 }), fc.integer({ min: -5_000, max: 130_000 })),
      refund: fc.integer({ min: 0, max: 99 }).map((n) => n < 15),
      quotas: fc.subarray([0, 1, 2], { minLength: 1 })
    }),
    { minLength: 5, maxLength: 40 }
  )
}).map(({ rules, start, steps }) => {
  let at = start
  return {
    rules,
    steps: steps.map(({ gap, quotas, refund }): Step => {
      at += gap
      return refund ? { _tag: "refund", at } : { _tag: "consume", at, quotas }
    })
  }
})

/** Registers the contract suite for one rate-limit store. */
export const rateLimitStoreContract = <E>(name: string, store: Layer.Layer<RateLimitStore.RateLimitStore, E>): void => {
  describe(`rate-limit store contract: ${name}`, () => {
    layer(store, { timeout: "120 seconds" })((it) => {
      it.effect("decides every request exactly like RateLimit.decide, refunds included", () =>
        Effect.gen(function*() {
          const store = yield* RateLimitStore.RateLimitStore
          for (const run of fc.sample(runArb, { numRuns: 25, seed: 20261121 })) {
            const prefix = yield* freshPrefix
            const quotas = run.rules.map((rule, i): RateLimit.Quota => ({ name: `q${i}`, key: `${prefix}:${i}`, rule }))
            const model = new Map<string, RateLimit.QuotaState>()
            let lastAdmitted: { readonly at: number; readonly quotas: ReadonlyArray<RateLimit.Quota> } | undefined
            for (const step of run.steps) {
              if (step._tag === "refund") {
                if (lastAdmitted === undefined) continue
                yield* store.refund(lastAdmitted.quotas, lastAdmitted.at, step.at)
                for (const quota of lastAdmitted.quotas) {
                  const refunded = RateLimit.refundOne(quota.rule, model.get(quota.key), lastAdmitted.at, step.at)
                  if (refunded !== undefined) model.set(quota.key, refunded)
                }
                lastAdmitted = undefined
                continue
              }
              const asked = step.quotas.map((i) => quotas[i])
              const check = (at: number) =>
                Effect.gen(function*() {
                  const expected = RateLimit.decide(asked.map((quota) => model.get(quota.key)), at, asked)
                  const actual = yield* store.consume(asked, at)
                  // A refusal hands back the states it read; a store may have forgotten expired ones meanwhile.
                  const comparable = (d: RateLimit.Decision) => ({ ...d, states: d.allowed ? d.states : [] })
                  assert.deepStrictEqual(comparable(actual), comparable(expected), `at ${at} on ${step.quotas.join(",")}`)
                  if (expected.allowed) {
                    asked.forEach((quota, i) => model.set(quota.key, expected.states[i]!))
                    lastAdmitted = { at, quotas: asked }
                  }
                  return expected
                })
              const decision = yield* check(step.at)
              if (!decision.allowed) {
                // Probe the edges: the millisecond before the request would pass, and the one it does.
                const passesAt = Math.max(...decision.statuses.map((status) => status.nextAllowedAt))
                assert.isFalse((yield* check(passesAt - 1)).allowed)
                assert.isTrue((yield* check(passesAt)).allowed)
              }
            }
          }
        }))

      it.effect("a plan's quotas: a full burst passes, the next request is refused and consumes nothing", () =>
        Effect.gen(function*() {
          const store = yield* RateLimitStore.RateLimitStore
          const prefix = yield* freshPrefix
          const now = Date.UTC(2026, 10, 21, 12, 0, 0)
          const quotas = RateLimit.tenantQuotas(prefix as never, "read", RateLimit.limitsOf("starter"))
          for (let i = 0; i < 60; i++) assert.isTrue((yield* store.consume(quotas, now)).allowed)
          const refused = yield* store.consume(quotas, now + 500)
          assert.isFalse(refused.allowed)
          assert.strictEqual(refused.refusedBy, "burst")
          assert.strictEqual(refused.retryAfterSeconds, 1)
          // The sustained window did not count the refusal.
          assert.strictEqual(refused.statuses[1].remaining, 2_000 - 60)
          assert.isTrue((yield* store.consume(quotas, now + 1_000)).allowed)
        }))

      it.effect("concurrent requests never admit more than the quota", () =>
        Effect.gen(function*() {
          const store = yield* RateLimitStore.RateLimitStore
          const prefix = yield* freshPrefix
          const now = Date.UTC(2026, 10, 21, 12, 0, 0)
          const quotas: ReadonlyArray<RateLimit.Quota> = [
            { name: "burst", key: `${prefix}:b`, rule: RateLimit.bucket(25) },
            { name: "sustained", key: `${prefix}:s`, rule: RateLimit.window(1_000) }
          ]
          const decisions = yield* Effect.forEach(
            Array.from({ length: 80 }, (_, i) => i),
            () => store.consume(quotas, now),
            { concurrency: 40 }
          )
          assert.strictEqual(decisions.filter((d) => d.allowed).length, 25)
          const after = yield* store.consume(quotas, now)
          assert.strictEqual(after.statuses[1].remaining, 1_000 - 25)
        }))

      it.effect("all or nothing: a quota that passes is not charged when another refuses", () =>
        Effect.gen(function*() {
          const store = yield* RateLimitStore.RateLimitStore
          const prefix = yield* freshPrefix
          const now = Date.UTC(2026, 10, 21, 12, 0, 0)
          const perUser: RateLimit.Quota = { name: "user", key: `${prefix}:user`, rule: RateLimit.bucket(30) }
          const perWorkspace: RateLimit.Quota = { name: "workspace", key: `${prefix}:ws`, rule: RateLimit.window(2) }
          assert.isTrue((yield* store.consume([perUser, perWorkspace], now)).allowed)
          assert.isTrue((yield* store.consume([perUser, perWorkspace], now)).allowed)
          const refused = yield* store.consume([perUser, perWorkspace], now)
          assert.isFalse(refused.allowed)
          assert.strictEqual(refused.refusedBy, "workspace")
          assert.strictEqual(refused.statuses[0].remaining, 28)
          assert.strictEqual((yield* store.consume([perUser], now)).statuses[0].remaining, 27)
        }))

      it.effect("a sliding log (password attempts): 5 admitted, the 6th refused until the oldest leaves at exactly 300 s", () =>
        Effect.gen(function*() {
          const store = yield* RateLimitStore.RateLimitStore
          const prefix = yield* freshPrefix
          const t0 = Date.UTC(2026, 10, 21, 12, 0, 0)
          const quotas: ReadonlyArray<RateLimit.Quota> = [{ name: "ip", key: `${prefix}:ip`, rule: RateLimit.log(5, 300_000) }]
          // Five failures spread over 287 s: all admitted, whatever windows they straddle.
          const at = [t0, t0 + 60_000, t0 + 120_000, t0 + 200_000, t0 + 286_000]
          for (const [i, t] of at.entries()) {
            const admitted = yield* store.consume(quotas, t)
            assert.isTrue(admitted.allowed, `attempt ${i + 1}`)
            assert.strictEqual(admitted.statuses[0].remaining, 4 - i)
          }
          const sixth = yield* store.consume(quotas, t0 + 287_000)
          assert.isFalse(sixth.allowed)
          assert.strictEqual(sixth.refusedBy, "ip")
          // Retry-After: when the oldest failure leaves the window (13 s later).
          assert.strictEqual(sixth.statuses[0].nextAllowedAt, t0 + 300_000)
          assert.strictEqual(sixth.retryAfterSeconds, 13)
          assert.strictEqual(sixth.statuses[0].resetAt, t0 + 286_000 + 300_000)
          // A refusal consumes nothing; the millisecond before the oldest leaves is still refused.
          assert.isFalse((yield* store.consume(quotas, t0 + 299_999)).allowed)
          const afterOldest = yield* store.consume(quotas, t0 + 300_000)
          assert.isTrue(afterOldest.allowed)
          assert.strictEqual(afterOldest.statuses[0].remaining, 0)
          // Now the next to leave is the second failure, at 360 s.
          const next = yield* store.consume(quotas, t0 + 300_001)
          assert.isFalse(next.allowed)
          assert.strictEqual(next.statuses[0].nextAllowedAt, t0 + 360_000)
          assert.isTrue((yield* store.consume(quotas, t0 + 360_000)).allowed)
        }))

      it.effect("a sliding log: a refunded attempt (a right password) no longer counts; refunding one never found changes nothing", () =>
        Effect.gen(function*() {
          const store = yield* RateLimitStore.RateLimitStore
          const prefix = yield* freshPrefix
          const t0 = Date.UTC(2026, 10, 21, 12, 0, 0)
          const quotas: ReadonlyArray<RateLimit.Quota> = [{ name: "ip", key: `${prefix}:ip`, rule: RateLimit.log(5, 300_000) }]
          for (let i = 0; i < 5; i++) assert.isTrue((yield* store.consume(quotas, t0 + i * 1_000)).allowed)
          assert.isFalse((yield* store.consume(quotas, t0 + 10_000)).allowed)
          // The third attempt was a right password: given back, whenever the answer came.
          yield* store.refund(quotas, t0 + 2_000, t0 + 12_000)
          // An instant never counted (or already forgotten): nothing changes.
          yield* store.refund(quotas, t0 + 2_500, t0 + 12_000)
          const again = yield* store.consume(quotas, t0 + 13_000)
          assert.isTrue(again.allowed)
          assert.strictEqual(again.statuses[0].remaining, 0)
          const refused = yield* store.consume(quotas, t0 + 14_000)
          assert.isFalse(refused.allowed)
          // The oldest left is the first, at t0: it leaves at t0 + 300 s.
          assert.strictEqual(refused.statuses[0].nextAllowedAt, t0 + 300_000)
          // Two attempts at the same millisecond are two entries: refunding one keeps the other.
          const other: ReadonlyArray<RateLimit.Quota> = [{ name: "ip", key: `${prefix}:other`, rule: RateLimit.log(2, 300_000) }]
          assert.isTrue((yield* store.consume(other, t0)).allowed)
          assert.isTrue((yield* store.consume(other, t0)).allowed)
          yield* store.refund(other, t0, t0 + 1)
          assert.strictEqual((yield* store.consume(other, t0 + 2)).statuses[0].remaining, 0)
          assert.isFalse((yield* store.consume(other, t0 + 3)).allowed)
        }))

      it.effect("a sliding log: concurrent attempts never admit more than its limit", () =>
        Effect.gen(function*() {
          const store = yield* RateLimitStore.RateLimitStore
          const prefix = yield* freshPrefix
          const now = Date.UTC(2026, 10, 21, 12, 0, 0)
          const quotas: ReadonlyArray<RateLimit.Quota> = [{ name: "ip", key: `${prefix}:ip`, rule: RateLimit.log(5, 300_000) }]
          const decisions = yield* Effect.forEach(
            Array.from({ length: 40 }, (_, i) => i),
            (i) => store.consume(quotas, now + (i % 4)),
            { concurrency: 40 }
          )
          assert.strictEqual(decisions.filter((d) => d.allowed).length, 5)
        }))

      it.effect("slots: capacity held, released, reclaimed from expired leases", () =>
        Effect.gen(function*() {
          const store = yield* RateLimitStore.RateLimitStore
          const key = yield* freshPrefix
          const now = Date.UTC(2026, 10, 21, 12, 0, 0)
          assert.isTrue(yield* store.acquireSlot(key, "a", 2, now, now + 60_000))
          assert.isTrue(yield* store.acquireSlot(key, "b", 2, now, now + 1_000))
          assert.isFalse(yield* store.acquireSlot(key, "c", 2, now, now + 60_000))
          yield* store.releaseSlot(key, "a")
          yield* store.releaseSlot(key, "a")
          assert.isTrue(yield* store.acquireSlot(key, "c", 2, now, now + 60_000))
          assert.isFalse(yield* store.acquireSlot(key, "d", 2, now + 999, now + 60_000))
          // b's lease ran out: its holder died without releasing.
          assert.isTrue(yield* store.acquireSlot(key, "d", 2, now + 1_000, now + 60_000))
          assert.isFalse(yield* store.acquireSlot(`${key}:other`, "x", 0, now, now + 60_000))
        }))

      it.effect("slots: concurrent acquirers get exactly the capacity", () =>
        Effect.gen(function*() {
          const store = yield* RateLimitStore.RateLimitStore
          const key = yield* freshPrefix
          const now = Date.UTC(2026, 10, 21, 12, 0, 0)
          const got = yield* Effect.forEach(
            Array.from({ length: 40 }, (_, i) => `lease-${i}`),
            (lease) => store.acquireSlot(key, lease, 8, now, now + 60_000),
            { concurrency: 40 }
          )
          assert.strictEqual(got.filter(Boolean).length, 8)
        }))
    })
  })
}
