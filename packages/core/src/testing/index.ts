/**
 * Test kits for adapter authors: the store contract suites.
 *
 * @since 0.1.0
 */
export { storeContract } from "./StoreContract.ts"
export { rateLimitStoreContract } from "./RateLimitStoreContract.ts"
export { blobStoreContract } from "./BlobStoreContract.ts"
export { insertTenant, insertWorkspace } from "./Fixtures.ts"
