/**
 * The viewer's bundle: `src/main.ts` and, split off, the Vega chunk it
 * loads when a chart is drawn, as hashed files beside a manifest in `dist`
 * (read by `@analytics/viewer/assets`). Relative URLs (`base: "./"`), so the
 * chunk loads from wherever the service serves the entry.
 */
import { fileURLToPath } from "node:url"
import { defineConfig } from "vite"

const root = fileURLToPath(new URL(".", import.meta.url))

export default defineConfig({
  root,
  base: "./",
  publicDir: false,
  logLevel: "warn",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsDir: "",
    manifest: true,
    target: "es2022",
    // The preload polyfill is an inline script, which the page's policy forbids.
    modulePreload: { polyfill: false },
    rollupOptions: { input: { viewer: fileURLToPath(new URL("src/main.ts", import.meta.url)) } },
    chunkSizeWarningLimit: 1500
  }
})
