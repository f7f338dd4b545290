/**
 * The blob store contract on the filesystem store (a directory of the real
 * filesystem, removed after the run) and, beside it, core's memory store. Then the
 * filesystem store's partial files: a writer killed mid-write (SIGKILL)
 * leaves one, removed when the key is written again or, untouched for a
 * day, by the sweep the store starts with.
 */
import { BlobStore } from "@analytics/core"
import { blobStoreContract } from "@analytics/testing"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Stream } from "effect"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"
import { FileBlobStore } from "../src/index.ts"

blobStoreContract("memory", BlobStore.BlobStore.layerMemory)

blobStoreContract(
  "filesystem",
  Layer.unwrap(Effect.map(
    Effect.acquireRelease(
      Effect.promise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "analytics-blobs-"))),
      (directory) => Effect.promise(() => Fs.rm(directory, { recursive: true, force: true }))
    ),
    FileBlobStore.layer
  ))
)

describe("filesystem store: partial files a killed writer leaves", () => {
  /** A fresh directory, removed after the test. */
  const tempDirectory = Effect.acquireRelease(
    Effect.promise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "analytics-partials-"))),
    (directory) => Effect.promise(() => Fs.rm(directory, { recursive: true, force: true }))
  )
  /** Writes `file` under `directory`, last modified `ageMillis` ago. */
  const leave = (directory: string, file: string, ageMillis = 0) =>
    Effect.promise(async () => {
      const path = Path.join(directory, file)
      await Fs.mkdir(Path.dirname(path), { recursive: true })
      await Fs.writeFile(path, "half a file")
      const at = new Date(Date.now() - ageMillis)
      await Fs.utimes(path, at, at)
    })
  /** Every file under `directory`, relative to it, sorted. */
  const files = (directory: string) =>
    Effect.promise(async () =>
      (await Fs.readdir(directory, { recursive: true, withFileTypes: true })).filter((e) => e.isFile()).map((e) =>
        Path.relative(directory, Path.join(e.parentPath, e.name))
      ).sort()
    )
  const day = FileBlobStore.stalePartialMillis

  it.live("writing a key again removes the partial files its dead writers left, and nothing else", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      // Two dead runs of a job (killed mid-write), the partial of another key, and files that only look alike.
      yield* leave(directory, "exports/t/job/Sales.pdf.4242.1700000000000.partial")
      yield* leave(directory, "exports/t/job/Sales.pdf.77.1700000009999.partial")
      yield* leave(directory, "exports/t/job/Other.pdf.4242.1700000000000.partial")
      yield* leave(directory, "exports/t/job/Sales.pdf.backup")
      yield* leave(directory, "exports/t/job/Sales.pdf.1.partial")
      yield* leave(directory, "exports/t/other-job/Sales.pdf.4242.1700000000000.partial")
      const store = Context.get(yield* Layer.build(FileBlobStore.layer(directory)), BlobStore.BlobStore)
      const bytes = yield* store.put("exports/t/job/Sales.pdf", Stream.make(new TextEncoder().encode("%PDF whole")))
      assert.strictEqual(bytes, 10)
      assert.deepStrictEqual(yield* files(directory), [
        "exports/t/job/Other.pdf.4242.1700000000000.partial",
        "exports/t/job/Sales.pdf",
        "exports/t/job/Sales.pdf.1.partial",
        "exports/t/job/Sales.pdf.backup",
        "exports/t/other-job/Sales.pdf.4242.1700000000000.partial"
      ])
    }).pipe(Effect.scoped))

  it.live("the sweep removes partial files untouched for a day, at any depth, and leaves newer ones and results", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      yield* leave(directory, "exports/t/canceled/Sales.pdf.4242.1700000000000.partial", day + 60_000)
      yield* leave(directory, "exports/u/v/w/Deep.csv.1.2.partial", 3 * day)
      yield* leave(directory, "exports/t/live/Sales.pdf.4243.1700000000000.partial", day - 60_000)
      yield* leave(directory, "exports/t/old/Sales.pdf", 30 * day)
      const removed = yield* FileBlobStore.sweepPartials(directory, new Date(Date.now() - day))
      assert.strictEqual(removed, 2)
      assert.deepStrictEqual(yield* files(directory), ["exports/t/live/Sales.pdf.4243.1700000000000.partial", "exports/t/old/Sales.pdf"])
      // A missing directory is an error to report, not a crash.
      const missing = yield* Effect.flip(FileBlobStore.sweepPartials(Path.join(directory, "nope"), new Date()))
      assert.strictEqual(missing._tag, "StoreError")
    }).pipe(Effect.scoped))

  it.live("the store sweeps stale partial files in the background when it starts", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      yield* leave(directory, "exports/t/canceled/Sales.pdf.4242.1700000000000.partial", 2 * day)
      yield* leave(directory, "exports/t/live/Sales.pdf.4243.1700000000000.partial")
      yield* Layer.build(FileBlobStore.layer(directory))
      // The sweep does not hold the start up: wait for it (at most 10 s).
      for (let i = 0; i < 200 && (yield* files(directory)).length > 1; i++) yield* Effect.sleep("50 millis")
      assert.deepStrictEqual(yield* files(directory), ["exports/t/live/Sales.pdf.4243.1700000000000.partial"])
    }).pipe(Effect.scoped))
})

describe("filesystem store: files an engine writes itself (putFile)", () => {
  const tempDirectory = Effect.acquireRelease(
    Effect.promise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "analytics-putfile-"))),
    (directory) => Effect.promise(() => Fs.rm(directory, { recursive: true, force: true }))
  )

  it.live("keeps the file written at the path it gives, beside where it will live; a failed write leaves nothing and keeps the earlier file", () =>
    Effect.gen(function*() {
      const directory = yield* tempDirectory
      const blobs = Context.get(yield* Layer.build(FileBlobStore.layer(directory)), BlobStore.BlobStore)
      assert.isDefined(blobs.putFile)
      const key = "exports/t/j/rows.csv"
      let written = ""
      const size = yield* blobs.putFile!(key, (path) =>
        Effect.promise(() => {
          written = path
          return Fs.writeFile(path, "region,total\r\nEU,1\r\n")
        }))
      assert.strictEqual(size, 20)
      // Beside the final file (one rename, no copy), and gone once kept.
      assert.strictEqual(Path.dirname(written), Path.join(directory, "exports/t/j"))
      assert.notStrictEqual(written, Path.join(directory, key))
      yield* Effect.promise(() => Fs.access(written).then(() => assert.fail("the temporary file stayed"), () => undefined))
      const kept = yield* blobs.get(key)
      assert.strictEqual(new TextDecoder().decode(yield* BlobStore.collect(kept!.body)), "region,total\r\nEU,1\r\n")
      // A writer that fails after writing part of its file: nothing of it is kept, the earlier file is whole.
      const failed = yield* blobs.putFile!(key, (path) =>
        Effect.andThen(Effect.promise(() => Fs.writeFile(path, "region,tot")), Effect.fail("engine died" as const))).pipe(Effect.flip)
      assert.strictEqual(failed, "engine died")
      assert.strictEqual(new TextDecoder().decode(yield* BlobStore.collect((yield* blobs.get(key))!.body)), "region,total\r\nEU,1\r\n")
      assert.deepStrictEqual(yield* Effect.promise(() => Fs.readdir(Path.join(directory, "exports/t/j"))), ["rows.csv"])
    }).pipe(Effect.scoped))
})
