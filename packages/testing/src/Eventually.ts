/**
 * Waiting in tests for what happens asynchronously (a delivery, a span, a
 * worker's write): poll, in real time, until a check holds, or fail after a
 * deadline naming what was awaited and the last value seen. Real time on
 * purpose: `setTimeout`, so a test's TestClock does not hold the wait.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"

/** How long to wait and how often to look. */
export interface Polling {
  /** What is awaited, for the failure's message. */
  readonly what?: string | undefined
  /** Default 10 s. */
  readonly timeoutMillis?: number | undefined
  /** Default 10 ms. */
  readonly intervalMillis?: number | undefined
}

const pause = (millis: number) => new Promise<void>((resolve) => setTimeout(resolve, millis))

const timedOut = (what: string | undefined, timeoutMillis: number, last: unknown) =>
  new Error(`${what ?? "condition"}: not within ${timeoutMillis} ms; last: ${JSON.stringify(last)?.slice(0, 2000)}`)

/** Runs `read` until `check` holds on its value (by default: the value is truthy), and returns that value. */
export const eventually = <A, E, R>(
  read: Effect.Effect<A, E, R>,
  check: (a: A) => boolean = Boolean,
  { intervalMillis = 10, timeoutMillis = 10_000, what }: Polling = {}
): Effect.Effect<A, E, R> =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMillis
    while (true) {
      const value = yield* read
      if (check(value)) return value
      if (Date.now() > deadline) return yield* Effect.die(timedOut(what, timeoutMillis, value))
      yield* Effect.promise(() => pause(intervalMillis))
    }
  })

/** `eventually` for promises: calls `read` until `check` holds on its value, and resolves to that value. */
export const until = async <A>(
  read: () => Promise<A> | A,
  check: (a: A) => boolean = Boolean,
  { intervalMillis = 100, timeoutMillis = 10_000, what }: Polling = {}
): Promise<A> => {
  const deadline = Date.now() + timeoutMillis
  while (true) {
    const value = await read()
    if (check(value)) return value
    if (Date.now() > deadline) throw timedOut(what, timeoutMillis, value)
    await pause(intervalMillis)
  }
}
