/**
 * Test kits for adapter authors: the store contract suite.
 *
 * @since 0.1.0
 */
export { storeContract } from "./StoreContract.ts"
