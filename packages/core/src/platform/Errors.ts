/**
 * Domain errors. Each names its problem code; adapters render them
 * (the HTTP adapter as RFC 9457 problems).
 *
 * @since 0.1.0
 */
import { Data, Effect } from "effect"
import type { ProblemCode } from "./ProblemCode.ts"

/** V8's (and Node's) knob on how many frames an `Error` captures; other engines ignore it. */
const ErrorWithLimit = Error as ErrorConstructor & { stackTraceLimit?: number | undefined }

/** Turns stack capture off; answers the limit to put back. */
const stopStackTraces = (): number | undefined => {
  const limit = ErrorWithLimit.stackTraceLimit
  ErrorWithLimit.stackTraceLimit = 0
  return limit
}

/**
 * `make()` with no stack trace captured for the errors it constructs. A
 * typed failure is an answer (a 401, a 404, a 409), not a bug: no one reads
 * its stack, and V8 captures one for every `Error` made, 5-10 µs each, about
 * a third of a problem answer's CPU (docs/decisions/0008). Defects, and the
 * causes a failure wraps, keep theirs.
 */
export const withoutStackTrace = <A>(make: () => A): A => {
  const limit = stopStackTraces()
  try {
    return make()
  } finally {
    ErrorWithLimit.stackTraceLimit = limit
  }
}

/**
 * `Data.TaggedError(tag)` whose instances are made without a stack trace
 * (`withoutStackTrace`): the base of the domain's typed failures.
 */
export const TaggedFailure = <Tag extends string>(tag: Tag): ReturnType<typeof Data.TaggedError<Tag>> => {
  const Base = Data.TaggedError(tag) as unknown as new(args: unknown) => object
  class Failure extends Base {
    constructor(args: unknown) {
      // `super` cannot be called from a function, so `withoutStackTrace`'s steps are written out here.
      const limit = stopStackTraces()
      try {
        super(args)
      } finally {
        ErrorWithLimit.stackTraceLimit = limit
      }
    }
  }
  return Failure as unknown as ReturnType<typeof Data.TaggedError<Tag>>
}

/**
 * Where in an operation's input a refused value is (`["body", "url"]`,
 * `["query", "sort"]`) and what is wrong with it: an entry of a
 * `request/invalid` problem's `errors`.
 */
export interface Issue {
  readonly path: ReadonlyArray<string>
  readonly message: string
}

/**
 * A domain error that answers as a problem (docs/decisions/0001, "Errors
 * mapped once"): its `code` from the catalogue (`ProblemCode`), declared on
 * its class, and the sentence its problem's `detail` says: `problemDetail`
 * when its class words one from its fields, else its own `detail` (one of
 * the two is there: ErrorCodes.test checks every such error of core).
 */
export interface Answerable {
  readonly _tag: string
  readonly code: ProblemCode
  readonly problemDetail?: string
  readonly detail?: string
}

/** The sentence an answerable error's problem says: its `problemDetail`, else its `detail`. */
export const problemDetailOf = (error: Answerable): string | undefined => error.problemDetail ?? error.detail

/** No credential, or one that matches nothing. */
export class Unauthenticated extends TaggedFailure("Unauthenticated")<{
  readonly detail: string
}> {
  readonly code = "auth/unauthenticated" as const
}

/** A valid credential that may not do this. */
export class Forbidden extends TaggedFailure("Forbidden")<{
  readonly detail: string
}> {
  readonly code = "auth/forbidden" as const
}

/** The resource does not exist in the caller's tenant (another tenant's id included). */
export class NotFound extends TaggedFailure("NotFound")<{
  readonly resource: string
  readonly id: string
}> {
  /** The sentence its problem says. */
  get problemDetail(): string {
    return `No ${this.resource} ${this.id}`
  }
  readonly code = "resource/not-found" as const
}

/** A store's answer for one record, with NotFound for none (the use cases' `get`). */
export const orNotFound = (resource: string, id: string) =>
<A, E, R>(found: Effect.Effect<A | undefined, E, R>): Effect.Effect<A, E | NotFound, R> =>
  Effect.flatMap(found, (a) => a === undefined ? Effect.fail(new NotFound({ resource, id })) : Effect.succeed(a))

/** A storage backend failed; the request may be retried. */
export class StoreError extends TaggedFailure("StoreError")<{
  readonly operation: string
  readonly cause: unknown
}> {
  readonly code = "service/unavailable" as const
  /** The sentence its problem says (the cause stays in the log). */
  get problemDetail(): string {
    return "The store is unavailable; retry later"
  }
}
