/**
 * Test helpers: poppler, the independent reader of exported PDFs, and
 * their pages as pixels.
 *
 * @since 0.1.0
 */
export * as Poppler from "./Poppler.ts"
export * as Raster from "./Raster.ts"
