/**
 * The report viewer's built files (`@analytics/viewer/assets`), which the
 * host reads and provides: the adapter reads no file itself. Served at
 * `GET /assets/{file}` under names the build hashed, so each is cached
 * for good. Without them (`ViewerAssets.none`) shared reports are still
 * drawn, as the server's SVG, with no script.
 *
 * @since 0.1.0
 */
import { Problems } from "@analytics/api"
import { Context, Effect, Layer } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"

/** A built file. */
export interface AssetFile {
  readonly body: Uint8Array
  readonly contentType: string
  /** Its SHA-256, hex. */
  readonly sha256: string
  /** The body already compressed, by coding; served to clients that accept one. */
  readonly encoded?: Readonly<Partial<Record<"br" | "gzip", Uint8Array>>> | undefined
}

/** An entry script: its file name and its static import closure (itself first), what a page preloads. */
export interface Entry {
  readonly file: string
  readonly closure: ReadonlyArray<string>
}

/** The bundle's entries: the share page's viewer, an embed page's token session (no viewer), the console, the public elements. */
export type Entries = Readonly<Partial<Record<"viewer" | "embed" | "console" | "elements", Entry>>>

/**
 * The bundle's files: the share page's entry script's name (`null` without
 * a viewer), every entry the build has (the console is served only when it
 * has one), and every file by name.
 */
export interface ViewerAssetsShape {
  readonly entry: string | null
  readonly entries: Entries
  readonly files: ReadonlyMap<string, AssetFile>
}

/** The report viewer's built files. */
export class ViewerAssets extends Context.Service<ViewerAssets, ViewerAssetsShape>()("@analytics/adapter-http/ViewerAssets") {
  /** The files `load()` of `@analytics/viewer/assets` read (without `entries`, the viewer's entry alone). */
  static readonly layer = (assets: { readonly entry: string; readonly entries?: Entries | undefined; readonly files: ReadonlyMap<string, AssetFile> }) =>
    Layer.succeed(ViewerAssets, {
      entry: assets.entry,
      entries: assets.entries ?? { viewer: { file: assets.entry, closure: [assets.entry] } },
      files: assets.files
    })
  /** No viewer: shared pages are drawn on the server only, and there is no console. */
  static readonly none = Layer.succeed(ViewerAssets, { entry: null, entries: {}, files: new Map() })
}

/** Where the files are served, under the public base URL. */
export const path = "/assets"

/** Every route, as `[method, path]` (the edge's 404/405 answers know them). */
export const routes: ReadonlyArray<readonly [string, string]> = [["GET", `${path}/:file`]]

/**
 * The stable name of the public elements' entry, for embedding apps'
 * `<script type="module" src=".../assets/analytics-elements.js">`: it
 * changes with each build, so it is revalidated (ETag) at every load; the
 * hashed chunks it imports stay immutable.
 */
export const elementsAlias = "analytics-elements.js"

/** A hashed name never changes content: cached for a year, never revalidated. */
const immutable = "public, max-age=31536000, immutable"

/** The coding to send `file` in: Brotli, else gzip, when the client accepts it and the file has it; none otherwise. */
const codingFor = (file: AssetFile, accepted: string): "br" | "gzip" | undefined => {
  const codings = accepted.split(",").map((c) => c.trim().split(";")[0]!.toLowerCase())
  return (["br", "gzip"] as const).find((coding) => codings.includes(coding) && file.encoded?.[coding] !== undefined)
}

/**
 * `GET /assets/{file}`: a built file (compressed when the client accepts
 * it), `analytics-elements.js` the elements' entry under its stable name
 * (revalidated), or 404 problem.
 */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const assets = yield* ViewerAssets
  return HttpRouter.add(
    "GET",
    `${path}/:file`,
    Effect.gen(function*() {
      const params = yield* HttpRouter.params
      const request = yield* HttpServerRequest.HttpServerRequest
      const alias = params.file === elementsAlias
      const file = assets.files.get(alias ? assets.entries.elements?.file ?? "" : params.file ?? "")
      if (file === undefined) {
        return HttpServerResponse.jsonUnsafe(Problems.undeclared("resource/not-found", "There is no such asset"), {
          status: 404,
          contentType: "application/problem+json",
          headers: { "cache-control": "no-store" }
        })
      }
      const coding = codingFor(file, request.headers["accept-encoding"] ?? "")
      const etag = `"${file.sha256}${coding === undefined ? "" : `-${coding}`}"`
      const headers = { "cache-control": alias ? "no-cache" : immutable, etag, "x-content-type-options": "nosniff", vary: "accept-encoding" }
      if (alias && request.headers["if-none-match"] === etag) return HttpServerResponse.empty({ status: 304, headers })
      return HttpServerResponse.uint8Array(coding === undefined ? file.body : file.encoded![coding]!, {
        contentType: file.contentType,
        headers: coding === undefined ? headers : { ...headers, "content-encoding": coding }
      })
    })
  )
}))
