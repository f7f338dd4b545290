/**
 * The sustained layer of rate limiting (decision 0009): a sliding-window counter.
 * Requests are counted in fixed windows of `windowMillis` (aligned to the
 * epoch); the count over the last `windowMillis` is estimated as the previous
 * window's count weighted by the part of it still inside, plus the current
 * window's count.
 *
 * Pure functions of (state, now, window), in exact integer arithmetic (every
 * comparison is multiplied through by `windowMillis`), so every store
 * computes the same decisions.
 *
 * @since 0.1.0
 */

/** A window's shape: how many requests fit in `windowMillis`. */
export interface Window {
  readonly limit: number
  readonly windowMillis: number
}

/** What a store keeps: the counts of window number `window` (`floor(epoch ms / windowMillis)`) and the one before. */
export interface State {
  readonly window: number
  readonly current: number
  readonly previous: number
}

/** What the counter shows at an instant. */
export interface Status {
  readonly limit: number
  /** Requests left: the limit minus the weighted count, rounded down, never below 0. */
  readonly remaining: number
  /** When every request counted so far has left the window (epoch ms). */
  readonly resetAt: number
  /** The first instant a request would pass (epoch ms; `now` when it would pass now). */
  readonly nextAllowedAt: number
}

interface Counts {
  readonly window: number
  readonly start: number
  /** Milliseconds since the window began. */
  readonly elapsed: number
  readonly current: number
  readonly previous: number
}

/** The counts as seen at `now` (a clock that stepped behind the stored window reads that window's start). */
const countsAt = (state: State | undefined, now: number, { windowMillis }: Window): Counts => {
  const nowWindow = Math.floor(now / windowMillis)
  if (state !== undefined && state.window >= nowWindow) {
    const start = state.window * windowMillis
    return { window: state.window, start, elapsed: Math.max(0, now - start), current: state.current, previous: state.previous }
  }
  // A later window: the stored counts are the previous window's when adjacent, else forgotten.
  const start = nowWindow * windowMillis
  const previous = state !== undefined && state.window === nowWindow - 1 ? state.current : 0
  return { window: nowWindow, start, elapsed: now - start, current: 0, previous }
}

/** The weighted count times `windowMillis`. */
const scaledCount = (c: Counts, windowMillis: number): number =>
  c.previous * (windowMillis - c.elapsed) + c.current * windowMillis

/** Counts one request: the new state, or `undefined` when it would exceed the limit (and nothing changes). */
export const consume = (state: State | undefined, now: number, window: Window): State | undefined => {
  const c = countsAt(state, now, window)
  return scaledCount(c, window.windowMillis) + window.windowMillis <= window.limit * window.windowMillis
    ? { window: c.window, current: c.current + 1, previous: c.previous }
    : undefined
}

/** Uncounts one request counted at `countedAt`: from its window if that is still kept, else nothing changes. */
export const refund = (state: State, countedAt: number, { windowMillis }: Window): State => {
  const counted = Math.floor(countedAt / windowMillis)
  if (state.window === counted) return { ...state, current: Math.max(0, state.current - 1) }
  if (state.window === counted + 1) return { ...state, previous: Math.max(0, state.previous - 1) }
  return state
}

/** What the counter shows at `now`, without counting anything. */
export const status = (state: State | undefined, now: number, window: Window): Status => {
  const { limit, windowMillis: w } = window
  const c = countsAt(state, now, window)
  const remaining = Math.max(0, Math.floor((limit * w - scaledCount(c, w)) / w))
  const resetAt = c.current > 0 ? c.start + 2 * w : c.previous > 0 ? c.start + w : now
  return { limit, remaining, resetAt, nextAllowedAt: nextAllowedAt(c, now, window) }
}

/**
 * The first instant one more request fits. The weighted count only falls as
 * time passes (the previous window's weight shrinks; at a boundary the
 * current count becomes the previous one at full weight), so the answer is
 * the first instant the inequality holds: in this window, the next one, or
 * the one after, when both counts are gone.
 */
const nextAllowedAt = (c: Counts, now: number, { limit, windowMillis: w }: Window): number => {
  // In this window: previous * (w - elapsed) <= (limit - current - 1) * w.
  const roomHere = (limit - c.current - 1) * w
  if (roomHere >= 0) {
    if (c.previous === 0) return now
    const elapsed = w - Math.floor(roomHere / c.previous)
    if (elapsed <= c.elapsed) return now
    if (elapsed < w) return c.start + elapsed
  }
  // In the next window, where the current count becomes the previous one.
  if (c.current === 0) return c.start + w
  const elapsed = w - Math.floor(((limit - 1) * w) / c.current)
  return elapsed < w ? c.start + w + Math.max(0, elapsed) : c.start + 2 * w
}
