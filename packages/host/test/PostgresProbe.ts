/**
 * A test's own connection to a PostgreSQL database, beside the hosts under
 * test: to read what they stored, and to hold a lock that makes one of
 * their statements wait, so a request is caught in flight deterministically
 * (no guessing how long a request takes).
 */
import { PgClient } from "@effect/sql-pg"
import { until as poll } from "@analytics/testing"
import { Deferred, Effect, Fiber, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"

const client = (url: string) => PgClient.make({ url: Redacted.make(url), maxConnections: 1 })

/** Runs one statement (no parameters) on `url` and resolves its rows. */
export const query = <A extends object = Record<string, unknown>>(url: string, statement: string): Promise<ReadonlyArray<A>> =>
  Effect.gen(function*() {
    const sql = yield* client(url)
    return yield* sql.unsafe<A>(statement)
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.runPromise)

/** A lock held by an open transaction, until released. */
export interface HeldLock {
  /** Commits the transaction that holds the lock; resolves once it is released. */
  readonly release: () => Promise<void>
}

/**
 * Opens a transaction on `url`, runs `lock` in it (e.g. `LOCK TABLE t IN
 * EXCLUSIVE MODE`) and keeps it open until `release`; resolves once the
 * lock is held.
 */
export const holdLock = async (url: string, lock: string): Promise<HeldLock> => {
  const held = Deferred.makeUnsafe<void>()
  const released = Deferred.makeUnsafe<void>()
  const fiber = Effect.runFork(
    Effect.gen(function*() {
      const sql = yield* client(url)
      yield* sql.withTransaction(Effect.gen(function*() {
        yield* sql.unsafe(lock)
        yield* Deferred.succeed(held, undefined)
        yield* Deferred.await(released)
      }))
    }).pipe(Effect.scoped, Effect.provide(Reactivity.layer))
  )
  // Fails here when the lock statement does.
  await Effect.runPromise(Effect.raceFirst(Deferred.await(held), Fiber.join(fiber)))
  return {
    release: async () => {
      Effect.runSync(Deferred.succeed(released, undefined))
      await Effect.runPromise(Fiber.join(fiber))
    }
  }
}

/** Polls `check` every 100 ms until it returns something, or throws after `timeoutMs`. */
export const until = <A>(what: string, check: () => Promise<A | undefined>, timeoutMs: number): Promise<A> =>
  poll(check, (found) => found !== undefined, { what, timeoutMillis: timeoutMs }) as Promise<A>
