/**
 * Port: where export results are kept (decision 0015: a signed URL to the
 * result). Bodies stream in and out, so a file of any size passes with
 * bounded memory. The filesystem is the default adapter; an S3-compatible
 * one serves deployments of several hosts.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, type Stream } from "effect"
import * as EffectStream from "effect/Stream"
import type { StoreError } from "../platform/Errors.ts"

/** A kept file: its bytes as a stream, and its size. */
export interface Blob {
  readonly bytes: number
  readonly body: Stream.Stream<Uint8Array, StoreError>
}

/** All of a byte stream, in one array. */
export const collect = <E>(body: Stream.Stream<Uint8Array, E>): Effect.Effect<Uint8Array, E> =>
  Effect.map(EffectStream.runCollect(body), (chunks) => {
    const bytes = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0))
    let offset = 0
    for (const chunk of chunks) {
      bytes.set(chunk, offset)
      offset += chunk.length
    }
    return bytes
  })

/** What a download link tells the client about the file it serves. */
export interface Download {
  /** The name the file is saved under (`Content-Disposition`). */
  readonly filename: string
  readonly contentType: string
  /** When the link stops working (to the second). */
  readonly expiresAt: Date
}

/** Kept files, by key (`exports/<tenant>/<job>/<filename>`). */
export class BlobStore extends Context.Service<BlobStore, {
  /** Keeps `body` under `key` whole or not at all (a failed write leaves nothing); its size. */
  readonly put: <E>(key: string, body: Stream.Stream<Uint8Array, E>) => Effect.Effect<number, E | StoreError>
  /** The file under `key`, or `undefined`. */
  readonly get: (key: string) => Effect.Effect<Blob | undefined, StoreError>
  readonly remove: (key: string) => Effect.Effect<void, StoreError>
  /**
   * Keeps under `key` the file `write` makes at a path the store chooses
   * beside where it will live, whole or not at all; its size. For writers
   * that write files themselves (an engine's own `COPY`), so that the
   * bytes never pass through this process. Absent on stores without a
   * local disk (memory, S3): those take `put`.
   */
  readonly putFile?: (<E>(key: string, write: (path: string) => Effect.Effect<void, E>) => Effect.Effect<number, E | StoreError>) | undefined
  /**
   * A URL of the store itself that downloads the file under `key` until
   * `download.expiresAt`, without the service in the path (an object
   * store's presigned URL). Absent: the service serves files itself.
   */
  readonly signedUrl?: ((key: string, download: Download) => Effect.Effect<string, StoreError>) | undefined
}>()("@analytics/core/BlobStore") {
  /** Files in this process's memory (tests, and embedders who keep results elsewhere). */
  static readonly layerMemory = Layer.sync(BlobStore, () => {
    const files = new Map<string, Uint8Array>()
    return {
      put: (key, body) =>
        Effect.map(collect(body), (bytes) => {
          files.set(key, bytes)
          return bytes.length
        }),
      get: (key) =>
        Effect.sync(() => {
          const bytes = files.get(key)
          return bytes === undefined ? undefined : { bytes: bytes.length, body: EffectStream.make(bytes) }
        }),
      remove: (key) => Effect.sync(() => void files.delete(key))
    }
  })
}
