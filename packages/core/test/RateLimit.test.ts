import { OperationLimits, RateLimit, SlidingWindow, TokenBucket } from "@analytics/core"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"

/**
 * The brute-force reference: it keeps the instant of every admitted request
 * and recomputes both layers from that history, with no state of its own.
 */
const reference = (limits: RateLimit.Limits) => {
  const { capacity: c, fillMillis: f } = limits.burst
  const { limit: l, windowMillis: w } = limits.sustained
  const admitted: Array<number> = []
  /** The bucket's level at `t`, replaying every admitted request from a full bucket. */
  const level = (t: number): number => {
    let lvl = c * f
    let last = admitted.length === 0 ? t : admitted[0]
    for (const ts of admitted) {
      lvl = Math.min(c * f, lvl + (ts - last) * c) - f
      last = ts
    }
    return Math.min(c * f, lvl + (t - last) * c)
  }
  /** The window's weighted count at `t`, times `w`, counted from the history. */
  const scaled = (t: number): number => {
    const start = Math.floor(t / w) * w
    const current = admitted.filter((ts) => ts >= start && ts <= t).length
    const previous = admitted.filter((ts) => ts >= start - w && ts < start).length
    return previous * (w - (t - start)) + current * w
  }
  const passes = (t: number) => level(t) >= f && scaled(t) + w <= l * w
  return {
    passes,
    admitted,
    remaining: (t: number) => ({
      burst: Math.floor(level(t) / f),
      sustained: Math.max(0, Math.floor((l * w - scaled(t)) / w))
    }),
    /** Tries every whole second until one passes. */
    retryAfter: (t: number): number => {
      for (let s = 1;; s++) if (passes(t + s * 1000)) return s
    }
  }
}

/** The two layers' states, as the tests below keep them. */
interface State {
  readonly bucket?: TokenBucket.State | undefined
  readonly window?: SlidingWindow.State | undefined
}

interface LayersDecision extends RateLimit.Decision {
  readonly state: State
  readonly burst: RateLimit.Status
  readonly sustained: RateLimit.Status
}

/** `RateLimit.decide` on a tenant's two quotas, seen as the two layers. */
const decideLayers = (state: State | undefined, now: number, limits: RateLimit.Limits): LayersDecision => {
  const decision = RateLimit.decide(
    [state?.bucket, state?.window],
    now,
    RateLimit.tenantQuotas("tenant" as never, "read", limits)
  )
  return {
    ...decision,
    state: {
      bucket: decision.states[0] as TokenBucket.State | undefined,
      window: decision.states[1] as SlidingWindow.State | undefined
    },
    burst: decision.statuses[0],
    sustained: decision.statuses[1]
  }
}

const limitsArb = fc.record({
  burst: fc.record({ capacity: fc.integer({ min: 1, max: 8 }), fillMillis: fc.integer({ min: 1_000, max: 20_000 }) })
    .map(({ capacity, fillMillis }) => RateLimit.bucket(capacity, fillMillis)),
  sustained: fc.record({ limit: fc.integer({ min: 1, max: 20 }), windowMillis: fc.integer({ min: 2_000, max: 60_000 }) })
    .map(({ limit, windowMillis }) => RateLimit.window(limit, windowMillis))
})

/** Limits with the instants of a run of requests (never going back in time). */
const runArb = limitsArb.chain((limits) =>
  fc.tuple(
    fc.constant(limits),
    fc.integer({ min: 0, max: 10 ** 12 }),
    fc.array(fc.integer({ min: 0, max: 2 * limits.sustained.windowMillis }), { minLength: 1, maxLength: 60 })
  ).map(([limits, start, gaps]) => {
    let t = start
    return { limits, instants: gaps.map((g) => (t += g > limits.sustained.windowMillis / 2 ? g : g % 700)) }
  })
)

