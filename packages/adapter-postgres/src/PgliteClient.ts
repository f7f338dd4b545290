/**
 * A `SqlClient` on PGlite, PostgreSQL compiled to WebAssembly and run in
 * process, so the PostgreSQL stores run with no server (tests, demos, a
 * single-node host). `@effect/sql-pglite` 4.0.0-beta does not load on
 * effect 4.1, hence this small client.
 *
 * PGlite is one backend session. Every statement and every transaction takes
 * the same one-permit semaphore, so a transaction never sees another fiber's
 * statements interleaved into it; statements inside a transaction run on the
 * leased connection without taking the permit again.
 *
 * Values come back as `@effect/sql-pg` decodes them, so one store
 * implementation sees the same JS values on both engines: int8 as `bigint`,
 * timestamps as `Date` truncated to milliseconds, date as `YYYY-MM-DD`,
 * json/jsonb parsed.
 *
 * @since 0.1.0
 */
import { PGlite } from "@electric-sql/pglite"
import { PgClient, PgTypes } from "@effect/sql-pg"
import { Context, Effect, Layer, type Scope, Semaphore, Stream } from "effect"
import { mkdir } from "node:fs/promises"
import * as Reactivity from "effect/reactivity/Reactivity"
import * as SqlClient from "effect/sql/SqlClient"
import type { Connection } from "effect/sql/SqlConnection"
import {
  AuthenticationError,
  AuthorizationError,
  ConnectionError,
  ConstraintError,
  DeadlockError,
  LockTimeoutError,
  SerializationError,
  SqlError,
  type SqlErrorReason,
  SqlSyntaxError,
  StatementTimeoutError,
  UniqueViolation,
  UnknownError
} from "effect/sql/SqlError"

const TypeId = "~@analytics/adapter-postgres/PgliteClient" as const

/** A `SqlClient` on an embedded PGlite database. */
export interface PgliteClient extends SqlClient.SqlClient {
  readonly [TypeId]: typeof TypeId
  readonly config: PgliteClientConfig
  /** The PGlite instance, for what SQL cannot do (dumps). Bypasses the semaphore: use with care. */
  readonly pglite: PGlite
}

/** The PGlite client of the current context. */
export const PgliteClient = Context.Service<PgliteClient>("@analytics/adapter-postgres/PgliteClient")

/** Where the database lives. */
export interface PgliteClientConfig {
  /**
   * A directory on disk (created with its parents if missing, kept on close), or `undefined`
   * for a fresh in-memory database. One process at a time may open a data
   * directory: PGlite has no locking between processes.
   */
  readonly dataDir?: string | undefined
}

// --- type normalisation -----------------------------------------------------

const OID = { int8: 20, date: 1082, timestamp: 1114, timestamptz: 1184 } as const

/** The PostgreSQL epoch (2000-01-01), to which sql-pg truncates sub-millisecond times. */
const pgEpochMillis = 946_684_800_000

const timestampPattern =
  /^(\d{4,})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?(?:([+-])(\d\d)(?::(\d\d))?(?::(\d\d))?)?( BC)?$/

/**
 * Parses PostgreSQL's ISO text form of timestamp/timestamptz into a `Date`,
 * as sql-pg's binary codec does: no zone means UTC fields, infinities and
 * unparseable text give an invalid Date, and microseconds are truncated toward
 * the PostgreSQL epoch (`new Date(text)` would read zone-less values as local
 * time and round differently).
 */
const parseTimestamp = (text: string): Date => {
  const m = timestampPattern.exec(text)
  if (m === null) return new Date(Number.NaN)
  const [, y, mo, d, h, mi, s, fraction, sign, oh, om, os, bc] = m
  const year = bc === undefined ? Number(y) : 1 - Number(y)
  const date = new Date(0)
  date.setUTCFullYear(year, Number(mo) - 1, Number(d))
  date.setUTCHours(Number(h), Number(mi), Number(s), 0)
  let seconds = date.getTime()
  if (sign !== undefined) {
    const offset = (Number(oh) * 3600 + Number(om ?? 0) * 60 + Number(os ?? 0)) * 1000
    seconds += sign === "+" ? -offset : offset
  }
  const micros = fraction === undefined ? 0 : Number(fraction.padEnd(6, "0"))
  let millis = seconds + Math.floor(micros / 1000)
  // Before the PostgreSQL epoch, truncating toward it rounds up.
  if (seconds < pgEpochMillis && micros % 1000 !== 0) millis += 1
  return new Date(millis)
}

/** Text parsers that make PGlite's values match sql-pg's (arrays follow their element's parser). */
const parsers = {
  [OID.int8]: (text: string) => BigInt(text),
  [OID.date]: (text: string) => text,
  [OID.timestamp]: parseTimestamp,
  [OID.timestamptz]: parseTimestamp
}

/** sql-pg's typed parameters (e.g. `PgTypes.jsonb`) carry their value; PGlite infers the type itself. */
const toParam = (value: unknown): unknown =>
  PgTypes.isParameter(value) ? value.value ?? null : value === undefined ? null : value

const toParams = (params: ReadonlyArray<unknown>): Array<unknown> => params.map(toParam)

// --- errors ------------------------------------------------------------------

