/**
 * @analytics/core: the pure domain and the ports of the analytics service.
 * It depends on `effect` (and `jose`, for signed share tokens) and knows
 * nothing of HTTP, SQL or Node.
 *
 * Its folders are domains; which domains each may import is a table in
 * scripts/check-imports.ts (a graph without cycles, checked in CI). They are
 * re-exported here in an order of that graph, lowest first.
 *
 * @since 0.1.0
 */
export type { Stores } from "./Stores.ts"
export * as WorkspaceRecordStores from "./WorkspaceRecordStores.ts"
export * from "./platform/index.ts"
export * from "./tenancy/index.ts"
export * from "./limits/index.ts"
export * from "./webhooks/index.ts"
export * from "./audit/index.ts"
export * from "./directory/index.ts"
export * from "./auth/index.ts"
export * from "./datasets/index.ts"
export * from "./reports/index.ts"
export * from "./questions/index.ts"
export * from "./sharing/index.ts"
export * from "./comments/index.ts"
export * from "./exports/index.ts"
export * from "./provisioning/index.ts"
export * from "./workers/index.ts"
