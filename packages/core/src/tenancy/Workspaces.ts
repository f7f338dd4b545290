/**
 * Use cases on workspaces.
 *
 * @since 0.1.0
 */
import { Clock, Effect } from "effect"
import type { CursorCodec, CursorError } from "../platform/Cursor.ts"
import { type NotFound, orNotFound, type StoreError } from "../platform/Errors.ts"
import { uuidv7 } from "../platform/Ids.ts"
import { type InvalidSort, type ListRequest, type Page, paginate } from "../platform/Pagination.ts"
import type { TenantId } from "./Tenant.ts"
import { Workspace, type WorkspaceCreate, type WorkspaceId } from "./Workspace.ts"
import { workspaceKey, type WorkspaceSortField, WorkspaceStore } from "./WorkspaceStore.ts"

/** The sort a workspace list uses when none is given: newest first. */
export const defaultSort = { field: "created_at", direction: "desc" } as const

/** Creates a workspace in a tenant. */
export const create = (
  tenantId: TenantId,
  input: WorkspaceCreate
): Effect.Effect<Workspace, StoreError, WorkspaceStore> =>
  Effect.gen(function*() {
    const store = yield* WorkspaceStore
    const workspace = new Workspace({
      workspace_id: (yield* uuidv7) as WorkspaceId,
      tenant_id: tenantId,
      name: input.name,
      description: input.description ?? null,
      created_at: new Date(yield* Clock.currentTimeMillis)
    })
    yield* store.insert(workspace)
    return workspace
  })

/** One page of the tenant's workspaces. */
export const list = (
  tenantId: TenantId,
  request: Omit<ListRequest<WorkspaceSortField>, "sortable" | "defaultSort">
): Effect.Effect<Page<Workspace>, StoreError | CursorError | InvalidSort, WorkspaceStore | CursorCodec> =>
  Effect.flatMap(WorkspaceStore, (store) =>
    paginate(
      { ...request, sortable: ["created_at", "name"], defaultSort },
      (query) => store.list(tenantId, query),
      workspaceKey
    ))

/** One workspace of the tenant; NotFound for any other (another tenant's included). */
export const get = (tenantId: TenantId, workspaceId: WorkspaceId): Effect.Effect<Workspace, NotFound | StoreError, WorkspaceStore> =>
  orNotFound("workspace", workspaceId)(Effect.flatMap(WorkspaceStore, (store) => store.find(tenantId, workspaceId)))

/** Succeeds when the tenant has the workspace; NotFound otherwise (another tenant's included). */
export const ensureExists = (tenantId: TenantId, workspaceId: WorkspaceId): Effect.Effect<void, NotFound | StoreError, WorkspaceStore> =>
  Effect.asVoid(get(tenantId, workspaceId))
