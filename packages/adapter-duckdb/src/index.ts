/**
 * @analytics/adapter-duckdb: the analytics engine on embedded DuckDB.
 *
 * @since 0.1.0
 */
export * as DuckDbEngine from "./DuckDbEngine.ts"
