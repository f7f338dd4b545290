/**
 * A synchronous hit path in front of an Effect `Cache` (decision 0008). Every
 * request reads the principal and tenant caches; an Effect `Cache` hit
 * hashes its key several times and runs several effects, a plain `Map`
 * answers in one lookup. The Effect `Cache` stays behind it for misses,
 * where it shares one lookup among concurrent requests.
 *
 * It must never answer what the cache behind it would not: each entry
 * carries the instant its lookup's answer expires (read from the answer,
 * so it never outlives the cache's own entry), and invalidation bumps a
 * generation, so a lookup started before an invalidation (a revoked token,
 * a changed plan) cannot put its stale answer back when it completes.
 *
 * @since 0.1.0
 */
import { Cache, Clock, Effect } from "effect"

/** The values kept for keys until their instant, with the generation a lookup must still match to keep its answer. */
export interface HitPath<K, V> {
  /** The value kept for `key` at `now` (epoch ms), or `undefined` when there is none or it has expired. */
  readonly get: (key: K, now: number) => V | undefined
  /** The generation now: read before a lookup starts, and handed to `set` with its answer. */
  readonly generation: () => number
  /**
   * Keeps `value` for `key` until `expiresAt` (exclusive), unless an
   * invalidation happened since `generation` was read (the answer may be
   * stale then). At capacity, the oldest entry makes way.
   */
  readonly set: (key: K, value: V, expiresAt: number, generation: number) => void
  /** Forgets `key`, and refuses the answers of lookups started before. */
  readonly invalidate: (key: K) => void
  /** Forgets every key, and refuses the answers of lookups started before. */
  readonly invalidateAll: () => void
  /** How many entries are kept (expired ones included until read). */
  readonly size: () => number
}

interface Entry<V> {
  readonly value: V
  readonly expiresAt: number
}

/** An empty hit path of at most `capacity` entries. */
export const make = <K, V>(capacity: number): HitPath<K, V> => {
  const entries = new Map<K, Entry<V>>()
  // One counter for every key: invalidations are rare (revocations, plan changes), and a refused answer only costs a later request a lookup.
  let generation = 0
  return {
    get: (key, now) => {
      const entry = entries.get(key)
      if (entry === undefined) return undefined
      // The same boundary as Effect's Cache: expired from `expiresAt` on.
      if (now >= entry.expiresAt) {
        entries.delete(key)
        return undefined
      }
      return entry.value
    },
    generation: () => generation,
    set: (key, value, expiresAt, asOf) => {
      if (asOf !== generation) return
      // Re-setting moves the key to the end: Map order is insertion order, so the first key is the oldest.
      if (!entries.delete(key) && entries.size >= capacity) {
        const oldest = entries.keys().next()
        if (oldest.done !== true) entries.delete(oldest.value)
      }
      entries.set(key, { value, expiresAt })
    },
    invalidate: (key) => {
      generation++
      entries.delete(key)
    },
    invalidateAll: () => {
      generation++
      entries.clear()
    },
    size: () => entries.size
  }
}

/** A lookup's answer behind a hit path: its value, when the cache's entry expires (epoch ms), and the generation it began in. */
export interface Answer<A> {
  readonly value: A
  readonly expiresAt: number
  readonly generation: number
}

/**
 * The lookup of a cache behind `hits`: `lookup`'s value, with the instant
 * the cache's entry of it expires (the cache counts `timeToLiveMillis` from
 * this answer too) and the generation the lookup began in.
 */
export const answer = <K, V, A, E, R>(
  hits: HitPath<K, V>,
  timeToLiveMillis: number,
  lookup: Effect.Effect<A, E, R>
): Effect.Effect<Answer<A>, E, R> =>
  Effect.suspend(() => {
    const generation = hits.generation()
    return Effect.flatMap(lookup, (value) =>
      Clock.clockWith((clock) => Effect.succeed({ value, generation, expiresAt: clock.currentTimeMillisUnsafe() + timeToLiveMillis })))
  })

/**
 * A key the hit path does not hold, through `cache` (whose lookup is
 * `answer`): its value, kept in the hit path when defined and no
 * invalidation came since its lookup began. A request that began before an
 * invalidation may still get an answer from before it (as it would have
 * without the hit path). One that began after it never does: should the
 * cache hold such an answer (an invalidation can land as a lookup starts,
 * before the cache records it), the key is looked up again.
 */
export const lookUp = <K, V, A extends V | undefined, E>(
  hits: HitPath<K, V>,
  cache: Cache.Cache<K, Answer<A>, E>,
  key: K
): Effect.Effect<A, E> => {
  const asOf = hits.generation()
  return Effect.flatMap(Cache.get(cache, key), (found): Effect.Effect<A, E> => {
    if (found.generation < asOf) {
      return Effect.andThen(Cache.invalidate(cache, key), Effect.map(Cache.get(cache, key), (again) => again.value))
    }
    if (found.value !== undefined) hits.set(key, found.value as V, found.expiresAt, found.generation)
    return Effect.succeed(found.value)
  })
}
