/**
 * Natural batching of one kind of write: while a batch is being written,
 * the writes that arrive wait and go together in the next one. Under no
 * load a write goes alone at once (no timer, no added latency); under load
 * many share one statement and its round trip and commit.
 *
 * @since 0.1.0
 */
import { Deferred, Effect, Exit } from "effect"

/**
 * A function writing one item through batches of at most `maxBatch`; `run`
 * writes a batch and answers one result per item, in order.
 */
export const make = <I, O, E>(
  run: (items: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, E>,
  maxBatch: number
): (item: I) => Effect.Effect<O, E> => {
  let waiting: Array<{ readonly item: I; readonly done: Deferred.Deferred<O, E> }> = []
  let writing = false
  // Checking for more and clearing `writing` happen in one synchronous step, so no write is left behind.
  const drain = (): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (waiting.length === 0) {
        writing = false
        return Effect.void
      }
      const batch = waiting.slice(0, maxBatch)
      waiting = waiting.slice(batch.length)
      return Effect.flatMap(Effect.exit(run(batch.map((entry) => entry.item))), (exit) => {
        batch.forEach((entry, i) =>
          Deferred.doneUnsafe(entry.done, Exit.isSuccess(exit) ? Exit.succeed(exit.value[i]) : exit as Exit.Exit<never, E>)
        )
        return drain()
      })
    })
  return (item) =>
    Effect.gen(function*() {
      const done = yield* Deferred.make<O, E>()
      waiting.push({ item, done })
      if (!writing) {
        writing = true
        // The batch is written on its own fiber: a caller that stops waiting does not cancel the others' write.
        yield* Effect.forkDetach(drain())
      }
      return yield* Deferred.await(done)
    })
}
