/**
 * Test helpers: poppler, the independent reader of exported PDFs.
 *
 * @since 0.1.0
 */
export * as Poppler from "./Poppler.ts"
