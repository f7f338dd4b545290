/**
 * Domain errors. Each names its problem code; adapters render them
 * (the HTTP adapter as RFC 9457 problems).
 *
 * @since 0.1.0
 */
import { Data, Effect } from "effect"

/** No credential, or one that matches nothing. */
export class Unauthenticated extends Data.TaggedError("Unauthenticated")<{
  readonly detail: string
}> {
  readonly code = "auth/unauthenticated" as const
}

/** A valid credential that may not do this. */
export class Forbidden extends Data.TaggedError("Forbidden")<{
  readonly detail: string
}> {
  readonly code = "auth/forbidden" as const
}

/** The resource does not exist in the caller's tenant (another tenant's id included). */
export class NotFound extends Data.TaggedError("NotFound")<{
  readonly resource: string
  readonly id: string
}> {
  readonly code = "resource/not-found" as const
}

/** A store's answer for one record, with NotFound for none (the use cases' `get`). */
export const orNotFound = (resource: string, id: string) =>
<A, E, R>(found: Effect.Effect<A | undefined, E, R>): Effect.Effect<A, E | NotFound, R> =>
  Effect.flatMap(found, (a) => a === undefined ? Effect.fail(new NotFound({ resource, id })) : Effect.succeed(a))

/** A storage backend failed; the request may be retried. */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly operation: string
  readonly cause: unknown
}> {}
