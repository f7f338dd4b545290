/**
 * Transactions in memory: each write inside a transaction records how to
 * undo itself, so a failed transaction leaves nothing behind, and work
 * meant for after the commit (an outbox's deliveries becoming visible)
 * waits for it, as on PostgreSQL.
 *
 * @since 0.1.0
 */
import { Transactor } from "@analytics/core"
import { Context, Effect, Exit } from "effect"

/** What the transaction the current fiber runs in has done, and what waits for its commit. */
interface Log {
  readonly undo: Array<() => void>
  readonly afterCommit: Array<() => void>
}

const CurrentLog = Context.Reference<Log | undefined>("@analytics/adapter-memory/TransactionLog", {
  defaultValue: () => undefined
})

/** Runs a write and records its undo action when inside a transaction. */
export const write = <A>(apply: () => readonly [result: A, undo: () => void]): Effect.Effect<A> =>
  Effect.withFiber((fiber) => {
    const [result, undo] = apply()
    fiber.getRef(CurrentLog)?.undo.push(undo)
    return Effect.succeed(result)
  })

/** Runs `action` when the current transaction commits (now, outside one); dropped if it fails. */
export const afterCommit = (action: () => void): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    const log = fiber.getRef(CurrentLog)
    if (log === undefined) action()
    else log.afterCommit.push(action)
    return Effect.void
  })

/** Restores a map entry to what it was. */
export const restore = <K, V>(map: Map<K, V>, key: K): () => void => {
  const had = map.has(key)
  const previous = map.get(key)
  return () => {
    if (had) map.set(key, previous as V)
    else map.delete(key)
  }
}

/** Set and return how to undo it. */
export const set = <K, V>(map: Map<K, V>, key: K, value: V): () => void => {
  const undo = restore(map, key)
  map.set(key, value)
  return undo
}

/** Transactions: a log per transaction; a nested one hands its log to its parent on success. */
export const transactor = Transactor.Transactor.of({
  transaction: (effect) =>
    Effect.withFiber((fiber) => {
      const parent = fiber.getRef(CurrentLog)
      const log: Log = { undo: [], afterCommit: [] }
      return effect.pipe(
        Effect.provideService(CurrentLog, log),
        Effect.onExit((exit) =>
          Effect.sync(() => {
            if (Exit.isFailure(exit)) {
              for (let i = log.undo.length - 1; i >= 0; i--) log.undo[i]()
            } else if (parent !== undefined) {
              parent.undo.push(...log.undo)
              parent.afterCommit.push(...log.afterCommit)
            } else {
              for (const action of log.afterCommit) action()
            }
          })
        )
      )
    })
})
