/**
 * The IdempotencyStore over `SqlClient`: a key reserved, completed or
 * released in single statements (`ON CONFLICT`).
 *
 * @since 0.1.0
 */
import { Errors, Idempotency } from "@analytics/core"
import { Effect, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as Rows from "./Rows.ts"
import { failAs } from "./StoreErrors.ts"

const IdempotencyRow = Schema.Struct({
  owner: Schema.String,
  scope: Schema.String,
  key: Schema.String,
  fingerprint: Schema.String,
  created_at: Schema.Date,
  response_status: Schema.NullOr(Schema.Number),
  response_headers: Schema.NullOr(Rows.Jsonb(Schema.Record(Schema.String, Schema.String))),
  response_body: Schema.NullOr(Schema.String)
})

const records = Rows.reader(IdempotencyRow, (row): Idempotency.IdempotencyRecord => ({
  owner: row.owner,
  scope: row.scope,
  key: row.key,
  fingerprint: row.fingerprint,
  createdAt: row.created_at,
  response: row.response_status === null
    ? undefined
    : { status: row.response_status, headers: row.response_headers ?? {}, body: row.response_body ?? "" }
}))

/**
 * What `reserve`'s statement answers first: whether it reserved, and
 * whether the record it joined is answered (its other columns are then
 * read as a record; all NULL when no answered record matched).
 */
const reservations = Rows.reader(Schema.Struct({ reserved: Schema.Boolean, response_status: Schema.NullOr(Schema.Number) }))

/**
 * How often `reserve` retries when the record it lost to was released before
 * it could be read. Each retry needs another request to release in that
 * instant, so more than a couple means something is wrong.
 */
const reserveAttempts = 5

/** The IdempotencyStore on SQL. */
export const make: Effect.Effect<Idempotency.IdempotencyStore["Service"], never, SqlClient.SqlClient> =
  Effect.map(SqlClient.SqlClient, (sql) => {
    /**
     * The existing record after a lost reservation, read by its own
     * statement (a snapshot taken after the insert gave way); retries when
     * it was released in between.
     */
    const existing = (
      record: Omit<Idempotency.IdempotencyRecord, "response">,
      cutoffs: { readonly expiredBefore: Date; readonly abandonedBefore: Date },
      attemptsLeft: number
    ): Effect.Effect<Idempotency.ReserveResult, SqlError | Errors.StoreError> =>
      Effect.gen(function*() {
        const found = yield* sql`SELECT owner, scope, key, fingerprint, created_at,
            response_status, response_headers, response_body
          FROM idempotency_keys
          WHERE owner = ${record.owner} AND scope = ${record.scope} AND key = ${record.key}`.pipe(
          Effect.flatMap(records.decodeFirst("IdempotencyStore.reserve"))
        )
        if (found !== undefined) return { _tag: "Existing", record: found } as const
        // Released between the two statements: try again.
        if (attemptsLeft > 1) return yield* reserve(record, cutoffs, attemptsLeft - 1)
        return yield* new Errors.StoreError({
          operation: "IdempotencyStore.reserve",
          cause: new Error("The key kept being released while it was being reserved")
        })
      })
    const reserve = (
      record: Omit<Idempotency.IdempotencyRecord, "response">,
      cutoffs: { readonly expiredBefore: Date; readonly abandonedBefore: Date },
      attemptsLeft: number
    ): Effect.Effect<Idempotency.ReserveResult, SqlError | Errors.StoreError> =>
      Effect.flatMap(
        // One statement decides: insert, or take over a stale record, or leave
        // a live one alone. The row lock of ON CONFLICT makes exactly one of
        // any number of concurrent callers win.
        //
        // The same statement also reads an answered, unexpired record (a
        // replay, the usual loser): one round trip instead of two. Its read
        // sees the snapshot from before the statement, and only such a record
        // is taken from it, as none can change unless it expires (complete,
        // release and take-over touch only unanswered or stale ones). Any
        // other loss (still running, or changed while the insert waited) is
        // read again by a statement of its own, as before.
        sql`WITH taken AS (
            INSERT INTO idempotency_keys AS k (owner, scope, key, fingerprint, created_at)
            VALUES (${record.owner}, ${record.scope}, ${record.key}, ${record.fingerprint}, ${record.createdAt})
            ON CONFLICT (owner, scope, key) DO UPDATE SET
              fingerprint = excluded.fingerprint,
              created_at = excluded.created_at,
              response_status = NULL,
              response_headers = NULL,
              response_body = NULL
            WHERE k.created_at < ${cutoffs.expiredBefore}
              OR (k.response_status IS NULL AND k.created_at < ${cutoffs.abandonedBefore})
            RETURNING 1
          )
          SELECT EXISTS (SELECT 1 FROM taken) AS reserved, e.owner, e.scope, e.key, e.fingerprint, e.created_at,
              e.response_status, e.response_headers, e.response_body
            FROM (SELECT 1) AS one
            LEFT JOIN idempotency_keys e
              ON e.owner = ${record.owner} AND e.scope = ${record.scope} AND e.key = ${record.key}
                AND e.response_status IS NOT NULL AND e.created_at >= ${cutoffs.expiredBefore}`,
        (rows): Effect.Effect<Idempotency.ReserveResult, SqlError | Errors.StoreError> =>
          Effect.flatMap(reservations.decodeFirst("IdempotencyStore.reserve")(rows), (row) => {
            if (row?.reserved === true) return Effect.succeed({ _tag: "Reserved" })
            if (row !== undefined && row.response_status !== null) {
              return Effect.map(records.decodeOne("IdempotencyStore.reserve")(rows[0]), (found) => ({ _tag: "Existing", record: found }))
            }
            return existing(record, cutoffs, attemptsLeft)
          })
      )
    return Idempotency.IdempotencyStore.of({
      reserve: (record, cutoffs) =>
        reserve(record, cutoffs, reserveAttempts).pipe(
          Effect.catchTag("SqlError", (cause) =>
            Effect.fail(new Errors.StoreError({ operation: "IdempotencyStore.reserve", cause })))
        ),
      complete: ({ createdAt, key, owner, scope }, response) =>
        // Only the reservation this request holds: a successor that took the key over is left alone.
        sql`UPDATE idempotency_keys SET
            response_status = ${response.status},
            response_headers = ${JSON.stringify(response.headers)}::jsonb,
            response_body = ${response.body}
          WHERE owner = ${owner} AND scope = ${scope} AND key = ${key}
            AND created_at = ${createdAt} AND response_status IS NULL`.pipe(
          Effect.asVoid,
          failAs("IdempotencyStore.complete")
        ),
      release: ({ createdAt, key, owner, scope }) =>
        // Only this request's unanswered reservation: a stored response stays for replay.
        sql`DELETE FROM idempotency_keys
          WHERE owner = ${owner} AND scope = ${scope} AND key = ${key}
            AND created_at = ${createdAt} AND response_status IS NULL`.pipe(
          Effect.asVoid,
          failAs("IdempotencyStore.release")
        ),
      purgeExpired: (before) =>
        sql`WITH purged AS (
            DELETE FROM idempotency_keys WHERE created_at < ${before} RETURNING 1
          ) SELECT count(*) AS count FROM purged`.pipe(
          Rows.count("IdempotencyStore.purgeExpired")
        )
    })
  })
