/**
 * Exports: the table of formats, jobs, schedules and their stores, document
 * renderers and their branding, the blob store, signed URLs and export mail;
 * and exports at work: requesting them, schedules, exports from shared
 * links, making files, and the worker that runs jobs.
 *
 * @since 0.1.0
 */
export * as BlobStore from "./BlobStore.ts"
export * as Branding from "./Branding.ts"
export * as DocumentRenderers from "./DocumentRenderers.ts"
export * as ExportFiles from "./ExportFiles.ts"
export * as ExportFormats from "./ExportFormats.ts"
export * as ExportJob from "./ExportJob.ts"
export * as ExportSchedule from "./ExportSchedule.ts"
export * as ExportSchedules from "./ExportSchedules.ts"
export * as ExportScheduleStore from "./ExportScheduleStore.ts"
export * as ExportStore from "./ExportStore.ts"
export * as ExportWorker from "./ExportWorker.ts"
export * as Exports from "./Exports.ts"
export * as SharedExports from "./SharedExports.ts"
export * as SignedUrl from "./SignedUrl.ts"
