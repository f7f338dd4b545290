/**
 * Port: workspaces. Every method is scoped by tenant: another tenant's
 * workspace is indistinguishable from a missing one.
 *
 * @since 0.1.0
 */
import { Context, type Effect } from "effect"
import type { StoreError } from "../platform/Errors.ts"
import type { Keyset, PageQuery } from "../platform/Pagination.ts"
import type { TenantId } from "./Tenant.ts"
import type { Workspace, WorkspaceId, workspaceSortFields } from "./Workspace.ts"

/** A field a workspace list can be sorted by. */
export type WorkspaceSortField = typeof workspaceSortFields[number]

/** The keyset position of a workspace under a sort field. */
export const workspaceKey = (workspace: Workspace, field: WorkspaceSortField): Keyset => ({
  value: field === "created_at" ? workspace.created_at.getTime() : workspace.name,
  id: workspace.workspace_id
})

/** Workspaces, scoped by tenant. */
export class WorkspaceStore extends Context.Service<WorkspaceStore, {
  readonly insert: (workspace: Workspace) => Effect.Effect<void, StoreError>
  readonly find: (tenantId: TenantId, workspaceId: WorkspaceId) => Effect.Effect<Workspace | undefined, StoreError>
  /** One page, in `Pagination.applyInMemory` order (strings compared by code point). */
  readonly list: (
    tenantId: TenantId,
    query: PageQuery<WorkspaceSortField>
  ) => Effect.Effect<ReadonlyArray<Workspace>, StoreError>
  /** Deletes a workspace; `false` when there was none in this tenant. */
  readonly remove: (tenantId: TenantId, workspaceId: WorkspaceId) => Effect.Effect<boolean, StoreError>
}>()("@analytics/core/WorkspaceStore") {}
