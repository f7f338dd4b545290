/**
 * How a migration runs its DDL.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"

/** Runs DDL statements one by one: the extended protocol takes one statement per query. */
export const ddl = (statements: ReadonlyArray<string>): Effect.Effect<void, SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.forEach(statements, (statement) => sql.unsafe(statement), { discard: true }))
