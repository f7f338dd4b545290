/**
 * The rate-limit store on Redis. Each operation is one round trip: a Lua
 * script (run by EVALSHA) reads, decides and writes a request's quotas
 * atomically, or a single ZREM releases a slot.
 *
 * The script repeats `TokenBucket.consume`, `SlidingWindow.consume` and
 * `SlidingLog.consume` in Lua with the same integer arithmetic, and returns the prior states it read:
 * the TypeScript side computes the `Decision` with `RateLimit.decide` from
 * them, so statuses and Retry-After come from the one implementation, and a
 * script that disagreed about `allowed` would be a bug (the fiber dies).
 *
 * The first call of each script loads it (SCRIPT LOAD, once per `Redis`
 * service); after a Redis restart, Effect's `Redis` reloads it on NOSCRIPT.
 *
 * Numbers: Lua's are doubles, like JavaScript's, so the same operations give
 * the same results; every value crosses Redis as a decimal integer (states
 * written with `%.0f`, since `tostring` rounds past 14 digits; replies as
 * Redis integers, which truncate Lua numbers). Both are exact below 2^53,
 * which `RateLimit` already requires: a bucket's `capacity * fillMillis`
 * below 2^53, a window's `limit * windowMillis` (3.6e15 for 1,000,000
 * requests an hour) below 2^52, as its weighted count may reach twice that.
 *
 * A key expires `RateLimit.retainAfterExpiryMillis` (5 minutes, as in every
 * store) after its state decides like no state (`RateLimit.expiresAt`), so
 * Redis forgets idle tenants, users and client IPs by itself.
 *
 * All keys of one request go to one script, so on Redis Cluster they would
 * have to share a hash slot: this store targets a single Redis (or a
 * primary with replicas).
 *
 * @since 0.1.0
 */
import { Errors, RateLimit, RateLimitStore } from "@analytics/core"
import * as NodeRedis from "@effect/platform-node/NodeRedis"
import { Effect, Layer } from "effect"
import * as Redis from "effect/persistence/Redis"

/** Where the store keeps its keys, and how long. */
export interface Options {
  /** Prepended to every key (default `analytics:ratelimit:`). */
  readonly keyPrefix?: string | undefined
  /**
   * How long a key outlives the instant its state decides like no state
   * (`RateLimit.expiresAt`, by the writer's clock; default
   * `RateLimit.retainAfterExpiryMillis`, 5 minutes). A host
   * whose clock is behind still finds the state, as the rules for clocks that
   * stepped back expect; with 0, Redis drops a just-refilled bucket a
   * millisecond after writing it, and such a host decides as if it were new.
   */
  readonly clockSkewMillis?: number | undefined
}

/**
 * Lua shared by the consume and refund scripts. ARGV starts with now and the
 * clock skew allowance; each quota's rule arrives as three ARGV entries
 * (kind, then capacity and fillMillis, or limit and windowMillis). A state is
 * kept as "level:updatedAt" (bucket), "window:current:previous" (window) or
 * "log:t1,t2,..." (a sliding log's ascending instants, at most its limit); a
 * value of another shape reads as no state, and the next write replaces it.
 */
const quotaLua = `
local now, skew = tonumber(ARGV[1]), tonumber(ARGV[2])
local shapes = { Bucket = "^(%-?%d+):(%-?%d+)$", Window = "^(%-?%d+):(%-?%d+):(%-?%d+)$", Log = "^log:([%d,%-]*)$" }

local function rule(i, first)
  local at = first + 3 * (i - 1)
  return ARGV[at], tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
end

local function read(key, kind)
  local raw = redis.call("GET", key)
  if not raw then return nil end
  local a, b, c = string.match(raw, shapes[kind])
  if not a then return nil end
  if kind == "Log" then
    local counted = {}
    for t in string.gmatch(a, "%-?%d+") do counted[#counted + 1] = tonumber(t) end
    return counted
  end
  return { tonumber(a), tonumber(b), c and tonumber(c) }
end

-- Integers as Redis should see them: tostring would round past 14 digits.
local function int(n) return string.format("%.0f", n) end

-- TokenBucket's level, measured at max(now, updatedAt): a clock that stepped back does not refill twice.
local function levelAt(state, capacity, fill)
  local full = capacity * fill
  if not state then return full, now end
  local at = math.max(now, state[2])
  return math.min(full, state[1] + (at - state[2]) * capacity), at
end

-- SlidingWindow's counts (window, elapsed, current, previous): a stored window at or after now's reads as is.
local function countsAt(state, w)
  local nowWindow = math.floor(now / w)
  if state and state[1] >= nowWindow then
    return state[1], math.max(0, now - state[1] * w), state[2], state[3]
  end
  local previous = 0
  if state and state[1] == nowWindow - 1 then previous = state[2] end
  return nowWindow, now - nowWindow * w, 0, previous
end

-- SlidingLog's instants inside the window at now (a later one, from a clock ahead, is inside), ascending.
local function inside(state, w)
  local live = {}
  if state then
    for _, t in ipairs(state) do
      if t > now - w then live[#live + 1] = t end
    end
  end
  return live
end

-- Writes a state, to expire skew after it decides like no state (RateLimit.expiresAt).
local function keep(key, kind, x, y, state)
  local value, expiresAt
  if kind == "Log" then
    if #state == 0 then
      redis.call("DEL", key)
      return
    end
    local parts = {}
    for i, t in ipairs(state) do parts[i] = int(t) end
    value = "log:" .. table.concat(parts, ",")
    expiresAt = state[#state] + y
  elseif kind == "Bucket" then
    local full = x * y
    value = int(state[1]) .. ":" .. int(state[2])
    expiresAt = state[2] + math.ceil((full - math.min(full, state[1])) / x)
  else
    value = int(state[1]) .. ":" .. int(state[2]) .. ":" .. int(state[3])
    expiresAt = (state[1] + 2) * y
  end
  redis.call("SET", key, value, "PX", int(math.max(1, expiresAt + skew - now)))
end
`

