/**
 * The browser bundle, one build with four entries: `viewer` (the share and
 * embed pages of a report, `src/main.ts`), `embed` (an embed page drawn on
 * the server, which only renews its token: `src/embed/main.ts`), `console`
 * (the web console, `src/console/main.ts`) and `elements` (the public custom
 * elements an embedding app loads, `src/elements.ts`). One Rollup graph, so Lit and the
 * viewer's components are chunks the entries share, and the Vega chunk is
 * loaded when a chart is drawn. Hashed files beside a manifest in `bundle`
 * (read by `@analytics/viewer/assets`). Relative URLs (`base: "./"`), so
 * chunks load from wherever the service serves the entry.
 */
import { fileURLToPath } from "node:url"
import { defaultClientConditions, defineConfig } from "vite"

const root = fileURLToPath(new URL(".", import.meta.url))

export default defineConfig({
  root,
  base: "./",
  publicDir: false,
  logLevel: "warn",
  // The other packages' sources, not their builds: the bundle is built from this checkout as it is.
  resolve: { conditions: ["@analytics/source", ...defaultClientConditions] },
  build: {
    outDir: "bundle",
    emptyOutDir: true,
    assetsDir: "",
    manifest: true,
    target: "es2022",
    // The preload polyfill is an inline script, which the page's policy forbids.
    modulePreload: { polyfill: false },
    rollupOptions: {
      input: {
        viewer: fileURLToPath(new URL("src/main.ts", import.meta.url)),
        embed: fileURLToPath(new URL("src/embed/main.ts", import.meta.url)),
        console: fileURLToPath(new URL("src/console/main.ts", import.meta.url)),
        elements: fileURLToPath(new URL("src/elements.ts", import.meta.url))
      },
      // Lit, which every entry shares, in a chunk of its own: cached once, named for what it is; so are the words (src/i18n).
      output: {
        manualChunks: (id: string) =>
          /[\\/]node_modules[\\/](lit|lit-html|lit-element|@lit[\\/]reactive-element)[\\/]/.test(id)
            ? "lit"
            : /[\\/]src[\\/]i18n[\\/]/.test(id)
            ? "i18n"
            : undefined
      }
    },
    chunkSizeWarningLimit: 1500
  }
})
