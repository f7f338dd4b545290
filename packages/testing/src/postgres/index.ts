/**
 * Test kit: throwaway PostgreSQL databases and temporary directories.
 *
 * @since 0.1.0
 */
export * from "./TestDatabase.ts"