/**
 * KEYS: the quotas' keys; ARGV: now, skew, then each quota's rule. Replies
 * `[allowed, ...per quota: found, a, b, c]`: the prior states as read
 * (0 where absent, since a nil would end a Lua array; a log's `a` is the
 * array of its instants), and writes every consumed state only when all
 * quotas pass.
 */
const consumeScript = Redis.script(
  (keys: ReadonlyArray<string>, args: ReadonlyArray<string | number>) => [...keys, ...args],
  {
    numberOfKeys: (keys) => keys.length,
    lua: `${quotaLua}
local reply, consumed = { 1 }, {}
for i, key in ipairs(KEYS) do
  local kind, x, y = rule(i, 3)
  local state = read(key, kind)
  if kind == "Log" then
    reply[4 * i - 2], reply[4 * i - 1], reply[4 * i], reply[4 * i + 1] = state and 1 or 0, state or {}, 0, 0
    local live = inside(state, y)
    if #live < x then
      live[#live + 1] = now
      table.sort(live)
      consumed[i] = live
    end
  else
    local found = state or { 0, 0, 0 }
    reply[4 * i - 2], reply[4 * i - 1], reply[4 * i], reply[4 * i + 1] = state and 1 or 0, found[1], found[2], found[3] or 0
    if kind == "Bucket" then
      local level, at = levelAt(state, x, y)
      if level >= y then consumed[i] = { level - y, at } end
    else
      local window, elapsed, current, previous = countsAt(state, y)
      if previous * (y - elapsed) + current * y + y <= x * y then consumed[i] = { window, current + 1, previous } end
    end
  end
  if not consumed[i] then reply[1] = 0 end
end
if reply[1] == 1 then
  for i, key in ipairs(KEYS) do
    local kind, x, y = rule(i, 3)
    keep(key, kind, x, y, consumed[i])
  end
end
return reply
`
  }
).withReturnType<ReadonlyArray<number | ReadonlyArray<number>>>()

/** KEYS: the quotas' keys; ARGV: now, skew, countedAt, then each quota's rule. Mirrors `RateLimit.refundOne`. */
const refundScript = Redis.script(
  (keys: ReadonlyArray<string>, args: ReadonlyArray<string | number>) => [...keys, ...args],
  {
    numberOfKeys: (keys) => keys.length,
    lua: `${quotaLua}
local countedAt = tonumber(ARGV[3])
for i, key in ipairs(KEYS) do
  local kind, x, y = rule(i, 4)
  local state = read(key, kind)
  if state then
    if kind == "Log" then
      for j, t in ipairs(state) do
        if t == countedAt then
          table.remove(state, j)
          break
        end
      end
    elseif kind == "Bucket" then
      local level, at = levelAt(state, x, y)
      state = { math.min(x * y, level + y), at }
    else
      local counted = math.floor(countedAt / y)
      if state[1] == counted then
        state[2] = math.max(0, state[2] - 1)
      elseif state[1] == counted + 1 then
        state[3] = math.max(0, state[3] - 1)
      end
    end
    keep(key, kind, x, y, state)
  end
end
`
  }
)

/**
 * A sorted set of leases scored by expiry: drops the expired ones, refuses a
 * new lease when all slots are held, and keeps the key until its last lease
 * expires (and the skew allowance more). Replies 1 when the slot is held.
 */
