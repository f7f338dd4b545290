/**
 * Rows decoded by their schema: a row that does not have its table's shape
 * (a NULL where a value belongs, jsonb of the wrong form) fails its query
 * with a `StoreError` naming it, instead of becoming a wrong value.
 *
 * @since 0.1.0
 */
import { Errors } from "@analytics/core"
import { Effect, Schema, SchemaTransformation } from "effect"
import type { SqlError } from "effect/sql/SqlError"

/** A row schema: decodes what the driver returns, needing no services. */
export type RowSchema = Schema.Decoder<unknown, never>

/** A failed query or an undecodable row, as the store's error for `operation`. */
const storeError = (operation: string) => <A, R>(effect: Effect.Effect<A, SqlError | Schema.SchemaError, R>) =>
  Effect.mapError(effect, (cause) => new Errors.StoreError({ operation, cause }))

/** How the rows of one schema are read, each as the value it stands for. */
export interface Reader<A> {
  /** Decodes one row already read. */
  readonly decodeOne: (operation: string) => (row: unknown) => Effect.Effect<A, Errors.StoreError>
  /** Decodes rows already read (inside a larger effect that keeps its `SqlError`s). */
  readonly decodeAll: (operation: string) => (rows: ReadonlyArray<unknown>) => Effect.Effect<ReadonlyArray<A>, Errors.StoreError>
  /** Decodes the first of rows already read; `undefined` when there are none. */
  readonly decodeFirst: (operation: string) => (rows: ReadonlyArray<unknown>) => Effect.Effect<A | undefined, Errors.StoreError>
  /** Every row of a query; a failure of either a `StoreError` naming `operation`. */
  readonly all: (operation: string) => <R>(query: Effect.Effect<ReadonlyArray<unknown>, SqlError, R>) => Effect.Effect<ReadonlyArray<A>, Errors.StoreError, R>
  /** The one row of a query that always answers one (none fails too); a failure a `StoreError` naming `operation`. */
  readonly single: (operation: string) => <R>(query: Effect.Effect<ReadonlyArray<unknown>, SqlError, R>) => Effect.Effect<A, Errors.StoreError, R>
  /** The first row of a query, `undefined` when none; a failure a `StoreError` naming `operation`. */
  readonly first: (operation: string) => <R>(query: Effect.Effect<ReadonlyArray<unknown>, SqlError, R>) => Effect.Effect<A | undefined, Errors.StoreError, R>
}

/**
 * How the rows of one schema are read, its decoders built once (not per
 * query): every row a query returns, or its first; each passed through
 * `toValue` (the domain value a row stands for) once decoded.
 */
export const reader = <S extends RowSchema, A = S["Type"]>(
  schema: S,
  toValue: (row: S["Type"]) => A = (row) => row as A
): Reader<A> => {
  const decodeRow = Schema.decodeUnknownEffect(schema)
  const decodeRows = Schema.decodeUnknownEffect(Schema.Array(schema))
  const decodeOne = (operation: string) => (row: unknown) => decodeRow(row).pipe(Effect.map(toValue), storeError(operation))
  const decodeAll = (operation: string) => (rows: ReadonlyArray<unknown>) =>
    decodeRows(rows).pipe(Effect.map((decoded) => decoded.map(toValue)), storeError(operation))
  const decodeFirst = (operation: string) => (rows: ReadonlyArray<unknown>) =>
    rows.length === 0 ? Effect.undefined : decodeOne(operation)(rows[0])
  return {
    decodeOne,
    decodeAll,
    decodeFirst,
    all: (operation) => (query) => query.pipe(storeError(operation), Effect.flatMap(decodeAll(operation))),
    single: (operation) => (query) => query.pipe(storeError(operation), Effect.flatMap((rows) => decodeOne(operation)(rows[0]))),
    first: (operation) => (query) => query.pipe(storeError(operation), Effect.flatMap(decodeFirst(operation)))
  }
}

/**
 * A bigint or numeric column: a number, a bigint or its text depending on
 * the driver; read as a finite number.
 */
export const Numeric = Schema.Union([Schema.Number, Schema.BigInt, Schema.String]).pipe(
  Schema.decodeTo(
    Schema.Finite,
    SchemaTransformation.transform({ decode: (value) => Number(value), encode: (value) => value })
  )
)

/**
 * A jsonb column holding what `schema` decodes: parsed by `@effect/sql-pg`
 * and PGlite alike, but text where a driver leaves it so.
 */
export const Jsonb = <S extends RowSchema>(schema: S) => Schema.Union([Schema.fromJsonString(schema), schema])

/**
 * A jsonb object whose members the row does not check (nested parts of a
 * record, validated when it was written).
 */
export const JsonObject = Jsonb(Schema.Record(Schema.String, Schema.Unknown))

/** A jsonb array whose items the row does not check (as `JsonObject`). */
export const JsonArray = Jsonb(Schema.Array(Schema.Unknown))

const counts = reader(Schema.Struct({ count: Numeric }), (row) => row.count)

/** The number a counting statement answers (`SELECT count(*) AS count …`), 0 without a row. */
export const count = (operation: string) => <R>(query: Effect.Effect<ReadonlyArray<unknown>, SqlError, R>) =>
  query.pipe(counts.first(operation), Effect.map((n) => n ?? 0))

const earliestRows = reader(Schema.Struct({ due: Schema.NullOr(Schema.Date) }), (row) => row.due ?? undefined)

/** The instant a `SELECT min(…) AS due …` answers; `undefined` when nothing is due. */
export const earliest = (operation: string) => <R>(query: Effect.Effect<ReadonlyArray<unknown>, SqlError, R>) =>
  query.pipe(earliestRows.first(operation))
