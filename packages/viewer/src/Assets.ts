/**
 * The built viewer, read in Node for the server to serve: the entry
 * script's file name and every file of `dist` by name, with its content
 * type and SHA-256. Names are hashed by the build, so a file never changes
 * under its name and can be cached for good.
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

/** The built viewer. */
export interface ViewerAssets {
  /** The entry script's file name (a key of `files`). */
  readonly entry: string
  readonly files: ReadonlyMap<string, AssetFile>
}

/** Where `npm run build` writes the viewer. */
export const distDir = fileURLToPath(new URL("../dist", import.meta.url))

const contentTypes: Readonly<Record<string, string>> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".woff2": "font/woff2"
}

/** The viewer built in `dir` (its `dist` by default); throws, saying to build it, when it is not there. */
export const load = (dir: string = distDir): ViewerAssets => {
  const manifestPath = join(dir, ".vite", "manifest.json")
  if (!existsSync(manifestPath)) {
    throw new Error(`The report viewer is not built (no ${manifestPath}): run npm run build`)
  }
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, { readonly file: string; readonly isEntry?: boolean }>
  const entry = Object.values(manifest).find((chunk) => chunk.isEntry === true)?.file
  if (entry === undefined) throw new Error(`The viewer's manifest ${manifestPath} names no entry: run npm run build`)
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
  if (!files.has(entry)) throw new Error(`The viewer's entry ${entry} is missing from ${dir}: run npm run build`)
  return { entry, files }
}