describe("RateLimit.decide", () => {
  it("admits exactly what the reference model admits, with its remaining counts and Retry-After", () => {
    fc.assert(
      fc.property(runArb, ({ instants, limits }) => {
        const model = reference(limits)
        let state: State | undefined
        for (const t of instants) {
          const expected = model.passes(t)
          const decision = decideLayers(state, t, limits)
          assert.strictEqual(decision.allowed, expected, `at ${t}`)
          if (decision.allowed) {
            model.admitted.push(t)
            assert.strictEqual(decision.retryAfterSeconds, 0)
            assert.strictEqual(decision.refusedBy, undefined)
          } else {
            // A refused request consumes nothing.
            assert.strictEqual(decision.states[0], state?.bucket)
            assert.strictEqual(decision.states[1], state?.window)
            assert.strictEqual(decision.retryAfterSeconds, model.retryAfter(t), `Retry-After at ${t}`)
          }
          assert.deepStrictEqual(
            { burst: decision.burst.remaining, sustained: decision.sustained.remaining },
            model.remaining(t)
          )
          state = decision.state
        }
      }),
      { numRuns: 300 }
    )
  })

  it("never admits more than the bucket's envelope or the window's limit", () => {
    fc.assert(
      fc.property(runArb, ({ instants, limits }) => {
        const admitted: Array<number> = []
        let state: State | undefined
        for (const t of instants) {
          const decision = decideLayers(state, t, limits)
          if (decision.allowed) admitted.push(t)
          state = decision.state
        }
        const { capacity: c, fillMillis: f } = limits.burst
        for (let i = 0; i < admitted.length; i++) {
          for (let j = i; j < admitted.length; j++) {
            // Between two admitted requests: at most a full bucket plus what refilled meanwhile.
            assert.isAtMost(j - i + 1, c + Math.floor(((admitted[j] - admitted[i]) * c) / f))
          }
          // Within any span of one fixed window length, at most twice the limit (the estimate's known slack).
          const inSpan = admitted.filter((t) => t >= admitted[i] && t < admitted[i] + limits.sustained.windowMillis)
          assert.isAtMost(inSpan.length, 2 * limits.sustained.limit)
        }
      }),
      { numRuns: 300 }
    )
  })

  it("resets: the bucket is full and the window empty at their reset instants", () => {
    fc.assert(
      fc.property(runArb, ({ instants, limits }) => {
        let state: State | undefined
        let last: LayersDecision | undefined
        for (const t of instants) {
          last = decideLayers(state, t, limits)
          state = last.state
        }
        const burst = TokenBucket.status(state?.bucket, last!.burst.resetAt, limits.burst)
        assert.strictEqual(burst.remaining, limits.burst.capacity)
        const sustained = SlidingWindow.status(state?.window, last!.sustained.resetAt, limits.sustained)
        assert.strictEqual(sustained.remaining, limits.sustained.limit)
      }),
      { numRuns: 200 }
    )
  })

  it("nextAllowedAt is the first millisecond each layer lets a request through", () => {
    fc.assert(
      fc.property(runArb, ({ instants, limits }) => {
        let state: State | undefined
        for (const t of instants) {
          const kept = decideLayers(state, t, limits).state
          state = kept
          const bucketAt = TokenBucket.status(kept.bucket, t, limits.burst).nextAllowedAt
          assert.isDefined(TokenBucket.consume(kept.bucket, bucketAt, limits.burst))
          if (bucketAt > t) assert.isUndefined(TokenBucket.consume(kept.bucket, bucketAt - 1, limits.burst))
          const windowAt = SlidingWindow.status(kept.window, t, limits.sustained).nextAllowedAt
          assert.isDefined(SlidingWindow.consume(kept.window, windowAt, limits.sustained))
          if (windowAt > t) assert.isUndefined(SlidingWindow.consume(kept.window, windowAt - 1, limits.sustained))
        }
      }),
      { numRuns: 300 }
    )
  })

  it("starts full: a plan's burst capacity passes at once, the next request waits for one token", () => {
    const limits = RateLimit.limitsOf("starter")
    let state: State | undefined
    const now = Date.UTC(2026, 10, 21, 12, 0, 0)
    for (let i = 0; i < 60; i++) {
      const decision = decideLayers(state, now, limits)
      assert.isTrue(decision.allowed)
      assert.strictEqual(decision.burst.remaining, 59 - i)
      state = decision.state
    }
    const refused = decideLayers(state, now, limits)
    assert.isFalse(refused.allowed)
    assert.strictEqual(refused.refusedBy, "burst")
    // 60 per minute: one token a second.
    assert.strictEqual(refused.retryAfterSeconds, 1)
    assert.strictEqual(refused.burst.resetAt, now + 60_000)
    assert.isTrue(decideLayers(state, now + 1_000, limits).allowed)
  })

  it("sustained: a full hour waits for the previous window's weight to fall", () => {
    const limits: RateLimit.Limits = { burst: RateLimit.bucket(1_000), sustained: RateLimit.window(10) }
    const hour = Date.UTC(2026, 10, 21, 12, 0, 0)
    let state: State | undefined
    for (let i = 0; i < 10; i++) state = decideLayers(state, hour + 30 * 60_000, limits).state
    const refused = decideLayers(state, hour + 59 * 60_000, limits)
    assert.isFalse(refused.allowed)
    assert.strictEqual(refused.refusedBy, "sustained")
    // At 13:00 the ten count at full weight; one fits once a tenth of the hour (6 min) has passed: 13:06.
    assert.strictEqual(refused.retryAfterSeconds, 7 * 60)
    assert.strictEqual(refused.sustained.resetAt, hour + 2 * 3_600_000)
  })

  it("a clock that stepped back neither refills the bucket twice nor reopens the window", () => {
    const limits: RateLimit.Limits = { burst: RateLimit.bucket(2), sustained: RateLimit.window(100) }
    const now = Date.UTC(2026, 10, 21, 12, 0, 0)
    let state = decideLayers(undefined, now, limits).state
    state = decideLayers(state, now, limits).state
    // Another host's clock, 10 s behind, sees an empty bucket.
    assert.isFalse(decideLayers(state, now - 10_000, limits).allowed)
    assert.strictEqual(decideLayers(state, now - 10_000, limits).burst.remaining, 0)
    // 30 s after the last take, one token is back: not two.
    const later = decideLayers(state, now + 30_000, limits)
    assert.isTrue(later.allowed)
    assert.strictEqual(later.burst.remaining, 0)
  })

  it("limitsOf: the plans of decision 0009", () => {
    assert.deepStrictEqual(
      (["starter", "growth", "scale"] as const).map((plan) => {
        const { burst, sustained } = RateLimit.limitsOf(plan)
        return [burst.capacity, burst.fillMillis, sustained.limit, sustained.windowMillis]
      }),
      [[60, 60_000, 2_000, 3_600_000], [180, 60_000, 20_000, 3_600_000], [600, 60_000, 100_000, 3_600_000]]
    )
  })

  it("a state past expiresAt decides exactly like no state: stores may forget it", () => {
    fc.assert(
      fc.property(runArb, fc.integer({ min: 0, max: 10 ** 7 }), ({ instants, limits }, later) => {
        let state: State | undefined
        const quotas = RateLimit.tenantQuotas("tenant" as never, "read", limits)
        for (const t of instants) {
          const decision = decideLayers(state, t, limits)
          // An admitted request's reset instants are its new states' expiresAt (the memory store relies on it).
          if (decision.allowed) {
            quotas.forEach((quota, i) =>
              assert.strictEqual(decision.statuses[i].resetAt, RateLimit.expiresAt(quota.rule, decision.states[i]!))
            )
          }
          state = decision.state
        }
        quotas.forEach((quota, i) => {
          const kept = i === 0 ? state!.bucket : state!.window
          if (kept === undefined) return
          const at = RateLimit.expiresAt(quota.rule, kept) + later
          assert.deepStrictEqual(
            RateLimit.decide([kept], at, [quota]).statuses,
            RateLimit.decide([undefined], at, [quota]).statuses
          )
        })
      }),
      { numRuns: 300 }
    )
  })

  it("a refund right after an admission gives back exactly what it took", () => {
    fc.assert(
      fc.property(runArb, ({ instants, limits }) => {
        let state: State | undefined
        for (const t of instants) {
          const decision = decideLayers(state, t, limits)
          if (decision.allowed) {
            const before = decideLayers(state, t, limits)
            const quotas = RateLimit.tenantQuotas("tenant" as never, "read", limits)
            const refunded = quotas.map((quota, i) => RateLimit.refundOne(quota.rule, decision.states[i], t, t))
            const after = RateLimit.decide(refunded, t, quotas)
            assert.deepStrictEqual(after.statuses.map((status) => status.remaining), before.statuses.map((status) => status.remaining))
          }
          state = decision.state
        }
      }),
      { numRuns: 300 }
    )
  })
})

