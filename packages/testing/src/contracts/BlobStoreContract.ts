/**
 * The blob store contract: one suite every `BlobStore` must pass unchanged
 * (memory, filesystem, S3). A file goes in as a stream of any chunking and
 * comes back byte for byte with its size; a body that fails leaves nothing
 * behind (and an earlier file under the key whole); removing is idempotent.
 *
 * @since 0.1.0
 */
import { BlobStore, Ids } from "@analytics/core"
import { assert, describe, layer } from "@effect/vitest"
import { Data, Effect, type Layer, Stream } from "effect"

const mebibyte = 1024 * 1024

/** The failure of a body that breaks midway (a query that dies mid-export). */
class BodyBroke extends Data.TaggedError("BodyBroke")<{ readonly after: number }> {}

/** `bytes` pseudo-random bytes from `seed`, the same every time (xorshift32). */
const pseudoRandom = (bytes: number, seed: number): Uint8Array => {
  const out = new Uint8Array(bytes)
  let x = seed | 1
  for (let i = 0; i < bytes; i++) {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    out[i] = x & 0xff
  }
  return out
}

/** `data` as a stream of chunks of uneven sizes (1 byte to 96 KiB), as a renderer or an engine sends them. */
const unevenChunks = (data: Uint8Array): Stream.Stream<Uint8Array> => {
  const chunks: Array<Uint8Array> = []
  let offset = 0
  for (let i = 0; offset < data.length; i++) {
    const size = [1, 4096, 65_536, 98_304, 17][i % 5]
    chunks.push(data.subarray(offset, offset + size))
    offset += size
  }
  return Stream.fromIterable(chunks)
}

/** Whether two byte arrays are equal (an assertion on megabytes would print them all). */
const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((byte, i) => byte === b[i])

/** A key under a fresh prefix, so runs on one shared bucket or directory never meet. */
const freshKey = (name: string) => Effect.map(Ids.uuidv7, (id) => `exports/contract-${id}/job/${name}`)

/** The file under `key`, read whole, or `undefined`. */
const read = (blob: BlobStore.Blob | undefined) =>
  blob === undefined ? Effect.succeed(undefined) : Effect.map(BlobStore.collect(blob.body), (bytes) => ({ size: blob.bytes, bytes }))

/** Registers the contract suite for one blob store. */
export const blobStoreContract = <E>(name: string, store: Layer.Layer<BlobStore.BlobStore, E>): void => {
  describe(`blob store contract: ${name}`, () => {
    layer(store, { timeout: "120 seconds" })((it) => {
      it.effect("keeps a file and gives it back with its size; a second put replaces it; remove forgets it, and may be repeated", () =>
        Effect.gen(function*() {
          const blobs = yield* BlobStore.BlobStore
          const key = yield* freshKey("by_region.csv")
          const first = new TextEncoder().encode("region,total_amount\r\nAPAC,1395\r\nEU,1335\r\n")
          assert.strictEqual(yield* blobs.put(key, Stream.make(first.subarray(0, 10), first.subarray(10))), first.length)
          const kept = yield* read(yield* blobs.get(key))
          assert.strictEqual(kept?.size, first.length)
          assert.isTrue(kept !== undefined && sameBytes(kept.bytes, first))

          const second = new TextEncoder().encode("region,total_amount\r\nUS,1365\r\n")
          assert.strictEqual(yield* blobs.put(key, Stream.make(second)), second.length)
          const replaced = yield* read(yield* blobs.get(key))
          assert.strictEqual(replaced?.size, second.length)
          assert.isTrue(replaced !== undefined && sameBytes(replaced.bytes, second))

          yield* blobs.remove(key)
          assert.isUndefined(yield* blobs.get(key))
          yield* blobs.remove(key)
          assert.isUndefined(yield* blobs.get(yield* freshKey("never-written.csv")))
        }))

      it.effect("an empty body is an empty file", () =>
        Effect.gen(function*() {
          const blobs = yield* BlobStore.BlobStore
          const key = yield* freshKey("empty.json")
          assert.strictEqual(yield* blobs.put(key, Stream.empty), 0)
          const kept = yield* read(yield* blobs.get(key))
          assert.deepStrictEqual(kept, { size: 0, bytes: new Uint8Array(0) })
          yield* blobs.remove(key)
        }))

      it.effect("12 MiB in uneven chunks comes back byte for byte (larger than one part of an object store's multipart upload)", () =>
        Effect.gen(function*() {
          const blobs = yield* BlobStore.BlobStore
          const key = yield* freshKey("rows.parquet")
          const data = pseudoRandom(12 * mebibyte + 12_345, 20261121)
          assert.strictEqual(yield* blobs.put(key, unevenChunks(data)), data.length)
          const kept = yield* read(yield* blobs.get(key))
          assert.strictEqual(kept?.size, data.length)
          assert.isTrue(kept !== undefined && sameBytes(kept.bytes, data), "the bytes read differ from those written")
          yield* blobs.remove(key)
        }))

      it.effect("a body that fails midway fails the put with its own error and leaves nothing; an earlier file under the key stays whole", () =>
        Effect.gen(function*() {
          const blobs = yield* BlobStore.BlobStore
          const broken = (bytes: number) =>
            Stream.concat(unevenChunks(pseudoRandom(bytes, 7)), Stream.fail(new BodyBroke({ after: bytes })))
          // Small (within one part) and large (after parts were sent).
          for (const bytes of [1000, 11 * mebibyte]) {
            const key = yield* freshKey(`broken-${bytes}.csv`)
            const error = yield* Effect.flip(blobs.put(key, broken(bytes)))
            assert.deepStrictEqual(error, new BodyBroke({ after: bytes }))
            assert.isUndefined(yield* blobs.get(key), `a failed put of ${bytes} bytes left a file`)
          }
          const key = yield* freshKey("kept.csv")
          const earlier = pseudoRandom(3000, 11)
          yield* blobs.put(key, Stream.make(earlier))
          assert.deepInclude(yield* Effect.flip(blobs.put(key, broken(11 * mebibyte))), { _tag: "BodyBroke" })
          const kept = yield* read(yield* blobs.get(key))
          assert.isTrue(kept !== undefined && kept.size === earlier.length && sameBytes(kept.bytes, earlier), "the earlier file was damaged")
          yield* blobs.remove(key)
        }))
    })
  })
}
