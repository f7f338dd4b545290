/**
 * The client behaviours the stores rely on, checked on both engines: the same
 * JS values, nested transactions, a swallowed failure failing the COMMIT, and
 * (what PGlite's single session makes the hard part) no other fiber's
 * statements slipping into a transaction.
 */
import { assert, describe, layer } from "@effect/vitest"
import { PgClient } from "@effect/sql-pg"
import { Effect, Exit, Layer, Redacted } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { TestClock } from "effect/testing"
import { PgliteClient } from "../src/index.ts"
import { databaseUrl, freshDatabase, skippedForNoPostgres } from "@analytics/testing/postgres"

const suite = (name: string, client: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  describe(`sql client: ${name}`, () => {
    layer(client, { timeout: "60 seconds" })((it) => {
      it.effect("decodes values as sql-pg does", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const [row] = yield* sql`SELECT
            1::int8 AS i8, 2::int4 AS i4, 1.5::numeric AS num, true AS b, NULL::text AS n,
            '2024-02-29'::date AS d,
            '2026-01-01 00:00:00.987654+00'::timestamptz AS tz,
            '2026-01-01 05:30:00.5+05:30'::timestamptz AS tz_offset,
            '1999-12-31 23:59:59.9995+00'::timestamptz AS before_epoch,
            '2026-01-01 12:34:56.789'::timestamp AS ts,
            'infinity'::timestamptz AS inf,
            '{"a":[1,"x"]}'::jsonb AS jb, '{"b":2}'::json AS j,
            ARRAY['a','b']::text[] AS texts, ARRAY[1,2]::int8[] AS int8s,
            '0198c0de-0000-7000-8000-0000000000ff'::uuid AS u`
          const { inf, ...rest } = row as Record<string, unknown>
          assert.deepStrictEqual(rest, {
            i8: 1n,
            i4: 2,
            num: "1.5",
            b: true,
            n: null,
            d: "2024-02-29",
            tz: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 987)),
            tz_offset: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, 500)),
            // Truncated toward the PostgreSQL epoch (2000-01-01).
            before_epoch: new Date(Date.UTC(2000, 0, 1)),
            ts: new Date(Date.UTC(2026, 0, 1, 12, 34, 56, 789)),
            jb: { a: [1, "x"] },
            j: { b: 2 },
            texts: ["a", "b"],
            int8s: [1n, 2n],
            u: "0198c0de-0000-7000-8000-0000000000ff"
          })
          assert.isTrue(inf instanceof Date && Number.isNaN(inf.getTime()))
        }))

      it.effect("binds values the same way", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const at = new Date(1_767_225_600_987)
          const [row] = yield* sql`SELECT ${at}::timestamptz AS at, ${9_007_199_254_740_993n}::int8 AS big,
            ${JSON.stringify({ k: "v" })}::jsonb AS doc, ${["x", "y"]}::text[] AS list, ${null}::text AS nothing,
            ${42} + 1 AS sum`
          assert.deepStrictEqual(row, {
            at,
            big: 9_007_199_254_740_993n,
            doc: { k: "v" },
            list: ["x", "y"],
            nothing: null,
            sum: 43
          })
        }))

      it.effect("a nested transaction rolls back to its savepoint only", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TABLE nested (v text)`
          yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO nested VALUES ('outer')`
            const inner = yield* sql.withTransaction(
              Effect.andThen(sql`INSERT INTO nested VALUES ('inner')`, Effect.fail("boom"))
            ).pipe(Effect.exit)
            assert.isTrue(Exit.isFailure(inner))
          }))
          assert.deepStrictEqual(yield* sql`SELECT v FROM nested`, [{ v: "outer" }])
        }))

      it.effect("a failed statement swallowed inside a transaction fails its COMMIT", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TABLE swallowed (v text)`
          const exit = yield* sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO swallowed VALUES ('lost')`
            yield* Effect.ignore(sql`SELECT 1/0`)
          })).pipe(Effect.exit)
          assert.isTrue(Exit.isFailure(exit))
          assert.deepStrictEqual(yield* sql`SELECT v FROM swallowed`, [])
        }))

      it.effect("statements of other fibers stay out of a transaction", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TABLE isolated (v text)`
          const doomed = sql.withTransaction(Effect.gen(function*() {
            yield* sql`INSERT INTO isolated VALUES ('doomed')`
            yield* Effect.sleep("100 millis")
            return yield* Effect.fail("rollback")
          }))
          const outside = Effect.andThen(Effect.sleep("20 millis"), sql`INSERT INTO isolated VALUES ('outside')`)
          // Real delays: the point is the interleaving of real statements.
          yield* TestClock.withLive(Effect.all([Effect.exit(doomed), outside], { concurrency: "unbounded" }))
          assert.deepStrictEqual(yield* sql`SELECT v FROM isolated`, [{ v: "outside" }])
        }))
    })
  })

suite("pglite", PgliteClient.layer())

if (databaseUrl === "") {
  describe.skip(`sql client: postgresql ${skippedForNoPostgres}`, () => {})
} else {
  suite(
    "postgresql",
    Layer.unwrap(Effect.map(freshDatabase(databaseUrl), (url) => PgClient.layer({ url: Redacted.make(url) })))
  )
}
