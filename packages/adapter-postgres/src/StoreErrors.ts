/**
 * What every SQL store shares: how SQL failures leave the adapter, and
 * which ids can match a row.
 *
 * @since 0.1.0
 */
import { Errors, Ids } from "@analytics/core"
import { Effect } from "effect"
import { isSqlError, type SqlError } from "effect/sql/SqlError"

/**
 * Every SQL failure leaves the adapter as a `StoreError` naming the
 * operation; the store's own errors (a row that did not decode) pass as they are.
 */
export const failAs = (operation: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.mapError(effect, (cause) => isSqlError(cause) ? new Errors.StoreError({ operation, cause }) : cause as Exclude<E, SqlError>)

/**
 * Ids the domain never issues cannot match a row; answering "absent" for them
 * keeps a malformed id a 404 (as in memory) rather than a uuid cast error.
 */
export const isId = Ids.isUuid
