/**
 * Rate limits and fairness: token buckets, sliding windows and logs, the
 * limiter port and its store, per-operation limits, and the scheduler that
 * shares the engine between tenants.
 *
 * @since 0.1.0
 */
export * as EngineScheduler from "./EngineScheduler.ts"
export * as Limiter from "./Limiter.ts"
export * as OperationLimits from "./OperationLimits.ts"
export * as RateLimit from "./RateLimit.ts"
export * as RateLimitStore from "./RateLimitStore.ts"
export * as SlidingLog from "./SlidingLog.ts"
export * as SlidingWindow from "./SlidingWindow.ts"
export * as TokenBucket from "./TokenBucket.ts"
