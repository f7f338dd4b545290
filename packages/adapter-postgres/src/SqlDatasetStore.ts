/**
 * The DatasetStore over `SqlClient` (PostgreSQL and PGlite): the model and
 * the loaded columns as jsonb.
 *
 * @since 0.1.0
 */
import { type AnalyticsEngine, type Dataset, DatasetStore, type SemanticModel, type Tenant, type Workspace } from "@analytics/core"
import { Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { afterNewestFirst } from "./SqlKeyset.ts"
import { failAs, isId } from "./StoreErrors.ts"

interface DatasetRow {
  readonly dataset_id: string
  readonly tenant_id: string
  readonly workspace_id: string
  readonly name: string
  readonly description: string | null
  readonly source: Dataset.DatasetSource
  readonly model: SemanticModel.Model
  readonly columns: ReadonlyArray<AnalyticsEngine.TableColumn>
  readonly row_count: number | string | null
  readonly refreshed_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

// Rows were validated on the way in.
const toDataset = (row: DatasetRow): Dataset.Dataset => ({
  ...row,
  dataset_id: row.dataset_id as Dataset.DatasetId,
  tenant_id: row.tenant_id as Tenant.TenantId,
  workspace_id: row.workspace_id as Workspace.WorkspaceId,
  row_count: row.row_count === null ? null : Number(row.row_count)
})

/** The DatasetStore over the `SqlClient` in context. */
export const make = Effect.map(SqlClient.SqlClient, (sql) => {
  const columns = sql.literal(
    "dataset_id, tenant_id, workspace_id, name, description, source, model, columns, row_count, refreshed_at, created_at, updated_at"
  )
  const json = (value: unknown) => JSON.stringify(value)
  return DatasetStore.DatasetStore.of({
    insert: (d) =>
      sql`INSERT INTO datasets (${columns}) VALUES (${d.dataset_id}, ${d.tenant_id}, ${d.workspace_id}, ${d.name}, ${d.description},
          ${json(d.source)}::jsonb, ${json(d.model)}::jsonb, ${json(d.columns)}::jsonb, ${d.row_count}, ${d.refreshed_at},
          ${d.created_at}, ${d.updated_at})`.pipe(Effect.asVoid, failAs("DatasetStore.insert")),
    find: (tenantId, datasetId) => {
      if (!isId(tenantId) || !isId(datasetId)) return Effect.succeed(undefined)
      return sql<DatasetRow>`SELECT ${columns} FROM datasets WHERE tenant_id = ${tenantId} AND dataset_id = ${datasetId}`.pipe(
        Effect.map(([row]) => row === undefined ? undefined : toDataset(row)),
        failAs("DatasetStore.find")
      )
    },
    list: (tenantId, workspaceId, query) => {
      if (!isId(tenantId) || !isId(workspaceId)) return Effect.succeed([])
      return sql<DatasetRow>`SELECT ${columns} FROM datasets
        WHERE tenant_id = ${tenantId} AND workspace_id = ${workspaceId} AND created_at <= ${query.createdAtOrBefore}
          ${afterNewestFirst(sql, query, "dataset_id")}
        ORDER BY created_at DESC, dataset_id ASC LIMIT ${query.take}`.pipe(
        Effect.map((rows) => rows.map(toDataset)),
        failAs("DatasetStore.list")
      )
    },
    update: (d) => {
      if (!isId(d.tenant_id) || !isId(d.dataset_id)) return Effect.succeed(false)
      return sql`UPDATE datasets SET name = ${d.name}, description = ${d.description}, source = ${json(d.source)}::jsonb,
          model = ${json(d.model)}::jsonb, columns = ${json(d.columns)}::jsonb, row_count = ${d.row_count},
          refreshed_at = ${d.refreshed_at}, updated_at = ${d.updated_at}
        WHERE tenant_id = ${d.tenant_id} AND dataset_id = ${d.dataset_id} RETURNING dataset_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("DatasetStore.update")
      )
    },
    remove: (tenantId, datasetId) => {
      if (!isId(tenantId) || !isId(datasetId)) return Effect.succeed(false)
      return sql`DELETE FROM datasets WHERE tenant_id = ${tenantId} AND dataset_id = ${datasetId} RETURNING dataset_id`.pipe(
        Effect.map((rows) => rows.length > 0),
        failAs("DatasetStore.remove")
      )
    }
  })
})
