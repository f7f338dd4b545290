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

/** The viewer's files: its entry script's name (`null` without a viewer) and every file by name. */
export interface ViewerAssetsShape {
  readonly entry: string | null
  readonly files: ReadonlyMap<string, AssetFile>
}

/** The report viewer's built files. */
export class ViewerAssets extends Context.Service<ViewerAssets, ViewerAssetsShape>()("@analytics/adapter-http/ViewerAssets") {
  /** The files `load()` of `@analytics/viewer/assets` read. */
  static readonly layer = (assets: { readonly entry: string; readonly files: ReadonlyMap<string, AssetFile> }) => Layer.succeed(ViewerAssets, assets)
  /** No viewer: shared pages are drawn on the server only. */
  static readonly none = Layer.succeed(ViewerAssets, { entry: null, files: new Map() })
}

/** Where the files are served, under the public base URL. */
export const path = "/assets"

/** Every route, as `[method, path]` (the edge's 404/405 answers know them). */
export const routes: ReadonlyArray<readonly [string, string]> = [["GET", `${path}/:file`]]

/** A hashed name never changes content: cached for a year, never revalidated. */
const immutable = "public, max-age=31536000, immutable"

/** The coding to send `file` in: Brotli, else gzip, when the client accepts it and the file has it; none otherwise. */
const codingFor = (file: AssetFile, accepted: string): "br" | "gzip" | undefined => {
  const codings = accepted.split(",").map((c) => c.trim().split(";")[0]!.toLowerCase())
  return (["br", "gzip"] as const).find((coding) => codings.includes(coding) && file.encoded?.[coding] !== undefined)
}

/** `GET /assets/{file}`: a built file (compressed when the client accepts it), or 404 problem. */
export const layer = Layer.unwrap(Effect.gen(function*() {
  const assets = yield* ViewerAssets
  return HttpRouter.add(
    "GET",
    `${path}/:file`,
    Effect.gen(function*() {
      const params = yield* HttpRouter.params
      const request = yield* HttpServerRequest.HttpServerRequest
      const file = assets.files.get(params.file ?? "")
      if (file === undefined) {
        return HttpServerResponse.jsonUnsafe(Problems.undeclared("resource/not-found", "There is no such asset"), {
          status: 404,
          contentType: "application/problem+json",
          headers: { "cache-control": "no-store" }
        })
      }
      const coding = codingFor(file, request.headers["accept-encoding"] ?? "")
      const headers = { "cache-control": immutable, etag: `"${file.sha256}${coding === undefined ? "" : `-${coding}`}"`, "x-content-type-options": "nosniff", vary: "accept-encoding" }
      return HttpServerResponse.uint8Array(coding === undefined ? file.body : file.encoded![coding]!, {
        contentType: file.contentType,
        headers: coding === undefined ? headers : { ...headers, "content-encoding": coding }
      })
    })
  )
}))
