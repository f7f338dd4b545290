/**
 * Rate limiting (decision 0009): a request passes only if every quota it is
 * counted against lets it through, and a rejected request consumes nothing.
 * A quota is a named rule (a token bucket, a sliding-window counter or an
 * exact sliding log) counted under a key: the API's two layers are the `burst` bucket and the
 * `sustained` window of a (tenant, endpoint class); per-operation limits
 * (decision 0009) are other quotas on other keys.
 *
 * Everything here is a pure function of (states, now, quotas); a
 * `RateLimitStore` applies `decide` atomically to the states it keeps.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { type Plan, type PlanLimits, planLimits } from "../tenancy/Plan.ts"
import * as SlidingLog from "./SlidingLog.ts"
import * as SlidingWindow from "./SlidingWindow.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import * as TokenBucket from "./TokenBucket.ts"

/** The endpoint classes counted apart, so heavy exports do not spend the read budget. */
export const EndpointClass = Schema.Literals(["read", "write", "export", "ai"])
/** An endpoint class. */
export type EndpointClass = typeof EndpointClass.Type

/** The burst bucket refills from empty in one minute. */
export const burstFillMillis = 60_000
/** The sustained window is one hour. */
export const sustainedWindowMillis = 3_600_000

/** A token bucket rule; `capacity * fillMillis` must stay below 2^53 (exact integers). */
export interface BucketRule extends TokenBucket.Bucket {
  readonly _tag: "Bucket"
}
/** A sliding-window rule; `limit * windowMillis` must stay below 2^52 (exact integers). */
export interface WindowRule extends SlidingWindow.Window {
  readonly _tag: "Window"
}
/**
 * A sliding-log rule: at most `limit` in any `windowMillis`, exactly (the
 * instants are kept, up to `limit` per key: for small limits such as
 * password attempts).
 */
export interface LogRule extends SlidingLog.Log {
  readonly _tag: "Log"
}
/** How a quota counts. */
export type Rule = BucketRule | WindowRule | LogRule

/** A bucket of `capacity` requests refilling from empty in `fillMillis` (one minute by default). */
export const bucket = (capacity: number, fillMillis: number = burstFillMillis): BucketRule => ({
  _tag: "Bucket",
  capacity,
  fillMillis
})
/** A window of `limit` requests per `windowMillis` (one hour by default). */
export const window = (limit: number, windowMillis: number = sustainedWindowMillis): WindowRule => ({
  _tag: "Window",
  limit,
  windowMillis
})

/** At most `limit` requests in any `windowMillis`, exactly: a sliding log of their instants. */
export const log = (limit: number, windowMillis: number): LogRule => ({
  _tag: "Log",
  limit,
  windowMillis
})

/** A rule counted under a key, named for headers and problems (`burst`, `sustained`...). */
export interface Quota {
  readonly name: string
  readonly key: string
  readonly rule: Rule
}

/** What a store keeps for one quota: a bucket's, a window's or a log's state. */
export type QuotaState = TokenBucket.State | SlidingWindow.State | SlidingLog.State

/** What a quota shows at an instant (epoch ms). */
export interface Status {
  readonly limit: number
  readonly remaining: number
  /** When the quota is whole again. */
  readonly resetAt: number
  /** The first instant a request would pass (`now` when it would pass now). */
  readonly nextAllowedAt: number
}

/** The outcome of one request against its quotas. */
export interface Decision {
  readonly allowed: boolean
  /** The states to keep, by quota: the consumed ones when allowed, the given ones when not. */
  readonly states: ReadonlyArray<QuotaState | undefined>
  /** Each quota as it stands after the decision, in the order given. */
  readonly statuses: ReadonlyArray<Status>
  /** When refused: the name of the quota that holds the request back longest. */
  readonly refusedBy: string | undefined
  /** When refused: the smallest whole number of seconds after which the next request passes every quota; else 0. */
  readonly retryAfterSeconds: number
}

/** Counts one request on one quota's state: the new state, or `undefined` when it does not fit. */
export const consumeOne = (rule: Rule, state: QuotaState | undefined, now: number): QuotaState | undefined =>
  rule._tag === "Bucket"
    ? TokenBucket.consume(state as TokenBucket.State | undefined, now, rule)
    : rule._tag === "Window"
    ? SlidingWindow.consume(state as SlidingWindow.State | undefined, now, rule)
    : SlidingLog.consume(state as SlidingLog.State | undefined, now, rule)

/** What one quota's state shows at `now`. */
export const statusOf = (rule: Rule, state: QuotaState | undefined, now: number): Status =>
  rule._tag === "Bucket"
    ? TokenBucket.status(state as TokenBucket.State | undefined, now, rule)
    : rule._tag === "Window"
    ? SlidingWindow.status(state as SlidingWindow.State | undefined, now, rule)
    : SlidingLog.status(state as SlidingLog.State | undefined, now, rule)

