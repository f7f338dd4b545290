/**
 * Tenants, their plans and API tokens, and their workspaces: the boundary
 * every other record lives inside.
 *
 * @since 0.1.0
 */
export * as ApiToken from "./ApiToken.ts"
export * as Plan from "./Plan.ts"
export * as Tenant from "./Tenant.ts"
export * as TenantCache from "./TenantCache.ts"
export * as TenantStore from "./TenantStore.ts"
export * as Tenants from "./Tenants.ts"
export * as Workspace from "./Workspace.ts"
export * as WorkspaceRecords from "./WorkspaceRecords.ts"
export * as WorkspaceRecordUseCases from "./WorkspaceRecordUseCases.ts"
export * as WorkspaceStore from "./WorkspaceStore.ts"
export * as Workspaces from "./Workspaces.ts"
