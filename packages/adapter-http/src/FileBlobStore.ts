/**
 * The BlobStore on a directory of the local filesystem: each file written
 * to a temporary name and renamed into place once whole, so a reader never
 * sees half a file and a crash leaves none.
 *
 * @since 0.1.0
 */
import { BlobStore, Errors } from "@analytics/core"
import { Effect, Layer, Stream } from "effect"
import { createReadStream } from "node:fs"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"

const storeError = (operation: string) => (cause: unknown) => new Errors.StoreError({ operation: `FileBlobStore.${operation}`, cause })

/** Files under `directory` (made when missing). */
export const layer = (directory: string) =>
  Layer.effect(
    BlobStore.BlobStore,
    Effect.gen(function*() {
      const root = Path.resolve(directory)
      yield* Effect.tryPromise({ try: () => Fs.mkdir(root, { recursive: true }), catch: storeError("open") })
      /** The file of a key, never outside the directory. */
      const pathOf = (key: string) => {
        const path = Path.resolve(root, key)
        return path.startsWith(`${root}${Path.sep}`) ? path : undefined
      }
      return BlobStore.BlobStore.of({
        put: (key, body) =>
          Effect.gen(function*() {
            const path = pathOf(key)
            if (path === undefined) return yield* new Errors.StoreError({ operation: "FileBlobStore.put", cause: new Error(`A key outside the store: ${key}`) })
            const temporary = `${path}.${process.pid}.${Date.now()}.partial`
            yield* Effect.tryPromise({ try: () => Fs.mkdir(Path.dirname(path), { recursive: true }), catch: storeError("put") })
            return yield* Effect.acquireUseRelease(
              Effect.tryPromise({ try: () => Fs.open(temporary, "w"), catch: storeError("put") }),
              (file) =>
                Effect.gen(function*() {
                  let bytes = 0
                  yield* Stream.runForEach(body, (chunk) =>
                    Effect.tryPromise({ try: () => file.write(chunk), catch: storeError("put") }).pipe(Effect.map(() => void (bytes += chunk.length))))
                  yield* Effect.tryPromise({ try: () => file.sync(), catch: storeError("put") })
                  return bytes
                }),
              (file) => Effect.promise(() => file.close())
            ).pipe(
              Effect.tap(() => Effect.tryPromise({ try: () => Fs.rename(temporary, path), catch: storeError("put") })),
              Effect.onError(() => Effect.promise(() => Fs.rm(temporary, { force: true })))
            )
          }),
        get: (key) =>
          Effect.gen(function*() {
            const path = pathOf(key)
            if (path === undefined) return undefined
            const stat = yield* Effect.tryPromise({ try: () => Fs.stat(path), catch: storeError("get") }).pipe(
              Effect.catchTag("StoreError", (error) =>
                (error.cause as NodeJS.ErrnoException)?.code === "ENOENT" ? Effect.succeed(undefined) : Effect.fail(error))
            )
            if (stat === undefined) return undefined
            return {
              bytes: stat.size,
              // A file stream yields Buffers, which are Uint8Arrays.
              body: Stream.fromAsyncIterable<Uint8Array, Errors.StoreError>(createReadStream(path), storeError("get"))
            }
          }),
        remove: (key) => {
          const path = pathOf(key)
          return path === undefined ? Effect.void : Effect.tryPromise({ try: () => Fs.rm(path, { force: true }), catch: storeError("remove") })
        }
      })
    })
  )
