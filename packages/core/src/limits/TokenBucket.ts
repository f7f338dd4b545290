/**
 * The burst layer of rate limiting (decision 0009): a token bucket that starts
 * full and refills continuously, emptying-to-full in `fillMillis`.
 *
 * Pure functions of (state, now, bucket). Arithmetic is exact: the level is
 * kept in units of 1/`fillMillis` token, so a full bucket is
 * `capacity * fillMillis` units, one request costs `fillMillis` units and the
 * bucket gains `capacity` units per millisecond — integers throughout, so
 * every store (memory, SQL, Lua) computes the same decisions.
 *
 * @since 0.1.0
 */

/** A bucket's shape: how many requests it holds and how long it takes to refill from empty. */
export interface Bucket {
  readonly capacity: number
  readonly fillMillis: number
}

/** What a store keeps: the level (in 1/`fillMillis` token units) at `updatedAt` (epoch ms). */
export interface State {
  readonly level: number
  readonly updatedAt: number
}

/** What the bucket shows at an instant. */
export interface Status {
  readonly limit: number
  /** Whole tokens left. */
  readonly remaining: number
  /** When the bucket is full again (epoch ms). */
  readonly resetAt: number
  /** The first instant a request would find a token (epoch ms; `now` when one is there). */
  readonly nextAllowedAt: number
}

/** The level at `now`, and the instant it is measured at (a clock that stepped back does not refill twice). */
const levelAt = (state: State | undefined, now: number, bucket: Bucket): { readonly level: number; readonly at: number } => {
  const full = bucket.capacity * bucket.fillMillis
  if (state === undefined) return { level: full, at: now }
  const at = Math.max(now, state.updatedAt)
  return { level: Math.min(full, state.level + (at - state.updatedAt) * bucket.capacity), at }
}

/** Takes one token: the new state, or `undefined` when the bucket has none (and nothing changes). */
export const consume = (state: State | undefined, now: number, bucket: Bucket): State | undefined => {
  const { at, level } = levelAt(state, now, bucket)
  return level >= bucket.fillMillis ? { level: level - bucket.fillMillis, updatedAt: at } : undefined
}

/** What the bucket shows at `now`, without taking anything. */
export const status = (state: State | undefined, now: number, bucket: Bucket): Status => {
  const { at, level } = levelAt(state, now, bucket)
  const full = bucket.capacity * bucket.fillMillis
  return {
    limit: bucket.capacity,
    remaining: Math.floor(level / bucket.fillMillis),
    resetAt: at + Math.ceil((full - level) / bucket.capacity),
    nextAllowedAt: level >= bucket.fillMillis ? at : at + Math.ceil((bucket.fillMillis - level) / bucket.capacity)
  }
}

/** Gives one token back at `now` (never beyond a full bucket). */
export const refund = (state: State, now: number, bucket: Bucket): State => {
  const { at, level } = levelAt(state, now, bucket)
  return { level: Math.min(bucket.capacity * bucket.fillMillis, level + bucket.fillMillis), updatedAt: at }
}
