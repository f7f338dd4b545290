/**
 * Domain errors. Each names its problem code; adapters render them
 * (the HTTP adapter as RFC 9457 problems).
 *
 * @since 0.1.0
 */
import { Data } from "effect"

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

/** A storage backend failed; the request may be retried. */
export class StoreError extends Data.TaggedError("StoreError")<{
  readonly operation: string
  readonly cause: unknown
}> {}