const acquireSlotScript = Redis.script(
  (key: string, lease: string, capacity: number, now: number, expiresAt: number, skew: number) => [
    key,
    lease,
    capacity,
    now,
    expiresAt,
    skew
  ],
  {
    numberOfKeys: 1,
    lua: `
local key, lease, capacity, now, skew = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[5])
redis.call("ZREMRANGEBYSCORE", key, "-inf", ARGV[3])
if not redis.call("ZSCORE", key, lease) and redis.call("ZCARD", key) >= capacity then return 0 end
redis.call("ZADD", key, ARGV[4], lease)
local last = redis.call("ZRANGE", key, -1, -1, "WITHSCORES")
redis.call("PEXPIRE", key, string.format("%.0f", math.max(1, tonumber(last[2]) + skew - now)))
return 1
`
  }
).withReturnType<number>()

/** A rule as the scripts read it: kind, then its two numbers. */
const ruleArgs = ({ rule }: RateLimit.Quota): ReadonlyArray<string | number> =>
  rule._tag === "Bucket" ? [rule._tag, rule.capacity, rule.fillMillis] : [rule._tag, rule.limit, rule.windowMillis]

/** A reply entry as a number (a log's instants arrive as an array, the other entries as integers). */
const num = (value: number | ReadonlyArray<number> | undefined): number => typeof value === "number" ? value : 0

/** The prior states in the consume script's reply. */
const priorStates = (reply: ReadonlyArray<number | ReadonlyArray<number>>, quotas: ReadonlyArray<RateLimit.Quota>) =>
  quotas.map((quota, i): RateLimit.QuotaState | undefined => {
    const [found, a, b, c] = reply.slice(1 + 4 * i, 5 + 4 * i)
    if (found !== 1) return undefined
    if (quota.rule._tag === "Log") return { counted: Array.isArray(a) ? a.map(Number) : [] }
    return quota.rule._tag === "Bucket"
      ? { level: num(a), updatedAt: num(b) }
      : { window: num(a), current: num(b), previous: num(c) }
  })

/** Every Redis failure leaves the store as a `StoreError` naming the operation. */
const failAs = (operation: string) => <A>(effect: Effect.Effect<A, Redis.RedisError>) =>
  Effect.mapError(effect, (cause) => new Errors.StoreError({ operation: `RateLimitStore.${operation}`, cause })).pipe(
    RateLimitStore.timeLimited(`RateLimitStore.${operation}`)
  )

/** The store on the `Redis` service. */
export const make = (options?: Options): Effect.Effect<RateLimitStore.RateLimitStore["Service"], never, Redis.Redis> =>
  Effect.gen(function*() {
    const redis = yield* Redis.Redis
    const prefix = options?.keyPrefix ?? "analytics:ratelimit:"
    const skew = options?.clockSkewMillis ?? RateLimit.retainAfterExpiryMillis
    // Slots live apart from states, as in the memory store: the same key may name both.
    const stateKey = (key: string) => `${prefix}${key}`
    const slotKey = (key: string) => `${prefix}slots:${key}`
    const consume = redis.eval(consumeScript)
    const refund = redis.eval(refundScript)
    const acquireSlot = redis.eval(acquireSlotScript)
    return {
      consume: (quotas, now) =>
        consume(quotas.map((quota) => stateKey(quota.key)), [now, skew, ...quotas.flatMap(ruleArgs)]).pipe(
          failAs("consume"),
          Effect.flatMap((reply) => {
            const decision = RateLimit.decide(priorStates(reply, quotas), now, quotas)
            return decision.allowed === (reply[0] === 1)
              ? Effect.succeed(decision)
              : Effect.die(
                new Error(
                  `RedisRateLimitStore: the consume script ${reply[0] === 1 ? "admitted" : "refused"} a request ` +
                    `that RateLimit.decide ${decision.allowed ? "admits" : "refuses"} (a bug in the Lua arithmetic)`
                )
              )
          })
        ),
      refund: (quotas, countedAt, now) =>
        refund(quotas.map((quota) => stateKey(quota.key)), [now, skew, countedAt, ...quotas.flatMap(ruleArgs)]).pipe(
          failAs("refund")
        ),
      acquireSlot: (key, lease, capacity, now, expiresAt) =>
        acquireSlot(slotKey(key), lease, capacity, now, expiresAt, skew).pipe(
          Effect.map((held) => held === 1),
          failAs("acquireSlot")
        ),
      releaseSlot: (key, lease) => redis.send("ZREM", slotKey(key), lease).pipe(Effect.asVoid, failAs("releaseSlot"))
    }
  })

/** The store on the `Redis` service. */
export const layer = (options?: Options): Layer.Layer<RateLimitStore.RateLimitStore, never, Redis.Redis> =>
  Layer.effect(RateLimitStore.RateLimitStore, make(options))

/** The store on its own node-redis client connected to `url` (closed with the layer). */
export const layerUrl = (url: string, options?: Options): Layer.Layer<RateLimitStore.RateLimitStore, Redis.RedisError> =>
  Layer.provide(layer(options), NodeRedis.layer({ url }))
