/**
 * Listening to a PostgreSQL notification channel for as long as a scope
 * lasts: the first `LISTEN` is confirmed before this returns (nothing sent
 * after the subscription is missed); if the listening connection fails,
 * listening starts again a second later. PGlite serves one process and has
 * nothing to listen to.
 *
 * @since 0.1.0
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Option, type Queue, Schedule, type Scope, Stream } from "effect"
import type { SqlError } from "effect/sql/SqlError"

/** The payloads sent on `channel` by any process, or none without PostgreSQL; never fails. */
export const listen = (
  channel: string,
  what: string
): Effect.Effect<Option.Option<Stream.Stream<string>>, never, Scope.Scope> =>
  Effect.gen(function*() {
    const pg = yield* Effect.serviceOption(PgClient.PgClient)
    if (Option.isNone(pg)) return Option.none()
    const subscribe = pg.value.listen(channel)
    const payloads = (queue: Queue.Dequeue<{ readonly payload: string }, SqlError>) =>
      Stream.map(Stream.fromQueue(queue), (notification) => notification.payload)
    // The first LISTEN is confirmed before this returns; later ones (after a failure) as they come.
    const first = yield* Effect.option(subscribe)
    const failed = (error: SqlError) => Effect.logWarning(`Listening for ${what} failed; retrying`, error)
    const again = Stream.unwrap(Effect.map(subscribe, payloads)).pipe(
      Stream.tapError(failed),
      Stream.retry(Schedule.spaced("1 second")),
      // Retried forever: never fails.
      Stream.orDie
    )
    return Option.some(
      Option.match(first, {
        onNone: () => again,
        onSome: (queue) => Stream.catch(payloads(queue), (error) => Stream.unwrap(Effect.as(failed(error), again)))
      })
    )
  })
