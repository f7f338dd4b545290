/**
 * The S3 BlobStore against a throwaway S3-compatible server on loopback
 * (`TestS3Server`: S3rver, an emulator of S3, the best available here; its
 * doc says what it checks and what not), never a mock of the client: the
 * blob store contract; a large body read no faster than its parts are
 * stored; failed and interrupted multipart uploads aborted on the server;
 * presigned URLs that plain `fetch` downloads and that refuse tampering and
 * expiry; the key prefix; refusals by the server become StoreErrors.
 */
import { BlobStore, Errors } from "@analytics/core"
import { blobStoreContract, eventually } from "@analytics/testing"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Redacted, Stream } from "effect"
import { TestClock } from "effect/testing"
import * as fc from "fast-check"
import * as Fs from "node:fs/promises"
import * as Path from "node:path"
import { S3BlobStore } from "../src/index.ts"
import { TestS3Server } from "@analytics/testing/s3"

const mebibyte = 1024 * 1024
const partSize = 5 * mebibyte

blobStoreContract("s3", Layer.unwrap(Effect.map(TestS3Server.start(), (server) => S3BlobStore.layer(server.config("contract/")))))

/** A fresh server and a store on it (5 MiB parts, two in flight), for one test. */
const setup = (overrides: Partial<S3BlobStore.Config> = {}) =>
  Effect.gen(function*() {
    const server = yield* TestS3Server.start()
    const config = { ...server.config("results/"), partSize, partsInFlight: 2, ...overrides }
    const store = S3BlobStore.make(yield* S3BlobStore.client(config), config)
    return { server, config, store }
  })

/** `count` chunks of 1 MiB, each made when pulled (after `beforeEach`), the same every run. */
const lazyChunks = (count: number, beforeEach: (index: number) => Effect.Effect<void> = () => Effect.void) =>
  Stream.range(0, count - 1).pipe(Stream.mapEffect((i) => Effect.as(beforeEach(i), new Uint8Array(mebibyte).fill(i % 251))))

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes)

describe("S3BlobStore.parts", () => {
  it.effect("cuts any chunking into parts of exactly the part size, the last shorter and marked; a failed body gets no last part", () =>
    Effect.gen(function*() {
      const samples = fc.sample(
        fc.record({ size: fc.integer({ min: 1, max: 9 }), chunks: fc.array(fc.uint8Array({ maxLength: 20 }), { maxLength: 8 }) }),
        { numRuns: 200, seed: 20261121 }
      )
      for (const { chunks, size } of samples) {
        const parts = yield* Stream.runCollect(S3BlobStore.parts(size)(Stream.fromIterable(chunks)))
        const whole = chunks.flatMap((c) => [...c])
        assert.deepStrictEqual(parts.flatMap((p) => [...p.data]), whole)
        assert.deepStrictEqual(parts.map((p) => p.number), parts.map((_, i) => i + 1))
        assert.deepStrictEqual(parts.map((p) => p.last), parts.map((_, i) => i === parts.length - 1))
        assert.isTrue(parts.slice(0, -1).every((p) => p.data.length === size))
        assert.isTrue(parts.length === 1 || (parts.at(-1)!.data.length >= 1 && parts.at(-1)!.data.length <= size))
        const seen: Array<boolean> = []
        yield* Effect.flip(Stream.runForEach(
          S3BlobStore.parts(size)(Stream.concat(Stream.fromIterable(chunks), Stream.fail("broken"))),
          (p) => Effect.sync(() => void seen.push(p.last))
        ))
        assert.notInclude(seen, true)
      }
    }))
})

