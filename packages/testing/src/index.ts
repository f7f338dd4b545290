/**
 * @analytics/testing: the test kits. The contract suites every adapter of a
 * port passes unchanged (stores, rate-limit stores, blob stores, analytics
 * engines), their fixtures, what identity providers send over SCIM, a CSV
 * reader for expected files, and polling for what happens asynchronously. The real servers tests talk to have
 * entry points of their own, so a test loads only the ones it uses: `@analytics/testing/postgres`, `/s3`, `/smtp`,
 * `/webhooks`, `/openai`, `/documents`, `/http`.
 *
 * @since 0.1.0
 */
export { analyticsEngineContract, type EngineCapabilities } from "./contracts/AnalyticsEngineContract.ts"
export { blobStoreContract } from "./contracts/BlobStoreContract.ts"
export { rateLimitStoreContract, ruleArb as rateLimitRuleArb } from "./contracts/RateLimitStoreContract.ts"
export { storeContract } from "./contracts/StoreContract.ts"
export { readCsv } from "./Csv.ts"
export { eventually, type Polling, until } from "./Eventually.ts"
export { insertTenant, insertWorkspace } from "./Fixtures.ts"
export * as ScimPayloads from "./ScimPayloads.ts"
