/**
 * @analytics/adapter-documents: exported documents of reports.
 *
 * @since 0.1.0
 */
export * as Documents from "./Documents.ts"
export * as Pdf from "./Pdf.ts"
export * as Png from "./Png.ts"
export * as Pptx from "./Pptx.ts"
export * as Xlsx from "./Xlsx.ts"
