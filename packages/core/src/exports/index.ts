/**
 * The records and ports of exports: the table of formats, jobs, schedules and their stores,
 * document renderers and their branding, the blob store, signed URLs and export mail.
 *
 * It imports only from the folders before it in core's index.
 *
 * @since 0.1.0
 */
export * as BlobStore from "./BlobStore.ts"
export * as Branding from "./Branding.ts"
export * as DocumentRenderers from "./DocumentRenderers.ts"
export * as ExportFormats from "./ExportFormats.ts"
export * as ExportJob from "./ExportJob.ts"
export * as ExportSchedule from "./ExportSchedule.ts"
export * as ExportScheduleStore from "./ExportScheduleStore.ts"
export * as ExportStore from "./ExportStore.ts"
export * as SignedUrl from "./SignedUrl.ts"
