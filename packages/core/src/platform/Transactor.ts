/**
 * Port: runs an effect as one atomic unit against the store, so that a
 * resource and the idempotency record of the request that made it commit
 * together, or not at all.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "./Errors.ts"

/** Atomic units of work. */
export class Transactor extends Context.Service<Transactor, {
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | StoreError, R>
}>()("@analytics/core/Transactor") {}
