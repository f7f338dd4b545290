/**
 * Two-layer rate limiting (spec 8.1): a request passes only if both the
 * burst bucket and the sustained window let it through, and a rejected
 * request consumes nothing. Counts are kept per (tenant, endpoint class).
 *
 * `decide` is a pure function of (state, now, limits); a `RateLimitStore`
 * applies it atomically to the state it keeps.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { type Plan, planLimits } from "./Plan.ts"
import * as SlidingWindow from "./SlidingWindow.ts"
import type { TenantId } from "./Tenant.ts"
import * as TokenBucket from "./TokenBucket.ts"

/** The endpoint classes counted apart, so heavy exports do not spend the read budget. */
export const EndpointClass = Schema.Literals(["read", "write", "export", "ai"])
/** An endpoint class. */
export type EndpointClass = typeof EndpointClass.Type

/** The burst bucket refills from empty in one minute. */
export const burstFillMillis = 60_000
/** The sustained window is one hour. */
export const sustainedWindowMillis = 3_600_000

/** The two layers' shapes; `capacity * fillMillis` and `limit * windowMillis` must stay below 2^53 (exact integers). */
export interface Limits {
  readonly burst: TokenBucket.Bucket
  readonly sustained: SlidingWindow.Window
}

/** Both layers' stored states (absent: never used, a full bucket and an empty window). */
export interface State {
  readonly bucket?: TokenBucket.State | undefined
  readonly window?: SlidingWindow.State | undefined
}

/** Which layer refused a request. */
export type Layer = "burst" | "sustained"

/** The outcome of one request. */
export interface Decision {
  readonly allowed: boolean
  /** The state to keep: the consumed one when allowed, the given one (unchanged) when not. */
  readonly state: State
  /** Each layer as it stands after the decision. */
  readonly burst: TokenBucket.Status
  readonly sustained: SlidingWindow.Status
  /** When refused: the layer that holds the request back longest. */
  readonly refusedBy: Layer | undefined
  /** When refused: the smallest whole number of seconds after which the next request passes both layers; else 0. */
  readonly retryAfterSeconds: number
}

/** Decides one request at `now` (epoch ms). */
export const decide = (state: State | undefined, now: number, limits: Limits): Decision => {
  const bucket = TokenBucket.consume(state?.bucket, now, limits.burst)
  const window = SlidingWindow.consume(state?.window, now, limits.sustained)
  const allowed = bucket !== undefined && window !== undefined
  const next: State = allowed ? { bucket, window } : state ?? {}
  const burst = TokenBucket.status(next.bucket, now, limits.burst)
  const sustained = SlidingWindow.status(next.window, now, limits.sustained)
  if (allowed) return { allowed, state: next, burst, sustained, refusedBy: undefined, retryAfterSeconds: 0 }
  // Both layers only loosen as time passes, so the later of their next instants passes both.
  const refusedBy: Layer = burst.nextAllowedAt >= sustained.nextAllowedAt ? "burst" : "sustained"
  const passesAt = Math.max(burst.nextAllowedAt, sustained.nextAllowedAt)
  return { allowed, state: next, burst, sustained, refusedBy, retryAfterSeconds: Math.max(1, Math.ceil((passesAt - now) / 1000)) }
}

/** A plan's limits for the API's two layers. */
export const limitsOf = (plan: Plan): Limits => ({
  burst: { capacity: planLimits[plan].burst, fillMillis: burstFillMillis },
  sustained: { limit: planLimits[plan].sustained, windowMillis: sustainedWindowMillis }
})

/** The key a tenant's class is counted under. */
export const key = (tenantId: TenantId, endpointClass: EndpointClass): string => `tenant:${tenantId}:${endpointClass}`
