/**
 * The things grants share (decision 0014): a report, dashboard, dataset or
 * workspace of a tenant, located with the workspace that holds it, so that
 * a grant on the workspace covers what it holds.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import type { DashboardId } from "../reports/Dashboard.ts"
import { DashboardStore } from "../reports/DashboardStore.ts"
import type { DatasetId } from "../datasets/Dataset.ts"
import { DatasetStore } from "../datasets/DatasetStore.ts"
import { NotFound, type StoreError } from "../platform/Errors.ts"
import type { SubjectType } from "./Grant.ts"
import type { ReportId } from "../reports/Report.ts"
import { ReportStore } from "../reports/ReportStore.ts"
import type { TenantId } from "../tenancy/Tenant.ts"
import type { WorkspaceId } from "../tenancy/Workspace.ts"
import { WorkspaceStore } from "../tenancy/WorkspaceStore.ts"

/** A located subject: what access evaluation needs (`within`: the workspace holding it). */
export interface Located {
  readonly type: SubjectType
  readonly id: string
  readonly workspaceId: string
  /** Its name now: what the audit log writes down, so an entry still reads right once it is renamed or deleted (decision 0025). */
  readonly name: string
  readonly within: ReadonlyArray<{ readonly type: SubjectType; readonly id: string }>
}

/** What locating a subject reads. */
export type Services = WorkspaceStore | ReportStore | DashboardStore | DatasetStore

/** Finds a subject of the tenant, or NotFound (another tenant's id included). */
export const locate = (tenantId: TenantId, type: SubjectType, id: string): Effect.Effect<Located, NotFound | StoreError, Services> =>
  Effect.gen(function*() {
    const found: { readonly workspace_id: string; readonly name: string } | undefined = type === "workspace"
      ? yield* Effect.map((yield* WorkspaceStore).find(tenantId, id as WorkspaceId), (w) => w === undefined ? undefined : { workspace_id: w.workspace_id, name: w.name })
      : type === "report"
      ? yield* (yield* ReportStore).find(tenantId, id as ReportId)
      : type === "dashboard"
      ? yield* (yield* DashboardStore).find(tenantId, id as DashboardId)
      : yield* (yield* DatasetStore).find(tenantId, id as DatasetId)
    if (found === undefined) return yield* new NotFound({ resource: type, id })
    return {
      type,
      id,
      workspaceId: found.workspace_id,
      name: found.name,
      within: type === "workspace" ? [] : [{ type: "workspace", id: found.workspace_id }]
    }
  })
