/**
 * @analytics/adapter-postgres: every store port of the service on
 * PostgreSQL, and the same stores on embedded PGlite.
 *
 * @since 0.1.0
 */
export * as Migrations from "./Migrations.ts"
export * as PgEngine from "./PgEngine.ts"
export * as PgliteClient from "./PgliteClient.ts"
export * as SqlStores from "./SqlStores.ts"
export * as SqlRateLimitStore from "./SqlRateLimitStore.ts"
