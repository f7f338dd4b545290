/**
 * The analytics engine as PostgreSQL direct query: datasets are tables or
 * views of a PostgreSQL the operator points at, read in place (no import).
 * Interrupting a query cancels it on the server (`@effect/sql-pg` sends
 * the cancel request). CSV files are made here from the rows as the server
 * streams them (the client pauses reading while the file's reader waits),
 * since the client has no `COPY … TO STDOUT`.
 *
 * A query run with a timeout also carries it to the server as its
 * `statement_timeout` (`SET LOCAL`, in a transaction of its own), so it
 * ends there even when the cancel request is lost (a host that dies, a
 * network cut).
 *
 * @since 0.1.0
 */
import { AnalyticsEngine, Csv, SqlCompiler, SqlDialect } from "@analytics/core"
import { PgClient } from "@effect/sql-pg"
import { Clock, Duration, Effect, Layer, type Redacted, Stream } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient } from "effect/sql"

type Row = AnalyticsEngine.Row

/** A PostgreSQL value as JSON: numeric and bigint text as numbers while exact, times as UTC text. */
const jsonValue = (value: unknown, type: string | undefined): Row[string] => {
  if (value === null || value === undefined) return null
  if (value instanceof Date) return SqlCompiler.timeText(value)
  if (typeof value === "string" && type === "number") {
    const n = Number(value)
    return Number.isFinite(n) && (Number.isSafeInteger(n) || !/^-?\d+$/.test(value)) ? n : value
  }
  if (typeof value === "bigint") return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString()
  if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") return value
  return JSON.stringify(value)
}

const failure = (operation: string) => (cause: unknown) =>
  new AnalyticsEngine.EngineError({ operation, detail: cause instanceof Error ? cause.message : String(cause), cause })

/** The engine over the SqlClient in context (a PostgreSQL connection pool). */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const refused = (operation: string) =>
    Effect.fail(new AnalyticsEngine.EngineError({ operation, detail: "PostgreSQL direct query reads tables in place; it neither imports nor drops them" }))
  /** A row's values as JSON, by the compiled columns' types. */
  const converter = (compiled: SqlCompiler.Compiled) => {
    const types = new Map(compiled.columns.map((c) => [c.name, c.type]))
    return (row: Record<string, unknown>) => {
      const out: Record<string, Row[string]> = {}
      for (const key in row) out[key] = jsonValue(row[key], types.get(key))
      return out
    }
  }
  return AnalyticsEngine.AnalyticsEngine.of({
    dialect: SqlDialect.postgres,
    run: (compiled, options) => {
      const convert = converter(compiled)
      const query = sql.unsafe<Record<string, unknown>>(compiled.sql, [...compiled.params])
      const millis = options?.timeout === undefined ? Number.POSITIVE_INFINITY : Math.ceil(Duration.toMillis(options.timeout))
      // The server's own bound, for this statement only (`set_config(…, true)` is `SET LOCAL`).
      const bounded = Number.isFinite(millis) && millis > 0
        ? sql.withTransaction(Effect.andThen(sql`SELECT set_config('statement_timeout', ${`${millis}ms`}, true)`, query))
        : query
      return bounded.pipe(
        Effect.map((rows) => rows.map(convert)),
        Effect.mapError((cause) =>
          (cause as { readonly reason?: { readonly _tag?: string } }).reason?._tag === "StatementTimeoutError"
            ? new AnalyticsEngine.EngineError({ operation: "query", detail: `PostgreSQL stopped the query at its statement timeout (${millis} ms)`, cause })
            : failure("query")(cause)
        )
      )
    },
    csv: (compiled) =>
      Csv.stream(
        compiled.columns.map((c) => c.name),
        sql.unsafe<Record<string, unknown>>(compiled.sql, [...compiled.params]).stream.pipe(
          Stream.map(converter(compiled)),
          Stream.mapError(failure("export"))
        )
      ),
    describe: (table) => {
      const [schema, name] = table.length === 1 ? ["public", table[0]!] : [table[0]!, table[1]!]
      return sql<{ column_name: string; data_type: string }>`SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = ${schema} AND table_name = ${name} ORDER BY ordinal_position`.pipe(
        Effect.mapError(failure("describe")),
        Effect.flatMap((rows) =>
          rows.length === 0
            ? Effect.fail(new AnalyticsEngine.EngineError({ operation: "describe", detail: `No table or view ${table.join(".")}` }))
            : Effect.succeed(rows.map((r) => ({ name: r.column_name, engineType: r.data_type, type: AnalyticsEngine.suggestedType(r.data_type) })))
        )
      )
    },
    importFile: () => refused("import"),
    drop: () => refused("drop")
  })
})

/** The engine on the PostgreSQL at `url`, through a pool of its own. */
export const layer = (url: Redacted.Redacted<string>): Layer.Layer<AnalyticsEngine.AnalyticsEngine, AnalyticsEngine.EngineError> =>
  Layer.effect(
    AnalyticsEngine.AnalyticsEngine,
    Effect.gen(function*() {
      const client = yield* PgClient.make({ url }).pipe(Effect.mapError(failure("connect")))
      return yield* Effect.provideService(make, SqlClient.SqlClient, client)
    })
  ).pipe(
    // The pool's timers measure real time, even under a TestClock.
    Layer.provide(Layer.mergeAll(Reactivity.layer, Layer.succeed(Clock.Clock, Clock.Clock.defaultValue())))
  )
