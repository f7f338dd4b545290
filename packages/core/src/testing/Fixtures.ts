/**
 * What the contract suites arrange their stores with: a tenant, a
 * workspace, each stored and returned.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import { uuidv7 } from "../platform/Ids.ts"
import type { Plan } from "../tenancy/Plan.ts"
import { Tenant, type TenantId } from "../tenancy/Tenant.ts"
import { TenantStore } from "../tenancy/TenantStore.ts"
import { Workspace, type WorkspaceId } from "../tenancy/Workspace.ts"
import { WorkspaceStore } from "../tenancy/WorkspaceStore.ts"

/** Stores a new tenant. */
export const insertTenant = (options: { readonly plan?: Plan; readonly name?: string; readonly createdAt?: Date } = {}) =>
  Effect.gen(function*() {
    const tenant = new Tenant({
      tenant_id: (yield* uuidv7) as TenantId,
      name: options.name ?? "Acme",
      plan: options.plan ?? "growth",
      created_at: options.createdAt ?? new Date(1_700_000_000_123)
    })
    yield* (yield* TenantStore).insertTenant(tenant)
    return tenant
  })

/** Stores a new workspace of a tenant. */
export const insertWorkspace = (tenantId: TenantId, name: string, createdAt: Date) =>
  Effect.gen(function*() {
    const workspace = new Workspace({
      workspace_id: (yield* uuidv7) as WorkspaceId,
      tenant_id: tenantId,
      name,
      description: null,
      created_at: createdAt
    })
    yield* (yield* WorkspaceStore).insert(workspace)
    return workspace
  })