describe("S3BlobStore", () => {
  it.live("40 MiB goes up in 5 MiB parts, and the body is read no faster than the server stores them (bounded memory)", () =>
    Effect.gen(function*() {
      const { server, store } = yield* setup()
      const uploads = Path.join(server.directory, server.bucket, "._S3rver_uploads")
      /** Bytes of parts the server holds (written or being written). */
      const stored = Effect.promise(async () => {
        let bytes = 0
        for (const upload of await Fs.readdir(uploads).catch(() => [])) {
          for (const file of await Fs.readdir(Path.join(uploads, upload)).catch(() => [])) {
            if (/^\d+$/.test(file)) bytes += (await Fs.stat(Path.join(uploads, upload, file)).catch(() => ({ size: 0 }))).size
          }
        }
        return bytes
      })
      let maxAhead = 0
      let sawParts = false
      const body = lazyChunks(40, (i) =>
        Effect.map(stored, (held) => {
          sawParts ||= held > 0
          maxAhead = Math.max(maxAhead, i * mebibyte - held)
        }))
      assert.strictEqual(yield* store.put("exports/t/j/rows.csv", body), 40 * mebibyte)
      assert.isTrue(sawParts, "no part was ever stored: not a multipart upload")
      // The part being filled, two in flight, one ready, and a chunk: far below the 40 MiB of the body.
      assert.isAtMost(maxAhead, 4 * partSize + mebibyte)
      assert.strictEqual(yield* server.pendingUploads, 0)
      const kept = yield* store.get("exports/t/j/rows.csv")
      assert.strictEqual(kept?.bytes, 40 * mebibyte)
      const read = yield* BlobStore.collect(kept!.body)
      assert.isTrue(Array.from({ length: 40 }, (_, i) => read[i * mebibyte] === i % 251 && read[(i + 1) * mebibyte - 1] === i % 251).every(Boolean))
    }).pipe(Effect.scoped))

  it.live("a multipart upload whose body fails is aborted: no object, and the server keeps none of its parts", () =>
    Effect.gen(function*() {
      const { server, store } = yield* setup()
      // 11 MiB (two parts sent), then the body fails once the server holds a part.
      const body = Stream.concat(
        lazyChunks(11),
        Stream.fromEffect(Effect.andThen(eventually(Effect.map(server.pendingUploads, (n) => n > 0)), Effect.fail("query died" as const)))
      )
      assert.strictEqual(yield* Effect.flip(store.put("exports/t/j/big.csv", body)), "query died")
      assert.strictEqual(yield* server.pendingUploads, 0)
      assert.isUndefined(yield* store.get("exports/t/j/big.csv"))
    }).pipe(Effect.scoped))

  it.live("an interrupted upload (a canceled job) is aborted too", () =>
    Effect.gen(function*() {
      const { server, store } = yield* setup()
      const partStored = yield* Deferred.make<void>()
      // 11 MiB, then a body that waits for ever once the server holds a part.
      const body = Stream.concat(
        lazyChunks(11),
        Stream.fromEffect(eventually(Effect.map(server.pendingUploads, (n) => n > 0)).pipe(
          Effect.andThen(Deferred.succeed(partStored, undefined)),
          Effect.andThen(Effect.never)
        ))
      )
      const put = yield* Effect.forkChild(store.put("exports/t/j/canceled.csv", body))
      yield* Deferred.await(partStored)
      yield* Fiber.interrupt(put)
      assert.strictEqual(yield* server.pendingUploads, 0)
      assert.isUndefined(yield* store.get("exports/t/j/canceled.csv"))
    }).pipe(Effect.scoped))

  it.live("a presigned URL downloads the file with plain fetch, named and typed; a changed one is refused", () =>
    Effect.gen(function*() {
      const { server, store } = yield* setup()
      const csv = "region,total_amount\r\nAPAC,1395\r\nEU,1335\r\nUS,1365\r\n"
      yield* store.put("exports/t/j/by_region.csv", Stream.make(new TextEncoder().encode(csv)))
      const expiresAt = new Date(Math.floor(Date.now() / 1000) * 1000 + 3_600_000)
      const url = yield* store.signedUrl!("exports/t/j/by_region.csv", { filename: "by_region.csv", contentType: "text/csv; charset=utf-8", expiresAt })
      assert.isTrue(url.startsWith(`${server.endpoint}/${server.bucket}/results/exports/t/j/by_region.csv?`), url)
      assert.strictEqual(new URL(url).searchParams.get("X-Amz-Expires"), "3600")
      const fetched = yield* Effect.promise(() => fetch(url))
      assert.strictEqual(fetched.status, 200)
      assert.strictEqual(fetched.headers.get("content-disposition"), `attachment; filename="by_region.csv"`)
      assert.strictEqual(fetched.headers.get("content-type"), "text/csv; charset=utf-8")
      assert.strictEqual(yield* Effect.promise(() => fetched.text()), csv)

      const refused = (changed: string) => Effect.promise(() => fetch(changed).then(async (r) => ({ status: r.status, body: await r.text() })))
      const tampered = {
        "another object": url.replace("/by_region.csv?", "/other.csv?"),
        "a longer life": url.replace("X-Amz-Expires=3600", "X-Amz-Expires=7200"),
        "another file name": url.replace("by_region.csv%22", "invoice.exe%22"),
        "another signature": url.replace(/X-Amz-Signature=([0-9a-f])/, (_, c) => `X-Amz-Signature=${c === "0" ? "1" : "0"}`)
      }
      for (const [change, changed] of Object.entries(tampered)) {
        assert.notStrictEqual(changed, url, change)
        const answer = yield* refused(changed)
        assert.strictEqual(answer.status, 403, change)
        assert.include(answer.body, "SignatureDoesNotMatch", change)
      }
    }).pipe(Effect.scoped))

  it.effect("a presigned URL past its hour is refused", () =>
    Effect.gen(function*() {
      const { store } = yield* setup()
      yield* store.put("exports/t/j/old.csv", Stream.make(new TextEncoder().encode("a\r\n1\r\n")))
      // Signed two hours ago, for an hour.
      const signedAt = Date.now() - 2 * 3_600_000
      yield* TestClock.setTime(signedAt)
      const url = yield* store.signedUrl!("exports/t/j/old.csv", { filename: "old.csv", contentType: "text/csv", expiresAt: new Date(signedAt + 3_600_000) })
      const answer = yield* Effect.promise(() => fetch(url).then(async (r) => ({ status: r.status, body: await r.text() })))
      assert.strictEqual(answer.status, 403)
      assert.include(answer.body, "Request has expired")
    }).pipe(Effect.scoped))

  it.live("keys live under the prefix, so stores with other prefixes share a bucket without meeting", () =>
    Effect.gen(function*() {
      const { config, server, store } = yield* setup()
      const bare = S3BlobStore.make(yield* S3BlobStore.client(server.config()), server.config())
      const other = S3BlobStore.make(yield* S3BlobStore.client(server.config("other/")), server.config("other/"))
      yield* store.put("exports/t/j/a.json", Stream.make(new TextEncoder().encode("[]")))
      assert.strictEqual(text(yield* BlobStore.collect((yield* bare.get(`${config.prefix}exports/t/j/a.json`))!.body)), "[]")
      assert.isUndefined(yield* other.get("exports/t/j/a.json"))
      assert.isUndefined(yield* bare.get("exports/t/j/a.json"))
    }).pipe(Effect.scoped))

  it.live("what the server refuses (a wrong secret, a missing bucket) is a StoreError, never a missing file", () =>
    Effect.gen(function*() {
      const { server } = yield* setup()
      const wrongSecret = { ...server.config(), credentials: { accessKeyId: "S3RVER", secretAccessKey: Redacted.make("not-the-secret") } }
      const noBucket = { ...server.config(), bucket: "no-such-bucket" }
      for (const config of [wrongSecret, noBucket]) {
        const store = S3BlobStore.make(yield* S3BlobStore.client(config), config)
        for (const attempt of [store.get("exports/t/j/a.csv"), store.put("exports/t/j/a.csv", Stream.make(new Uint8Array(3))), store.remove("exports/t/j/a.csv")]) {
          const error = yield* Effect.flip(attempt)
          assert.instanceOf(error, Errors.StoreError, config.bucket)
        }
      }
    }).pipe(Effect.scoped))
})
