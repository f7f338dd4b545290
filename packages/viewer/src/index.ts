/**
 * @analytics/viewer: the report viewer of the share and embed pages, Lit
 * web components bundled by Vite (`npm run build` writes them to `bundle`, shipped in the package).
 * This entry is the data the server hands the viewer, for the server to
 * build it; `@analytics/viewer/assets` reads the built files in Node.
 *
 * @since 0.1.0
 */
export * as ViewerData from "./Data.ts"
export { tokens as brandTokens } from "./theme/Theme.ts"
