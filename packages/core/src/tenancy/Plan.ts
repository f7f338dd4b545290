/**
 * Plans and the limits they carry (decision 0009).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The plans a tenant can be on. */
export const Plan = Schema.Literals(["starter", "growth", "scale", "custom"]).annotate({
  description: "The tenant's plan; it sets the rate limits"
})
/** A plan name. */
export type Plan = typeof Plan.Type

/** Rate limits of one plan. */
export interface PlanLimits {
  /** Token bucket capacity: requests per 60 s. */
  readonly burst: number
  /** Sliding window: requests per hour. */
  readonly sustained: number
  /** Concurrent semantic queries per workspace. */
  readonly queryConcurrency: number
}

/** Burst capacity and hourly limit stay exact integers in every store (capacity * 60 000 and limit * 3 600 000 below 2^52). */
const count = (max: number) => Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: max }))

/** A Custom plan's negotiated numbers, stored on the tenant (decision 0009). */
export const NegotiatedLimits = Schema.Struct({
  burst: count(1_000_000).annotate({ description: "Requests per 60 s (the burst bucket's capacity)" }),
  sustained: count(1_000_000_000).annotate({ description: "Requests per hour (the sliding window)" }),
  query_concurrency: count(10_000).annotate({ description: "Concurrent semantic queries per workspace" })
}).annotate({ description: "Negotiated limits of a custom plan" })
/** A Custom plan's negotiated numbers. */
export type NegotiatedLimits = typeof NegotiatedLimits.Type

/** The limits of each plan; custom starts at Scale's until negotiated. */
export const planLimits: Record<Plan, PlanLimits> = {
  starter: { burst: 60, sustained: 2_000, queryConcurrency: 4 },
  growth: { burst: 180, sustained: 20_000, queryConcurrency: 8 },
  scale: { burst: 600, sustained: 100_000, queryConcurrency: 32 },
  custom: { burst: 600, sustained: 100_000, queryConcurrency: 32 }
}

/** A tenant's limits: its negotiated numbers on the Custom plan, else its plan's. */
export const limitsFor = (plan: Plan, negotiated: NegotiatedLimits | undefined): PlanLimits =>
  plan === "custom" && negotiated !== undefined
    ? { burst: negotiated.burst, sustained: negotiated.sustained, queryConcurrency: negotiated.query_concurrency }
    : planLimits[plan]
