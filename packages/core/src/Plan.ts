/**
 * Plans and the limits they carry (spec 8.1 and 8.2).
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

/** The limits of each plan; custom starts at Scale's until negotiated. */
export const planLimits: Record<Plan, PlanLimits> = {
  starter: { burst: 60, sustained: 2_000, queryConcurrency: 4 },
  growth: { burst: 180, sustained: 20_000, queryConcurrency: 8 },
  scale: { burst: 600, sustained: 100_000, queryConcurrency: 32 },
  custom: { burst: 600, sustained: 100_000, queryConcurrency: 32 }
}