/** Classifies a PGlite error by SQLSTATE, as sql-pg does for the server's. */
const classify = (cause: unknown, operation: string): SqlErrorReason => {
  const error = cause as { readonly code?: unknown; readonly constraint?: unknown; readonly message?: unknown }
  const code = typeof error?.code === "string" ? error.code : undefined
  const message = typeof error?.message === "string" ? error.message : "PGlite query failed"
  const props = { cause, message, operation }
  if (code === undefined) return new UnknownError(props)
  if (code.startsWith("08")) return new ConnectionError(props)
  if (code.startsWith("28")) return new AuthenticationError(props)
  if (code === "42501") return new AuthorizationError(props)
  if (code.startsWith("42")) return new SqlSyntaxError(props)
  if (code === "23505") {
    const constraint = typeof error.constraint === "string" && error.constraint !== "" ? error.constraint : "unknown"
    return new UniqueViolation({ ...props, constraint })
  }
  if (code.startsWith("23")) return new ConstraintError(props)
  if (code === "40P01") return new DeadlockError(props)
  if (code === "40001") return new SerializationError(props)
  if (code === "55P03") return new LockTimeoutError(props)
  if (code === "57014") return new StatementTimeoutError(props)
  return new UnknownError(props)
}

const sqlError = (operation: string) => (cause: unknown): SqlError =>
  new SqlError({ reason: classify(cause, operation) })

// --- connection ----------------------------------------------------------------

type Rows = ReadonlyArray<any>
type TransformRows = (<A extends object>(rows: ReadonlyArray<A>) => ReadonlyArray<A>) | undefined

/** The single session, as the `Connection` the SqlClient drives. */
class PgliteConnection implements Connection {
  readonly db: PGlite
  constructor(db: PGlite) {
    this.db = db
  }

  private query(sql: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") {
    return Effect.tryPromise({
      try: () => this.db.query<any>(sql, toParams(params), { rowMode }),
      catch: sqlError("execute")
    })
  }

  execute(sql: string, params: ReadonlyArray<unknown>, transformRows: TransformRows): Effect.Effect<Rows, SqlError> {
    const rows = Effect.map(this.query(sql, params, "object"), (result) => result.rows as Rows)
    return transformRows === undefined ? rows : Effect.map(rows, transformRows)
  }
  executeRaw(sql: string, params: ReadonlyArray<unknown>) {
    return this.query(sql, params, "object")
  }
  executeStream(sql: string, params: ReadonlyArray<unknown>, transformRows: TransformRows) {
    // One session and no portals: the rows arrive at once anyway.
    return Stream.unwrap(Effect.map(this.execute(sql, params, transformRows), Stream.fromIterable))
  }
  executeValues(sql: string, params: ReadonlyArray<unknown>) {
    return Effect.map(this.query(sql, params, "array"), (result) => result.rows as ReadonlyArray<ReadonlyArray<any>>)
  }
  executeValuesUnprepared(sql: string, params: ReadonlyArray<unknown>) {
    return this.executeValues(sql, params)
  }
  executeUnprepared(sql: string, params: ReadonlyArray<unknown>, transformRows: TransformRows) {
    return this.execute(sql, params, transformRows)
  }
}

/**
 * PostgreSQL answers `COMMIT` of an aborted transaction with `ROLLBACK`, not
 * an error; report it, or a transaction that swallowed a failed statement
 * would look committed.
 */
const commit = (conn: Connection): Effect.Effect<void, SqlError> =>
  Effect.flatMap(conn.executeRaw("COMMIT", []), (result) =>
    (result as { readonly command?: string }).command === "ROLLBACK"
      ? Effect.fail(
        new SqlError({
          reason: new UnknownError({
            cause: new Error("COMMIT rolled back an aborted transaction"),
            message: "PgliteClient: COMMIT rolled back an aborted transaction",
            operation: "commit"
          })
        })
      )
      : Effect.void)

// --- client ---------------------------------------------------------------------

/** Opens PGlite (closed with the scope) and builds the client around it. */
export const make = (
  config: PgliteClientConfig = {}
): Effect.Effect<PgliteClient, SqlError, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    const dataDir = config.dataDir
    const db = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: async () => {
          // PGlite creates the last directory only; a path (not a `scheme://` URL) gets its parents too.
          if (dataDir !== undefined && !dataDir.includes("://")) await mkdir(dataDir, { recursive: true })
          return PGlite.create(dataDir ?? "memory://", { parsers })
        },
        catch: (cause) =>
          new SqlError({
            reason: new ConnectionError({ cause, message: "PGlite could not open the database", operation: "connect" })
          })
      }),
      (db) => Effect.ignore(Effect.tryPromise(() => db.close()))
    )
    const connection: Connection = new PgliteConnection(db)
    const semaphore = yield* Semaphore.make(1)
    // Leases the session until the caller's scope closes (transactions, streams, reserve).
    const lease = Effect.as(semaphore.takeScoped(1), connection)

    const client = yield* SqlClient.make({
      acquirer: lease,
      transactionAcquirer: lease,
      // A single statement holds the permit just while it runs, with no scope to build.
      borrower: (f) => semaphore.withPermit(f(connection)),
      compiler: PgClient.makeCompiler(),
      driver: "pglite",
      commit,
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`,
      spanAttributes: [["db.system.name", "postgresql"], ["db.namespace", config.dataDir ?? "memory://"]]
    })
    return Object.assign(client, { [TypeId]: TypeId, config, pglite: db }) as PgliteClient
  })

/** Provides `PgliteClient` and `SqlClient` on one PGlite database, open for the layer's lifetime. */
export const layer = (config: PgliteClientConfig = {}): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError> =>
  Layer.effectContext(
    Effect.map(make(config), (client) =>
      Context.make(PgliteClient, client).pipe(Context.add(SqlClient.SqlClient, client)))
  ).pipe(Layer.provide(Reactivity.layer))
