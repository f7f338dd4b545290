/**
 * @analytics/adapter-redis: the rate-limit store on Redis, for deployments
 * that outgrow a database round trip per request. Every decision is one
 * EVALSHA: a Lua script reads, decides and writes all of a request's quotas
 * atomically, so any number of host processes share exact limits.
 *
 * @since 0.1.0
 */
/** `RateLimitStore` on Redis: `make`, `layer` (on a `Redis` service) and `layerUrl` (its own client). */
export * as RedisRateLimitStore from "./RedisRateLimitStore.ts"