/** Gives back one request counted at `countedAt`, seen at `now` (a right password: decision 0009 counts failures only). */
export const refundOne = (rule: Rule, state: QuotaState | undefined, countedAt: number, now: number): QuotaState | undefined =>
  state === undefined
    ? undefined
    : rule._tag === "Bucket"
    ? TokenBucket.refund(state as TokenBucket.State, now, rule)
    : rule._tag === "Window"
    ? SlidingWindow.refund(state as SlidingWindow.State, countedAt, rule)
    : SlidingLog.refund(state as SlidingLog.State, countedAt)

/**
 * The instant from which a state decides exactly like no state at all (a
 * full bucket, an empty window): a store may forget it then.
 */
export const expiresAt = (rule: Rule, state: QuotaState): number =>
  rule._tag === "Bucket"
    ? TokenBucket.status(state as TokenBucket.State, 0, rule).resetAt
    : rule._tag === "Window"
    ? ((state as SlidingWindow.State).window + 2) * rule.windowMillis
    : SlidingLog.expiresAt(state as SlidingLog.State, rule)

/**
 * How long past `expiresAt` a store keeps a state before forgetting it:
 * hosts' clocks disagree, and one running behind (by up to this much) must
 * still find the state another host wrote.
 */
export const retainAfterExpiryMillis = 5 * 60_000

/** Decides one request at `now` (epoch ms) against `quotas`, whose states are given in the same order. */
export const decide = (
  states: ReadonlyArray<QuotaState | undefined>,
  now: number,
  quotas: ReadonlyArray<Quota>
): Decision => {
  // Plain loops: this runs on every request.
  const n = quotas.length
  const consumed: Array<QuotaState | undefined> = new Array(n)
  let allowed = true
  for (let i = 0; i < n; i++) {
    const state = consumeOne(quotas[i].rule, states[i], now)
    consumed[i] = state
    if (state === undefined) allowed = false
  }
  const next = allowed ? consumed : states
  const statuses: Array<Status> = new Array(n)
  for (let i = 0; i < n; i++) statuses[i] = statusOf(quotas[i].rule, next[i], now)
  if (allowed) return { allowed, states: next, statuses, refusedBy: undefined, retryAfterSeconds: 0 }
  // Every quota only loosens as time passes, so the latest of their next instants passes them all.
  let longest = 0
  for (let i = 1; i < statuses.length; i++) {
    if (statuses[i].nextAllowedAt > statuses[longest].nextAllowedAt) longest = i
  }
  const passesAt = statuses[longest].nextAllowedAt
  return {
    allowed,
    states: next,
    statuses,
    refusedBy: quotas[longest].name,
    retryAfterSeconds: Math.max(1, Math.ceil((passesAt - now) / 1000))
  }
}

/** The API's two layers for one plan (decision 0009). */
export interface Limits {
  readonly burst: BucketRule
  readonly sustained: WindowRule
}

/** The API's two layers for a plan's numbers (a plan's by default). */
export const limitsOf = (plan: Plan | PlanLimits): Limits => {
  const numbers = typeof plan === "string" ? planLimits[plan] : plan
  return { burst: bucket(numbers.burst), sustained: window(numbers.sustained) }
}

/** The quotas a tenant's request of `endpointClass` is counted against: `burst` then `sustained`. */
export const tenantQuotas = (tenantId: TenantId, endpointClass: EndpointClass, limits: Limits): ReadonlyArray<Quota> => [
  { name: "burst", key: `tenant:${tenantId}:${endpointClass}:burst`, rule: limits.burst },
  { name: "sustained", key: `tenant:${tenantId}:${endpointClass}:sustained`, rule: limits.sustained }
]

const sameLimits = (a: Limits, b: Limits): boolean =>
  a.burst.capacity === b.burst.capacity && a.burst.fillMillis === b.burst.fillMillis &&
  a.sustained.limit === b.sustained.limit && a.sustained.windowMillis === b.sustained.windowMillis

/**
 * `tenantQuotas`, remembered per (tenant, class) until the limits change.
 * Building key strings per request costs more than the decision: a fresh
 * string is hashed anew by every store's lookup, a kept one once. Keeps up
 * to `capacity` tenants, then starts over.
 */
export const makeTenantQuotas = (capacity = 10_000) => {
  const byTenant = new Map<TenantId, Map<EndpointClass, { readonly limits: Limits; readonly quotas: ReadonlyArray<Quota> }>>()
  return (tenantId: TenantId, endpointClass: EndpointClass, limits: Limits): ReadonlyArray<Quota> => {
    let classes = byTenant.get(tenantId)
    if (classes === undefined) {
      if (byTenant.size >= capacity) byTenant.clear()
      byTenant.set(tenantId, classes = new Map())
    }
    const kept = classes.get(endpointClass)
    if (kept !== undefined && sameLimits(kept.limits, limits)) return kept.quotas
    const quotas = tenantQuotas(tenantId, endpointClass, limits)
    classes.set(endpointClass, { limits, quotas })
    return quotas
  }
}
