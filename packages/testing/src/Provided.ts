/**
 * What a vitest global setup provides the test files (`inject(...)`): the
 * repository's `scripts/vitest-global-setup.ts` starts the servers and
 * provides their URLs. Outside it nothing is provided, and each reads as
 * `undefined`, which the kits treat as "none".
 *
 * @since 0.1.0
 */
declare module "vitest" {
  export interface ProvidedContext {
    /** PostgreSQL connection URL for tests, or "" when none is available. */
    databaseUrl: string
    /** Redis connection URL for tests, or "" when none is available. */
    redisUrl: string
  }
}

export {}
