/**
 * ServiceSecrets over `SqlClient`: the first instance to store a secret wins.
 *
 * @since 0.1.0
 */
import { ServiceSecrets } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import * as Rows from "./Rows.ts"
import { failAs } from "./StoreErrors.ts"

const secrets = Rows.reader(Schema.Struct({ value: Schema.String }), (row) => row.value)

/** ServiceSecrets on SQL: the first instance to store a secret wins, the others read it. */
export const make: Effect.Effect<ServiceSecrets.ServiceSecrets["Service"], never, SqlClient.SqlClient> =
  Effect.map(SqlClient.SqlClient, (sql) => {
    const read = (name: string) =>
      sql`SELECT value FROM service_secrets WHERE name = ${name}`.pipe(secrets.first("ServiceSecrets.getOrCreate"))
    return ServiceSecrets.ServiceSecrets.of({
      getOrCreate: (name, generate) =>
        Effect.gen(function*() {
          const existing = yield* read(name)
          if (existing !== undefined) return existing
          const value = yield* generate
          const inserted = yield* sql`INSERT INTO service_secrets (name, value) VALUES (${name}, ${value})
            ON CONFLICT (name) DO NOTHING RETURNING value`
          if (inserted.length > 0) return value
          // Another instance stored it first (its commit is what we waited on).
          const winner = yield* read(name)
          if (winner !== undefined) return winner
          return yield* Effect.die(new Error(`The service secret ${name} vanished while being created`))
        }).pipe(failAs("ServiceSecrets.getOrCreate"))
    })
  })
