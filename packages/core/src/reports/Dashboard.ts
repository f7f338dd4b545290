/**
 * Dashboards (decision 0013): visuals pinned from reports of one workspace, laid
 * out on a grid. A tile points at its report's visual, so it always shows
 * the visual as the report has it now; sharing comes with grants (decision 0014).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { Uuid } from "../platform/Ids.ts"
import { ReportId } from "./Report.ts"
import { MemberName } from "../datasets/SemanticModel.ts"
import { Name, type TenantId } from "../tenancy/Tenant.ts"
import { WorkspaceId } from "../tenancy/Workspace.ts"

/** A dashboard's identifier. */
export const DashboardId = Uuid.pipe(Schema.brand("DashboardId"))
/** A dashboard's identifier. */
export type DashboardId = typeof DashboardId.Type

const Cell = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 }))
const Span = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 24 }))

/** A pinned visual: its id on the dashboard, the report visual it shows, and its place on a 24-column grid. */
export const Tile = Schema.Struct({
  id: MemberName,
  report_id: ReportId,
  visual_id: MemberName,
  x: Cell,
  y: Cell,
  width: Span,
  height: Span
})
/** A pinned visual. */
export type Tile = typeof Tile.Type

const Tiles = Schema.Array(Tile).check(Schema.isMaxLength(100))

/** A dashboard as stored. */
export interface Dashboard {
  readonly dashboard_id: DashboardId
  readonly tenant_id: TenantId
  readonly workspace_id: WorkspaceId
  readonly name: string
  readonly tiles: ReadonlyArray<Tile>
  readonly created_at: Date
  readonly updated_at: Date
}

/** What a client sends to create a dashboard. */
export const DashboardCreate = Schema.Struct({
  workspace_id: WorkspaceId,
  name: Name,
  tiles: Schema.optionalKey(Tiles)
})
/** What a client sends to create a dashboard. */
export type DashboardCreate = typeof DashboardCreate.Type

/** What a client may change (tiles are replaced whole). */
export const DashboardUpdate = Schema.Struct({
  name: Schema.optionalKey(Name),
  tiles: Schema.optionalKey(Tiles)
})
/** What a client may change. */
export type DashboardUpdate = typeof DashboardUpdate.Type