describe("SlidingLog (RateLimit.log)", () => {
  const logRunArb = fc.record({
    limit: fc.integer({ min: 1, max: 8 }),
    windowMillis: fc.integer({ min: 2_000, max: 60_000 }),
    start: fc.integer({ min: 0, max: 10 ** 12 }),
    gaps: fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: 1, maxLength: 60 }),
    refunds: fc.array(fc.boolean(), { minLength: 60, maxLength: 60 })
  })

  it("admits exactly when fewer than `limit` counted instants lie in the last window; Retry-After and expiry exact", () => {
    fc.assert(
      fc.property(logRunArb, ({ gaps, limit, refunds, start, windowMillis }) => {
        const rule = RateLimit.log(limit, windowMillis)
        const quotas: ReadonlyArray<RateLimit.Quota> = [{ name: "ip", key: "k", rule }]
        // The reference: every counted instant, forever; refunds remove one.
        const counted: Array<number> = []
        const inWindow = (t: number) => counted.filter((c) => t - c < windowMillis).length
        let state: RateLimit.QuotaState | undefined
        let t = start
        gaps.forEach((gap, i) => {
          t += gap
          const decision = RateLimit.decide([state], t, quotas)
          assert.strictEqual(decision.allowed, inWindow(t) < limit, `at ${t}`)
          if (decision.allowed) counted.push(t)
          assert.strictEqual(decision.statuses[0].remaining, Math.max(0, limit - inWindow(t)))
          if (decision.allowed) {
            state = decision.states[0]
            assert.strictEqual(decision.statuses[0].resetAt, RateLimit.expiresAt(rule, state!))
            if (refunds[i]) {
              state = RateLimit.refundOne(rule, state, t, t)
              counted.splice(counted.lastIndexOf(t), 1)
            }
          } else {
            // The first whole second after which the reference admits.
            let s = 1
            while (inWindow(t + s * 1000) >= limit) s++
            assert.strictEqual(decision.retryAfterSeconds, s, `Retry-After at ${t}`)
            const at = decision.statuses[0].nextAllowedAt
            assert.isTrue(inWindow(at) < limit && inWindow(at - 1) >= limit)
          }
          // Never more than `limit` in any window: the log keeps at most that many instants.
          assert.isAtMost((state as { counted: ReadonlyArray<number> } | undefined)?.counted.length ?? 0, limit)
          // Past expiresAt the state decides like none.
          if (state !== undefined) {
            const after = Math.max(t, RateLimit.expiresAt(rule, state))
            assert.deepStrictEqual(RateLimit.decide([state], after, quotas).statuses, RateLimit.decide([undefined], after, quotas).statuses)
          }
        })
        for (let i = 0; i < counted.length; i++) {
          assert.isAtMost(counted.filter((c) => c >= counted[i] && c < counted[i] + windowMillis).length, limit)
        }
      }),
      { numRuns: 300 }
    )
  })

  it("password attempts: 5 wrong passwords over 287 s pass, the 6th waits for the first to leave at 300 s", () => {
    const limit = OperationLimits.passwordAttempts("198.51.100.7")
    const t0 = Date.UTC(2026, 10, 21, 12, 0, 0)
    let states: ReadonlyArray<RateLimit.QuotaState | undefined> = [undefined]
    for (const t of [0, 70_000, 140_000, 210_000, 280_000]) {
      const decision = RateLimit.decide(states, t0 + t, limit.quotas)
      assert.isTrue(decision.allowed)
      states = decision.states
    }
    const sixth = RateLimit.decide(states, t0 + 287_000, limit.quotas)
    assert.isFalse(sixth.allowed)
    assert.strictEqual(sixth.retryAfterSeconds, 13)
    assert.isFalse(RateLimit.decide(states, t0 + 299_999, limit.quotas).allowed)
    assert.isTrue(RateLimit.decide(states, t0 + 300_000, limit.quotas).allowed)
  })
})
