/**
 * @analytics/core: the pure domain and the ports of the analytics service.
 * It depends on `effect` alone and knows nothing of HTTP, SQL or Node.
 *
 * @since 0.1.0
 */
export * as ApiToken from "./ApiToken.ts"
export * as Authenticator from "./Authenticator.ts"
export * as Caller from "./Caller.ts"
export * as Crypto from "./Crypto.ts"
export * as Cursor from "./Cursor.ts"
export * as Errors from "./Errors.ts"
export * as Idempotency from "./Idempotency.ts"
export * as Ids from "./Ids.ts"
export * as Limiter from "./Limiter.ts"
export * as OperationLimits from "./OperationLimits.ts"
export * as Pagination from "./Pagination.ts"
export * as Plan from "./Plan.ts"
export * as Principal from "./Principal.ts"
export * as ProblemCode from "./ProblemCode.ts"
export * as RateLimit from "./RateLimit.ts"
export * as RateLimitStore from "./RateLimitStore.ts"
export * as ServiceSecrets from "./ServiceSecrets.ts"
export * as SlidingWindow from "./SlidingWindow.ts"
export type { Stores } from "./Stores.ts"
export * as Tenant from "./Tenant.ts"
export * as TenantDirectory from "./TenantDirectory.ts"
export * as Tenants from "./Tenants.ts"
export * as TenantStore from "./TenantStore.ts"
export * as TokenBucket from "./TokenBucket.ts"
export * as Transactor from "./Transactor.ts"
export * as Workspace from "./Workspace.ts"
export * as Workspaces from "./Workspaces.ts"
export * as WorkspaceStore from "./WorkspaceStore.ts"
