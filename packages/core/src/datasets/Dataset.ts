/**
 * Datasets (decision 0013): rows in the analytics engine, described by a
 * semantic model, belonging to a workspace. Rows come from an uploaded
 * CSV or Parquet file (imported into the embedded engine) or from a table
 * or view of the operator's PostgreSQL (read in place).
 *
 * @since 0.1.0
 */
import { Cron, Result, Schema } from "effect"
import type { TableColumn } from "./AnalyticsEngine.ts"
import { Uuid } from "../platform/Ids.ts"
import { Model } from "./SemanticModel.ts"
import { Name, type TenantId } from "../tenancy/Tenant.ts"
import { WorkspaceId } from "../tenancy/Workspace.ts"

/** A dataset's identifier. */
export const DatasetId = Uuid.pipe(Schema.brand("DatasetId"))
/** A dataset's identifier. */
export type DatasetId = typeof DatasetId.Type

/** An identifier of the operator's PostgreSQL (a schema or a table name). */
const PgName = Schema.String.check(Schema.isMinLength(1), Schema.isMaxCodePoints(63), Schema.isPattern(/^[^\u0000]*$/))

/** A five-field cron expression (UTC), checked by Effect's `Cron`. */
export const CronExpression = Schema.String.check(
  Schema.isMaxCodePoints(100),
  Schema.makeFilter((text) => Result.isSuccess(Cron.parse(text)) || "Expected a cron expression such as \"0 * * * *\"")
)

/** Whether a schedule has a time after `since` and not after `now`. */
export const isDue = (cron: string, since: Date, now: Date): boolean => {
  const parsed = Cron.parse(cron)
  return Result.isSuccess(parsed) && Cron.next(parsed.success, since) <= now
}

/** Where a dataset's rows come from. */
export const DatasetSource = Schema.Union([
  Schema.Struct({ type: Schema.Literal("upload") }).annotate({ description: "A CSV or Parquet file uploaded to PUT /v1/datasets/{id}/data" }),
  Schema.Struct({ type: Schema.Literal("postgres"), schema: Schema.optionalKey(PgName), table: PgName }).annotate({
    description: "A table or view of the operator's PostgreSQL, read in place"
  })
])
/** Where a dataset's rows come from. */
export type DatasetSource = typeof DatasetSource.Type

/** A source's type: `upload`, `postgres`; the key of `sourceTypes` and of the deployment's engines (`Datasets.Engines`). */
export type SourceType = DatasetSource["type"]

/**
 * The engine tables a type of loaded source makes, as the orphan sweep
 * (`Datasets.sweepOrphanTables`) tells them from the rest of its engine's.
 */
export interface OwnTables {
  /** What every table's name starts with (what the engine's `listTables` is asked). */
  readonly prefix: string
  /** Whether a table's name is one its loads make (only such tables are ever swept). */
  readonly isOwn: (name: string) => boolean
  /** When a load's table was begun (epoch milliseconds), if its name tells. */
  readonly startedAt: (name: string) => number | undefined
}

/** How one type of source holds its rows: what `Datasets` asks of it instead of naming the type. */
export type SourceKind<S extends DatasetSource = DatasetSource> =
  & {
    /** The table a dataset's rows are read from. */
    readonly table: (dataset: Pick<Dataset, "dataset_id" | "load_id"> & { readonly source: S }) => ReadonlyArray<string>
  }
  & (
    /**
     * `loaded`: rows loaded from files into tables of the service's own, a
     * table a load (`PUT /v1/datasets/{id}/data`), dropped with the dataset;
     * the tables it makes are `tables`.
     */
    | { readonly rows: "loaded"; readonly tables: OwnTables }
    /**
     * `in-place`: a table the operator names, read where it is, its columns
     * read when the dataset is made and at each refresh (asked, or on its
     * `refresh_cron`).
     */
    | { readonly rows: "in-place" }
  )

/** The prefix of every engine table of uploaded rows. */
export const uploadTablePrefix = "dataset_"

/**
 * The source types, keyed by `type`: a member added to `DatasetSource`
 * fails to compile here until its row is written (then its engine is
 * given to `Datasets.Engines` under the same key). Each row keeps its own
 * `rows` as a literal type (`SourceTypes`), which the console's copy of
 * that column is held to.
 */
export const sourceTypes = {
  upload: {
    rows: "loaded",
    table: (dataset) => [`${uploadTablePrefix}${compact(dataset.dataset_id)}${dataset.load_id === null ? "" : `_${compact(dataset.load_id)}`}`],
    tables: { prefix: uploadTablePrefix, isOwn: (name) => isUploadTable(name), startedAt: (name) => loadStartedAt(name) }
  },
  postgres: { rows: "in-place", table: (dataset) => [dataset.source.schema ?? "public", dataset.source.table] }
} satisfies { readonly [T in SourceType]: SourceKind<Extract<DatasetSource, { readonly type: T }>> }

