/**
 * An exact sliding window: a log of the instants requests were counted at.
 * A request passes when fewer than `limit` logged instants lie in the last
 * `windowMillis` (an instant `t` is inside at `now` while `now - t <
 * windowMillis`), so no stretch of `windowMillis` ever holds more than
 * `limit` counted requests, unlike the weighted counter of
 * `SlidingWindow`, which approximates. It keeps up to `limit` instants per
 * key, so it is meant for small limits: password attempts (5 per 5 minutes per
 * client address; decision 0009).
 *
 * Pure functions of (state, now, log), integers only, so the memory, SQL and
 * Lua stores decide identically.
 *
 * @since 0.1.0
 */

/** A log's shape: at most `limit` requests in any `windowMillis`. */
export interface Log {
  readonly limit: number
  readonly windowMillis: number
}

/** What a store keeps: the instants (epoch ms) of the counted requests still inside the window when last written, ascending. */
export interface State {
  readonly counted: ReadonlyArray<number>
}

/** What the log shows at an instant. */
export interface Status {
  readonly limit: number
  /** Requests left: the limit minus the instants inside the window, never below 0. */
  readonly remaining: number
  /** When every instant logged so far has left the window (epoch ms; `now` when none is inside). */
  readonly resetAt: number
  /** The first instant a request would pass: when enough of the oldest logged instants have left (`now` when it would pass now). */
  readonly nextAllowedAt: number
}

/**
 * The logged instants inside the window at `now`, ascending. An instant
 * after `now` (written by a host whose clock is ahead) counts as inside.
 */
export const inside = (state: State | undefined, now: number, { windowMillis }: Log): ReadonlyArray<number> => {
  if (state === undefined) return []
  const from = now - windowMillis
  // Ascending: the ones that left are a prefix.
  let i = 0
  while (i < state.counted.length && state.counted[i] <= from) i++
  return i === 0 ? state.counted : state.counted.slice(i)
}

/** Counts one request: the new state (the instants inside plus `now`), or `undefined` when `limit` are inside (and nothing changes). */
export const consume = (state: State | undefined, now: number, log: Log): State | undefined => {
  const live = inside(state, now, log)
  if (live.length >= log.limit) return undefined
  // Kept ascending even when another host's clock wrote later instants.
  let at = live.length
  while (at > 0 && live[at - 1] > now) at--
  return { counted: [...live.slice(0, at), now, ...live.slice(at)] }
}

/** Uncounts one request counted at `countedAt` (a right password): drops one logged instant equal to it, if any is still kept. */
export const refund = (state: State, countedAt: number): State => {
  const at = state.counted.indexOf(countedAt)
  return at < 0 ? state : { counted: [...state.counted.slice(0, at), ...state.counted.slice(at + 1)] }
}

/** What the log shows at `now`, without counting anything. */
export const status = (state: State | undefined, now: number, log: Log): Status => {
  const live = inside(state, now, log)
  const n = live.length
  return {
    limit: log.limit,
    remaining: Math.max(0, log.limit - n),
    resetAt: n === 0 ? now : live[n - 1] + log.windowMillis,
    // With n >= limit inside, the request passes once the n - limit + 1 oldest have left.
    nextAllowedAt: n < log.limit ? now : live[n - log.limit] + log.windowMillis
  }
}

/** The instant from which the state decides exactly like no state: its last instant has left the window. */
export const expiresAt = (state: State, { windowMillis }: Log): number =>
  state.counted.length === 0 ? 0 : state.counted[state.counted.length - 1] + windowMillis
