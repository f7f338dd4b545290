/**
 * A named pipe (FIFO) that a writer outside JavaScript (DuckDB's `COPY … TO`)
 * fills by path while this process reads it as a byte stream: a file of any
 * size passes through the kernel's pipe buffer, and the writer waits while
 * the reader does, so memory stays bounded and nothing touches the disk.
 *
 * @since 0.1.0
 */
import { Effect, type Scope, Stream } from "effect"
import { execFile } from "node:child_process"
import { closeSync, constants, openSync } from "node:fs"
import * as Fs from "node:fs/promises"
import * as Net from "node:net"

/** An open pipe. */
export interface NamedPipe {
  /** Where the writer opens it. */
  readonly path: string
  /**
   * What the writer writes, ending once `writerDone` was called and every
   * writer closed it. Read once.
   */
  readonly bytes: <E>(onError: (cause: unknown) => E) => Stream.Stream<Uint8Array, E>
  /**
   * Tells the pipe the writer has finished or failed (its statement
   * returned): until then the pipe holds a write end itself, so a reader
   * never sees the end before the writer has even opened the pipe.
   */
  readonly writerDone: () => void
  /**
   * Reads and discards until `settled` resolves, so that a writer the reader
   * gave up on neither waits on a full pipe nor blocks opening it.
   */
  readonly drainUntil: (settled: Promise<unknown>) => Promise<void>
}

/** Makes a FIFO at `path` (the `mkfifo` program, as Node has no call for it); false where there is none (Windows). */
const mkfifo = (path: string) =>
  new Promise<boolean>((resolve) => execFile("mkfifo", ["-m", "600", path], (error) => resolve(error === null)))

/** A socket reading a FIFO without blocking a thread (libuv polls the descriptor). */
const reader = (path: string) => new Net.Socket({ fd: openSync(path, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false })

/**
 * Opens a FIFO at `path` for the scope (removed when it closes), or
 * `undefined` where FIFOs cannot be made, for the caller to write a
 * temporary file instead.
 */
export const open = (path: string): Effect.Effect<NamedPipe | undefined, never, Scope.Scope> =>
  Effect.gen(function*() {
    const made = yield* Effect.acquireRelease(
      Effect.promise(() => mkfifo(path)),
      () => Effect.promise(() => Fs.rm(path, { force: true }))
    )
    if (!made) return undefined
    // The read end first: a write end opened without blocking needs a reader.
    const socket = yield* Effect.acquireRelease(Effect.sync(() => reader(path)), (s) => Effect.sync(() => s.destroy()))
    let held: number | undefined = openSync(path, constants.O_WRONLY | constants.O_NONBLOCK)
    const writerDone = () => {
      if (held !== undefined) closeSync(held)
      held = undefined
    }
    yield* Effect.addFinalizer(() => Effect.sync(writerDone))
    return {
      path,
      bytes: (onError) => Stream.fromAsyncIterable<Uint8Array, ReturnType<typeof onError>>(socket, onError),
      writerDone,
      drainUntil: async (settled) => {
        // A fresh read end: the first may be gone (a stream's early end destroys its socket).
        const drain = reader(path)
        drain.on("error", () => {})
        drain.resume()
        await settled.then(() => undefined, () => undefined)
        drain.destroy()
      }
    } satisfies NamedPipe
  })
