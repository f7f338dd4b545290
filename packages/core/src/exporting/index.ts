/**
 * Exports at work: requesting them, schedules, exports from shared links,
 * making files, and the worker that runs jobs.
 *
 * It imports only from the folders before it in core's index.
 *
 * @since 0.1.0
 */
export * as ExportFiles from "./ExportFiles.ts"
export * as ExportSchedules from "./ExportSchedules.ts"
export * as ExportWorker from "./ExportWorker.ts"
export * as Exports from "./Exports.ts"
export * as SharedExports from "./SharedExports.ts"
