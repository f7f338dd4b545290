/**
 * The BlobStore on a directory of the local filesystem: each file written
 * to a temporary name (`<file>.<pid>.<ms>.partial`) and renamed into place
 * once whole, so a reader never sees half a file. A process killed mid-write
 * leaves its partial file behind: the next write of the key removes it, and
 * a sweep at start removes those of keys never written again.
 *
 * @since 0.1.0
 */
import { BlobStore, Errors } from "@analytics/core"
import { Clock, Effect, Layer, Stream } from "effect"
import { createReadStream } from "node:fs"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"

const storeError = (operation: string) => (cause: unknown) => new Errors.StoreError({ operation: `FileBlobStore.${operation}`, cause })

/** A temporary file's suffix after its key's name: `.<pid>.<ms>.partial`. */
const partialSuffix = /^\.\d+\.\d+\.partial$/

/** Whether `name` (a file name, no directory) is a partial file of a key named `base`. */
const isPartialOf = (base: string, name: string) => name.startsWith(base) && partialSuffix.test(name.slice(base.length))

/** Partial files untouched this long are dead: a live write touches its file at every chunk. */
export const stalePartialMillis = 24 * 3_600_000

/**
 * Removes the leftover partial files of the key at `path` (a dead writer's:
 * the only writer of a key is the job's lease holder, which is about to
 * write it again); how many.
 */
const removePartialsOf = (path: string) =>
  Effect.tryPromise({
    try: async () => {
      const directory = Path.dirname(path)
      const base = Path.basename(path)
      const names = await Fs.readdir(directory)
      const leftovers = names.filter((name) => isPartialOf(base, name))
      await Promise.all(leftovers.map((name) => Fs.rm(Path.join(directory, name), { force: true })))
      return leftovers.length
    },
    catch: storeError("put")
  })

/**
 * Removes the partial files under `directory` last written before
 * `olderThan`: those of writers killed mid-write whose key is never written
 * again (a job canceled after the crash); how many. Newer ones may be live
 * writes (another process on the same directory) and are left.
 */
export const sweepPartials = (directory: string, olderThan: Date): Effect.Effect<number, Errors.StoreError> =>
  Effect.tryPromise({
    try: async () => {
      const root = Path.resolve(directory)
      const entries = await Fs.readdir(root, { recursive: true, withFileTypes: true })
      let removed = 0
      for (const entry of entries) {
        if (!entry.isFile() || !/\.\d+\.\d+\.partial$/.test(entry.name)) continue
        const file = Path.join(entry.parentPath, entry.name)
        const stat = await Fs.stat(file).catch(() => undefined)
        if (stat === undefined || stat.mtimeMs >= olderThan.getTime()) continue
        await Fs.rm(file, { force: true })
        removed++
      }
      return removed
    },
    catch: storeError("sweep")
  })

/**
 * Files under `directory` (made when missing). Partial files older than
 * `stalePartialMillis` are swept in the background at start: a large
 * directory does not hold the host's start up.
 */
export const layer = (directory: string) =>
  Layer.effect(
    BlobStore.BlobStore,
    Effect.gen(function*() {
      const root = Path.resolve(directory)
      yield* Effect.tryPromise({ try: () => Fs.mkdir(root, { recursive: true }), catch: storeError("open") })
      yield* Clock.currentTimeMillis.pipe(
        Effect.flatMap((now) => sweepPartials(root, new Date(now - stalePartialMillis))),
        Effect.tap((removed) => removed > 0 ? Effect.logInfo("Removed stale partial export files").pipe(Effect.annotateLogs({ removed })) : Effect.void),
        Effect.catch((error) => Effect.logWarning("Could not sweep stale partial export files", error)),
        Effect.forkScoped
      )
      /** The file of a key, never outside the directory. */
      const pathOf = (key: string) => {
        const path = Path.resolve(root, key)
        return path.startsWith(`${root}${Path.sep}`) ? path : undefined
      }
      /**
       * Keeps the file `fill` writes at a temporary name beside the key's
       * file (its size, synced to disk) under the key, renamed when whole;
       * a failure leaves nothing. The key's dead writers' partial files go first.
       */
      const keep = <E>(key: string, fill: (temporary: string) => Effect.Effect<number, E | Errors.StoreError>) =>
        Effect.gen(function*() {
          const path = pathOf(key)
          if (path === undefined) return yield* new Errors.StoreError({ operation: "FileBlobStore.put", cause: new Error(`A key outside the store: ${key}`) })
          const temporary = `${path}.${process.pid}.${Date.now()}.partial`
          yield* Effect.tryPromise({ try: () => Fs.mkdir(Path.dirname(path), { recursive: true }), catch: storeError("put") })
          yield* removePartialsOf(path)
          return yield* fill(temporary).pipe(
            Effect.tap(() => Effect.tryPromise({ try: () => Fs.rename(temporary, path), catch: storeError("put") })),
            Effect.onError(() => Effect.promise(() => Fs.rm(temporary, { force: true })))
          )
        })
      /** Writes to the file at `path`, then syncs it; what `write` returns. */
      const synced = <A, E>(path: string, flags: "w" | "r+", write: (file: Fs.FileHandle) => Effect.Effect<A, E>) =>
        Effect.acquireUseRelease(
          Effect.tryPromise({ try: () => Fs.open(path, flags), catch: storeError("put") }),
          (file) => Effect.tap(write(file), () => Effect.tryPromise({ try: () => file.sync(), catch: storeError("put") })),
          (file) => Effect.promise(() => file.close())
        )
      return BlobStore.BlobStore.of({
        put: (key, body) =>
          keep(key, (temporary) =>
            synced(temporary, "w", (file) => {
              let bytes = 0
              return Stream.runForEach(body, (chunk) =>
                Effect.tryPromise({ try: () => file.write(chunk), catch: storeError("put") }).pipe(Effect.map(() => void (bytes += chunk.length)))
              ).pipe(Effect.map(() => bytes))
            })),
        putFile: (key, write) =>
          keep(key, (temporary) =>
            Effect.andThen(
              write(temporary),
              synced(temporary, "r+", (file) => Effect.map(Effect.tryPromise({ try: () => file.stat(), catch: storeError("put") }), (stat) => stat.size))
            )),
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