/** The table of source types, row by row (the console checks its own copy of `rows` against it). */
export type SourceTypes = typeof sourceTypes

/** Whether a source is read in place (refreshed by reading it again) rather than loaded from files. */
export const readsInPlace = (source: DatasetSource): boolean => sourceTypes[source.type].rows === "in-place"

/** The source types whose rows are loaded into tables of the service's own, each with the tables it makes, in the table's order. */
export const loadedSourceTypes = (): ReadonlyArray<readonly [SourceType, OwnTables]> =>
  (Object.keys(sourceTypes) as Array<SourceType>).flatMap((type) => {
    const kind = sourceTypes[type]
    return kind.rows === "loaded" ? [[type, kind.tables] as const] : []
  })

/** A dataset as stored. */
export interface Dataset {
  readonly dataset_id: DatasetId
  readonly tenant_id: TenantId
  readonly workspace_id: WorkspaceId
  readonly name: string
  readonly description: string | null
  readonly source: DatasetSource
  readonly model: Model
  /** The columns of its rows as last loaded (empty before any). */
  readonly columns: ReadonlyArray<TableColumn>
  readonly row_count: number | null
  readonly refreshed_at: Date | null
  /** A PostgreSQL dataset's refresh schedule (a cron expression, UTC), or null. */
  readonly refresh_cron: string | null
  /**
   * An upload dataset's current load (its refresh id), whose engine table
   * holds the rows: switching it is what makes a load's rows current. Null
   * before the first load, for rows loaded before loads had tables of their
   * own (then the table is named by the dataset alone), and for PostgreSQL.
   */
  readonly load_id: string | null
  readonly created_at: Date
  readonly updated_at: Date
}

/** What a client sends to create a dataset. */
export const DatasetCreate = Schema.Struct({
  workspace_id: WorkspaceId,
  name: Name,
  description: Schema.optionalKey(Schema.String.check(Schema.isMaxCodePoints(2000))),
  source: DatasetSource,
  model: Schema.optionalKey(Model.annotate({ description: "Dimensions, measures and row-level security; empty when omitted" })),
  refresh_cron: Schema.optionalKey(Schema.NullOr(CronExpression).annotate({
    description: "PostgreSQL datasets: refresh on this cron schedule (UTC), e.g. \"0 * * * *\""
  }))
})
/** What a client sends to create a dataset. */
export type DatasetCreate = typeof DatasetCreate.Type

/** What a client may change. */
export const DatasetUpdate = Schema.Struct({
  name: Schema.optionalKey(Name),
  description: Schema.optionalKey(Schema.NullOr(Schema.String.check(Schema.isMaxCodePoints(2000)))),
  model: Schema.optionalKey(Model),
  refresh_cron: Schema.optionalKey(Schema.NullOr(CronExpression))
})
/** What a client may change. */
export type DatasetUpdate = typeof DatasetUpdate.Type

const compact = (id: string) => id.replaceAll("-", "")

/**
 * The table a dataset's rows are read from: a PostgreSQL dataset's own, an
 * upload's `dataset_<id>_<load id>` (one per load), or `dataset_<id>` for
 * rows loaded before loads had tables of their own.
 */
export const tableOf = (dataset: Pick<Dataset, "dataset_id" | "source" | "load_id">): ReadonlyArray<string> =>
  // The row of the dataset's own type, which the compiler cannot pair with the union `source` is.
  (sourceTypes[dataset.source.type].table as (dataset: Pick<Dataset, "dataset_id" | "source" | "load_id">) => ReadonlyArray<string>)(dataset)

/**
 * Whether an engine table's name is one uploads make: `dataset_<id>`,
 * `dataset_<id>_<load id>`, or the `dataset_<id>_staging` of earlier
 * versions (only such tables are ever swept as orphans).
 */
export const isUploadTable = (name: string): boolean => /^dataset_[0-9a-f]{32}(_[0-9a-f]{32}|_staging)?$/.test(name)

/** When an upload's load table was begun: the time of its load id (a UUIDv7), if the name has one. */
const loadStartedAt = (name: string): number | undefined => {
  const match = /^dataset_[0-9a-f]{32}_([0-9a-f]{12})[0-9a-f]{20}$/.exec(name)
  return match === null ? undefined : Number.parseInt(match[1]!, 16)
}
