/**
 * @analytics/adapter-memory: every port of the service in memory.
 *
 * @since 0.1.0
 */
export * as MemoryStores from "./MemoryStores.ts"
