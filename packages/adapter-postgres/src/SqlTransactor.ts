/**
 * The Transactor over `SqlClient`: `withTransaction`, savepoints when nested.
 *
 * @since 0.1.0
 */
import { Errors, Transactor } from "@analytics/core"
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"

/** Wraps the unit's own failures, so that only the transaction's (BEGIN, COMMIT) become `StoreError`. */
class Inner {
  readonly error: unknown
  constructor(error: unknown) {
    this.error = error
  }
}

/** The Transactor on SQL: `withTransaction`, savepoints when nested. */
export const make: Effect.Effect<Transactor.Transactor["Service"], never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql) =>
    Transactor.Transactor.of({
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        sql.withTransaction(Effect.mapError(effect, (error) => new Inner(error))).pipe(
          Effect.mapError((error) =>
            error instanceof Inner
              ? error.error as E
              : new Errors.StoreError({ operation: "Transactor.transaction", cause: error })
          )
        )
    })
)
