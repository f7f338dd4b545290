/**
 * The `RateLimitStore` on PostgreSQL (and PGlite): every decision is one
 * call of a function installed by migration 3, given each quota's kind by
 * migration 18 (one statement, one round trip), which locks the request's keys, decides with the integer
 * arithmetic of `RateLimit.decide`, and keeps the new states only when
 * every quota passes. The function returns the states it read, and the
 * decision's details are computed from them here with `RateLimit.decide`
 * itself, so the two can never drift apart unnoticed.
 *
 * Several host processes on one database share the counts: none admits
 * more than the limits between them.
 *
 * @since 0.1.0
 */
import { Errors, RateLimit, RateLimitStore } from "@analytics/core"
import { Effect, Layer, Schema } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import type { SqlError } from "effect/sql/SqlError"
import * as Rows from "./Rows.ts"

/** A SQL failure, or no answer in time, is a `StoreError` (the Limiter then decides in process). */
const failAs = (operation: string) => <A, R>(effect: Effect.Effect<A, SqlError, R>) =>
  Effect.mapError(effect, (cause) => new Errors.StoreError({ operation, cause })).pipe(
    RateLimitStore.timeLimited(operation)
  )

/** The states the consume function read, one column per number (nulls where none). */
const Priors = Schema.Array(Schema.NullOr(Rows.Numeric))

/** What the consume function answers: its verdict and the states it read. */
const consumed = Rows.reader(Schema.Struct({
  allowed: Schema.Boolean,
  prior_a: Priors,
  prior_b: Priors,
  prior_c: Priors,
  /** A log's instants joined by commas ("" when empty); null for other kinds and absent logs. */
  prior_log: Schema.Array(Schema.NullOr(Schema.String))
}))

const acquired = Rows.reader(Schema.Struct({ acquired: Schema.Boolean }), (row) => row.acquired)

/** A stored row's numbers as the state `RateLimit` works on. */
const stateOf = (
  rule: RateLimit.Rule,
  a: number | null,
  b: number | null,
  c: number | null,
  log: string | null
): RateLimit.QuotaState | undefined => {
  if (rule._tag === "Log") return log === null ? undefined : { counted: log === "" ? [] : log.split(",").map(Number) }
  if (a === null || b === null) return undefined
  return rule._tag === "Bucket"
    ? { level: a, updatedAt: b }
    : { window: a, current: b, previous: Number(c) }
}

/** A rule's kind as the SQL functions name it. */
const kinds = { Bucket: "bucket", Window: "window", Log: "log" } as const

/** The quotas as the SQL functions take them: parallel arrays. */
const columns = (quotas: ReadonlyArray<RateLimit.Quota>) => ({
  keys: quotas.map((quota) => quota.key),
  kinds: quotas.map((quota) => kinds[quota.rule._tag]),
  sizes: quotas.map(({ rule }) => rule._tag === "Bucket" ? rule.capacity : rule.limit),
  periods: quotas.map(({ rule }) => rule._tag === "Bucket" ? rule.fillMillis : rule.windowMillis)
})

/** The rate-limit store over the `SqlClient` in context (whose schema is migrated). */
export const rateLimitStore: Effect.Effect<RateLimitStore.RateLimitStore["Service"], never, SqlClient.SqlClient> =
  Effect.map(SqlClient.SqlClient, (sql) =>
    RateLimitStore.RateLimitStore.of({
      consume: (quotas, now) => {
        const { keys, kinds, periods, sizes } = columns(quotas)
        return sql`SELECT allowed, prior_a, prior_b, prior_c, prior_log
          FROM analytics_rate_limit_consume(${keys}::text[], ${kinds}::text[], ${sizes}::bigint[],
            ${periods}::bigint[], ${now}::bigint)`.pipe(
          consumed.single("RateLimitStore.consume"),
          RateLimitStore.timeLimited("RateLimitStore.consume"),
          Effect.flatMap((row) => {
            const prior = quotas.map((quota, i) => stateOf(quota.rule, row.prior_a[i], row.prior_b[i], row.prior_c[i], row.prior_log[i]))
            const decision = RateLimit.decide(prior, now, quotas)
            return decision.allowed === row.allowed
              ? Effect.succeed(decision)
              : Effect.die(new Error(`analytics_rate_limit_consume decided ${row.allowed} where RateLimit.decide decides ${decision.allowed}`))
          })
        )
      },
      refund: (quotas, countedAt, now) => {
        const { keys, kinds, periods, sizes } = columns(quotas)
        return sql`SELECT analytics_rate_limit_refund(${keys}::text[], ${kinds}::text[], ${sizes}::bigint[],
            ${periods}::bigint[], ${countedAt}::bigint, ${now}::bigint)`.pipe(
          Effect.asVoid,
          failAs("RateLimitStore.refund")
        )
      },
      acquireSlot: (key, lease, capacity, now, expiresAt) =>
        sql`SELECT analytics_rate_limit_acquire_slot(${key}, ${lease}, ${capacity}::int,
            ${now}::bigint, ${expiresAt}::bigint) AS acquired`.pipe(
          acquired.single("RateLimitStore.acquireSlot"),
          RateLimitStore.timeLimited("RateLimitStore.acquireSlot")
        ),
      releaseSlot: (key, lease) =>
        sql`DELETE FROM rate_limit_slots WHERE key = ${key} AND lease = ${lease}`.pipe(
          Effect.asVoid,
          failAs("RateLimitStore.releaseSlot")
        )
    }))

/** The rate-limit store over the `SqlClient` in context. */
export const layer: Layer.Layer<RateLimitStore.RateLimitStore, never, SqlClient.SqlClient> = Layer.effect(
  RateLimitStore.RateLimitStore,
  rateLimitStore
)
