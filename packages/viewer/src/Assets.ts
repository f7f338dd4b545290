/**
 * The built bundle, read in Node for the server to serve: each entry
 * script's file name (the share page's viewer, an embed page's token
 * session, the console, the public elements) with the files it imports statically, and every file of `bundle`
 * by name, with its content type and SHA-256. Names are hashed by the
 * build, so a file never changes under its name and can be cached for good.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { extname, join } from "node:path"
import { fileURLToPath } from "node:url"

/** A built file. */
export interface AssetFile {
  readonly body: Uint8Array
  readonly contentType: string
  /** Its SHA-256, hex (an ETag). */
  readonly sha256: string
  /** The body compressed once, at the best setting, for clients that accept it: Brotli, gzip. */
  readonly encoded: { readonly br: Uint8Array; readonly gzip: Uint8Array }
}

/** The bundle's entries, by the name `vite.config.ts` gives them. */
export type EntryName = "viewer" | "embed" | "console" | "elements"

/** An entry script and what loading it fetches before it runs. */
export interface Entry {
  /** Its file name (a key of `files`). */
  readonly file: string
  /**
   * Its static import closure, itself first then the chunks it imports,
   * transitively (not its dynamic `import()`s): what a page preloads
   * (`<link rel="modulepreload">`) and the size its first screen costs.
   */
  readonly closure: ReadonlyArray<string>
}

/** The built bundle. */
export interface ViewerAssets {
  /** The share page's entry script's file name (a key of `files`): `entries.viewer.file`. */
  readonly entry: string
  /** Every entry the build has; an older build may lack the embed's, the console's or the elements'. */
  readonly entries: Readonly<Partial<Record<EntryName, Entry>>>
  readonly files: ReadonlyMap<string, AssetFile>
}

/** A chunk of Vite's manifest (`.vite/manifest.json`). */
interface ManifestChunk {
  readonly file: string
  readonly name?: string
  readonly isEntry?: boolean
  readonly imports?: ReadonlyArray<string>
}

/** The files `key`'s chunk loads before it runs: itself, then its static imports depth first, each once. */
export const closureOf = (manifest: Readonly<Record<string, ManifestChunk>>, key: string): ReadonlyArray<string> => {
  const files: Array<string> = []
  const seen = new Set<string>()
  const visit = (k: string) => {
    const chunk = manifest[k]
    if (chunk === undefined || seen.has(k)) return
    seen.add(k)
    files.push(chunk.file)
    for (const next of chunk.imports ?? []) visit(next)
  }
  visit(key)
  return files
}

/**
 * Where `npm run build` writes the bundle: `bundle` beside `src` and `dist`, so
 * the same path serves this file run from its source and from its build.
 */
export const bundleDir = fileURLToPath(new URL("../bundle", import.meta.url))

const contentTypes: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".woff2": "font/woff2"
}

/** The viewer built in `dir` (its `bundle` by default); throws, saying to build it, when it is not there. */
export const load = (dir: string = bundleDir): ViewerAssets => {
  const manifestPath = join(dir, ".vite", "manifest.json")
  if (!existsSync(manifestPath)) {
    throw new Error(`The report viewer is not built (no ${manifestPath}): run npm run build`)
  }
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, ManifestChunk>
  const entries: Partial<Record<EntryName, Entry>> = {}
  for (const [key, chunk] of Object.entries(manifest)) {
    const name = chunk.name as EntryName | undefined
    if (chunk.isEntry === true && (name === "viewer" || name === "embed" || name === "console" || name === "elements")) {
      entries[name] = { file: chunk.file, closure: closureOf(manifest, key) }
    }
  }
  const entry = entries.viewer?.file
  if (entry === undefined) throw new Error(`The viewer's manifest ${manifestPath} names no viewer entry: run npm run build`)
  const files = new Map<string, AssetFile>()
  for (const name of readdirSync(dir)) {
    const type = contentTypes[extname(name)]
    if (type === undefined) continue
    const body = readFileSync(join(dir, name))
    files.set(name, {
      body: new Uint8Array(body),
      contentType: type,
      sha256: createHash("sha256").update(body).digest("hex"),
      encoded: {
        br: new Uint8Array(brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } })),
        gzip: new Uint8Array(gzipSync(body, { level: 9 }))
      }
    })
  }
  for (const { closure } of Object.values(entries)) {
    const missing = closure.find((file) => !files.has(file))
    if (missing !== undefined) throw new Error(`The bundle's file ${missing} is missing from ${dir}: run npm run build`)
  }
  return { entry, entries, files }
}
