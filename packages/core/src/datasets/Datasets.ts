/**
 * Use cases on datasets (decision 0013), one module per concern and one
 * namespace for callers: the records (`DatasetRecords`), the engines they
 * run on (`DatasetEngines`), an upload's rows (`DatasetLoads`), refreshes
 * (`DatasetRefreshes`) and queries run for a principal with their
 * row-level security (`DatasetQueries`).
 *
 * @since 0.1.0
 */
export { type EngineLayers, type EngineRegistry, Engines, EngineUnavailable } from "./DatasetEngines.ts"
export { create, get, list, remove, shown, SourceInvalid, update } from "./DatasetRecords.ts"
export { load, type ModelChoice, NotUploadable, sharedOrphanAge, sweepOrphanTables } from "./DatasetLoads.ts"
export { refresh, refreshDue, refreshes, RefreshNeedsFile } from "./DatasetRefreshes.ts"
export {
  compile,
  csv,
  defaultQueryTimeout,
  type EngineBusy,
  engineWrites,
  fileWriter,
  NotLoaded,
  parquet,
  type PlanError,
  query,
  type QueryError,
  QueryTimedOut,
  securityContext
} from "./DatasetQueries.ts"
