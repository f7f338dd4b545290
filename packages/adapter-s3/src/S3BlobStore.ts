/**
 * The BlobStore on an S3-compatible object store (AWS S3, MinIO, Ceph RGW,
 * Cloudflare R2, Garage...): results written as one PUT, or as a multipart
 * upload with a few parts in flight when larger than a part, so memory stays
 * bounded whatever the size; an upload that fails or is interrupted is
 * aborted, and S3 shows an object only once it is complete. Downloads go
 * straight to the store through presigned URLs.
 *
 * @since 0.1.0
 */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
  UploadPartCommand
} from "@aws-sdk/client-s3"
import { getSignedUrl } from "@aws-sdk/s3-request-presigner"
import { BlobStore, Errors } from "@analytics/core"
import { Clock, Effect, Exit, Layer, Redacted, Stream } from "effect"

/** Where and how to reach the bucket. */
export interface Config {
  /** The service's URL (`https://minio.example.com:9000`); omitted: AWS S3 in `region`. */
  readonly endpoint?: string | undefined
  readonly region: string
  readonly bucket: string
  /** Put before every key (`analytics/`), to share a bucket. */
  readonly prefix?: string | undefined
  /** Static credentials; omitted: the AWS default chain (environment, profile, instance or pod role). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: Redacted.Redacted<string> } | undefined
  /** `https://host/bucket/key` rather than `https://bucket.host/key`: what most self-hosted stores need. */
  readonly forcePathStyle?: boolean | undefined
  /** Bytes per part of a multipart upload (S3's minimum is 5 MiB); 8 MiB by default. */
  readonly partSize?: number | undefined
  /** Parts uploaded at once; 2 by default. Memory held is about (this + 2) × `partSize`. */
  readonly partsInFlight?: number | undefined
}

/** S3 refuses parts below 5 MiB (the last part excepted). */
const minimumPartSize = 5 * 1024 * 1024

/** A part of an upload: its number from 1, its bytes, and whether the body ends with it. */
interface Part {
  readonly number: number
  readonly data: Uint8Array
  readonly last: boolean
}

/** Marks the end of a body that ended (one that failed never gets it). */
const end = Symbol("end")

/**
 * Cuts a byte stream into parts of exactly `size` bytes, the last one
 * shorter (or empty for an empty body). A part is emitted only once a byte
 * past it has arrived, so each knows whether it is the last: a body of one
 * part is sent as a plain PUT. (The end is an explicit marker, because
 * `mapAccum`'s `onHalt` also runs when the body fails: a failed body must
 * never yield a last part.)
 */
export const parts = (size: number) => <E, R>(body: Stream.Stream<Uint8Array, E, R>): Stream.Stream<Part, E, R> =>
  Stream.concat(body as Stream.Stream<Uint8Array | typeof end, E, R>, Stream.succeed(end)).pipe(Stream.mapAccum(
    () => ({ chunks: [] as Array<Uint8Array>, length: 0, number: 1 }),
    (state, chunk) => {
      if (chunk === end) return [state, [{ number: state.number, data: concat(state.chunks, state.length), last: true }]] as const
      state.chunks.push(chunk)
      state.length += chunk.length
      const out: Array<Part> = []
      while (state.length > size) {
        const joined = concat(state.chunks, state.length)
        out.push({ number: state.number++, data: joined.subarray(0, size), last: false })
        state.chunks = [joined.subarray(size)]
        state.length -= size
      }
      return [state, out] as const
    }
  ))

const concat = (chunks: ReadonlyArray<Uint8Array>, length: number): Uint8Array => {
  if (chunks.length === 1) return chunks[0]
  const joined = new Uint8Array(length)
  let offset = 0
  for (const chunk of chunks) {
    joined.set(chunk, offset)
    offset += chunk.length
  }
  return joined
}

const storeError = (operation: string) => (cause: unknown) => new Errors.StoreError({ operation: `S3BlobStore.${operation}`, cause })

/** Whether the store answered that the object does not exist. */
const isNotFound = (cause: unknown) => {
  const error = cause as { readonly name?: string; readonly $metadata?: { readonly httpStatusCode?: number } } | undefined
  return error?.name === "NotFound" || error?.name === "NoSuchKey" || error?.$metadata?.httpStatusCode === 404
}

/** The client for `config`, destroyed (its sockets closed) with the scope. */
export const client = (config: Config) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const options: S3ClientConfig = {
        region: config.region,
        forcePathStyle: config.forcePathStyle ?? false,
        // Checksums only where S3 requires them: the SDK's default trailing checksums (aws-chunked
        // bodies) are refused by many S3-compatible stores, and TLS already guards the bytes.
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED"
      }
      if (config.endpoint !== undefined) options.endpoint = config.endpoint
      if (config.credentials !== undefined) {
        options.credentials = {
          accessKeyId: config.credentials.accessKeyId,
          secretAccessKey: Redacted.value(config.credentials.secretAccessKey)
        }
      }
      return new S3Client(options)
    }),
    (s3) => Effect.sync(() => s3.destroy())
  )

