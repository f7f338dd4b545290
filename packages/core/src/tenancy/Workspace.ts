/**
 * Workspaces: the container of datasets, reports and their sharing.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Uuid } from "../platform/Ids.ts"
import { Name, TenantId } from "./Tenant.ts"

/** A workspace's identifier. */
export const WorkspaceId = Uuid.pipe(Schema.brand("WorkspaceId"))
/** A workspace's identifier. */
export type WorkspaceId = typeof WorkspaceId.Type

/** A workspace as stored; the API shows it without `tenant_id`. */
export class Workspace extends Schema.Class<Workspace>("Workspace")({
  workspace_id: WorkspaceId,
  tenant_id: TenantId,
  name: Name,
  description: Schema.NullOr(Schema.String),
  created_at: Schema.Date
}) {}

/** The fields a client sends to create a workspace. */
export const WorkspaceCreate = Schema.Struct({
  name: Name,
  description: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(2000)))
})
/** The fields a client sends to create a workspace. */
export type WorkspaceCreate = typeof WorkspaceCreate.Type

/** The fields a workspace list can be sorted by. */
export const workspaceSortFields = ["created_at", "name"] as const