/** The BlobStore on `s3` and `config`'s bucket. */
export const make = (s3: S3Client, config: Config): BlobStore.BlobStore["Service"] => {
  const partSize = Math.max(config.partSize ?? 8 * 1024 * 1024, minimumPartSize)
  const partsInFlight = Math.max(1, config.partsInFlight ?? 2)
  const Bucket = config.bucket
  const objectKey = (key: string) => `${config.prefix ?? ""}${key}`
  /** Sends a command; interrupting the effect cancels the request. */
  const send = <A>(operation: string, request: (signal: AbortSignal) => Promise<A>) =>
    Effect.tryPromise({ try: request, catch: storeError(operation) })

  return BlobStore.BlobStore.of({
    put: <E>(key: string, body: Stream.Stream<Uint8Array, E>) =>
      Effect.suspend(() => {
        const Key = objectKey(key)
        let uploadId: string | undefined
        const uploaded: Array<{ readonly PartNumber: number; readonly ETag: string }> = []
        let bytes = 0
        /** A part of a multipart upload, the upload started by whichever part comes first. */
        const uploadPart = (started: Effect.Effect<string, Errors.StoreError>, part: Part) =>
          Effect.gen(function*() {
            const UploadId = yield* started
            const sent = yield* send("put", (abortSignal) =>
              s3.send(
                new UploadPartCommand({ Bucket, Key, UploadId, PartNumber: part.number, Body: part.data, ContentLength: part.data.length }),
                { abortSignal }
              ))
            if (sent.ETag === undefined) return yield* storeError("put")(new Error(`UploadPart ${part.number} answered no ETag`))
            uploaded.push({ PartNumber: part.number, ETag: sent.ETag })
          })
        return Effect.gen(function*() {
          const started = yield* Effect.cached(
            send("put", (abortSignal) => s3.send(new CreateMultipartUploadCommand({ Bucket, Key }), { abortSignal })).pipe(
              Effect.flatMap((created) =>
                created.UploadId === undefined
                  ? Effect.fail(storeError("put")(new Error("CreateMultipartUpload answered no UploadId")))
                  : Effect.succeed(uploadId = created.UploadId)
              )
            )
          )
          yield* body.pipe(
            parts(partSize),
            Stream.mapEffect(
              (part) =>
                Effect.map(
                  part.number === 1 && part.last
                    ? Effect.asVoid(send("put", (abortSignal) =>
                      s3.send(new PutObjectCommand({ Bucket, Key, Body: part.data, ContentLength: part.data.length }), { abortSignal })))
                    : uploadPart(started, part),
                  () => void (bytes += part.data.length)
                ),
              { concurrency: partsInFlight }
            ),
            Stream.runDrain
          )
          if (uploadId !== undefined) {
            const UploadId = uploadId
            const Parts = [...uploaded].sort((a, b) => a.PartNumber - b.PartNumber)
            yield* send("put", (abortSignal) =>
              s3.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts } }), { abortSignal }))
          }
          return bytes
        }).pipe(
          // Until completed, the parts are invisible; aborting frees them (a bucket lifecycle rule catches what a crash leaves).
          Effect.onExit((exit) =>
            Exit.isSuccess(exit) || uploadId === undefined
              ? Effect.void
              : send("put", () => s3.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId }))).pipe(
                Effect.catchTag("StoreError", (error) => Effect.logWarning("An aborted upload's parts were left behind", error))
              ))
        )
      }),
    get: (key) =>
      Effect.gen(function*() {
        const Key = objectKey(key)
        const head = yield* send("get", (abortSignal) => s3.send(new HeadObjectCommand({ Bucket, Key }), { abortSignal })).pipe(
          Effect.catchTag("StoreError", (error) =>
            isNotFound(error.cause)
              // A HEAD's 404 has no body to tell a missing object from a missing bucket; a GET's says which
              // (a missing bucket is a fault, not an absent file).
              ? send("get", (abortSignal) => s3.send(new GetObjectCommand({ Bucket, Key }), { abortSignal })).pipe(
                Effect.map((object) => void (object.Body as { destroy?: () => void } | undefined)?.destroy?.()),
                Effect.catchTag("StoreError", (error) =>
                  (error.cause as { readonly name?: string } | undefined)?.name === "NoSuchKey" ? Effect.void : Effect.fail(error))
              )
              : Effect.fail(error))
        )
        if (head === undefined) return undefined
        // Opened when read, and only the object that was measured (a replaced one fails rather than mixes).
        const ifMatch = head.ETag === undefined ? {} : { IfMatch: head.ETag }
        const body = Stream.unwrap(Effect.map(
          send("get", (abortSignal) => s3.send(new GetObjectCommand({ Bucket, Key, ...ifMatch }), { abortSignal })),
          (object) => Stream.fromAsyncIterable(object.Body as AsyncIterable<Uint8Array>, storeError("get"))
        ))
        return { bytes: head.ContentLength ?? 0, body }
      }),
    remove: (key) =>
      Effect.asVoid(send("remove", (abortSignal) => s3.send(new DeleteObjectCommand({ Bucket, Key: objectKey(key) }), { abortSignal }))),
    signedUrl: (key, download) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const command = new GetObjectCommand({
          Bucket,
          Key: objectKey(key),
          ResponseContentDisposition: `attachment; filename="${download.filename}"`,
          ResponseContentType: download.contentType,
          ResponseCacheControl: "private, no-store"
        })
        return yield* send("signedUrl", () =>
          getSignedUrl(s3, command, {
            signingDate: new Date(now),
            // The URL says its signing time in whole seconds, and lasts `expiresIn` from then.
            expiresIn: Math.max(1, Math.floor(download.expiresAt.getTime() / 1000) - Math.floor(now / 1000))
          }))
      })
  })
}

/** The BlobStore on an S3-compatible bucket, with a client of its own for the layer's lifetime. */
export const layer = (config: Config) =>
  Layer.effect(BlobStore.BlobStore, Effect.map(client(config), (s3) => make(s3, config)))
