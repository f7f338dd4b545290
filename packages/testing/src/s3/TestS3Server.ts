/**
 * A throwaway S3-compatible server on loopback, per test file: S3rver (the
 * maintained `@20minutes/s3rver` fork), a Node implementation of the S3 REST
 * API over a temporary directory, started on a free port and removed with
 * its scope.
 *
 * S3rver is an emulator of S3, not S3: the best available here, since no
 * S3 server can be installed from Debian bookworm (no MinIO, no moto; Ceph's
 * radosgw needs a cluster) and npm has no other maintained one. It is a real
 * HTTP server speaking the protocol the adapter speaks: it verifies SigV4
 * signatures in headers and presigned query strings (and their expiry),
 * keeps multipart uploads apart until completed, honours `If-Match` and the
 * `response-*` overrides. What it lacks: access control (an unsigned
 * request is let through as anonymous, where S3 refuses it), one fixed key
 * pair (`S3RVER`/`S3RVER`), and AbortMultipartUpload, which this helper adds
 * in front of it (deleting the upload's parts as S3 does, without checking
 * the request's signature) so that tests see whether an adapter aborts.
 *
 * @since 0.1.0
 */
import S3rver from "@20minutes/s3rver"
import { Effect, Redacted, type Scope } from "effect"
import * as Fs from "node:fs/promises"
import * as Os from "node:os"
import * as Path from "node:path"

/**
 * How an S3 client reaches this server: the fields of `S3BlobStore.Config`
 * (`@analytics/adapter-s3`) it sets, by their shape, so this kit depends on
 * no adapter.
 */
export interface ClientConfig {
  readonly endpoint: string
  readonly region: string
  readonly bucket: string
  readonly prefix: string | undefined
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: Redacted.Redacted<string> }
  readonly forcePathStyle: boolean
}

/** A running test server: its URL, its bucket, and the files it keeps them in. */
export interface TestS3Server {
  readonly endpoint: string
  readonly bucket: string
  /** S3rver's data directory (`<bucket>/<key>._S3rver_object`, and `uploads` for parts). */
  readonly directory: string
  /** The adapter's configuration for this server (an `S3BlobStore.Config`), keys under `prefix`. */
  readonly config: (prefix?: string) => ClientConfig
  /** Multipart uploads begun and neither completed nor aborted (their parts still kept). */
  readonly pendingUploads: Effect.Effect<number>
}

/** S3rver's one key pair. */
const accessKeyId = "S3RVER"
const secretAccessKey = "S3RVER"

/** Starts a server with one empty bucket on 127.0.0.1 and a free port; stopped and deleted with the scope. */
export const start = (bucket = "analytics-test"): Effect.Effect<TestS3Server, never, Scope.Scope> =>
  Effect.gen(function*() {
    const directory = yield* Effect.acquireRelease(
      Effect.promise(() => Fs.mkdtemp(Path.join(Os.tmpdir(), "analytics-s3-"))),
      (dir) => Effect.promise(() => Fs.rm(dir, { recursive: true, force: true }))
    )
    const server = new S3rver({
      address: "127.0.0.1",
      port: 0,
      silent: true,
      directory,
      // Buckets are addressed by path: a host name per bucket needs DNS a test machine lacks.
      vhostBuckets: false,
      configureBuckets: [{ name: bucket }]
    })
    /** Where S3rver keeps a bucket's unfinished uploads, one directory each. */
    const uploadsOf = (name: string) => Path.join(directory, name, "._S3rver_uploads")
    // AbortMultipartUpload (DELETE /bucket/key?uploadId=...), which S3rver answers 405.
    server.middleware.unshift(async (ctx, next) => {
      const uploadId = ctx.query.uploadId
      if (ctx.method !== "DELETE" || typeof uploadId !== "string") return next()
      const upload = /^[0-9a-f]+$/.test(uploadId) ? Path.join(uploadsOf(ctx.path.split("/")[1] ?? ""), uploadId) : undefined
      const found = upload !== undefined && await Fs.stat(upload).then(() => true, () => false)
      if (found) await Fs.rm(upload, { recursive: true, force: true })
      ctx.status = found ? 204 : 404
      if (!found) {
        ctx.type = "application/xml"
        ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>`
      }
    })
    const address = yield* Effect.acquireRelease(
      Effect.promise(() => server.run()),
      () => Effect.promise(() => server.close())
    )
    const endpoint = `http://127.0.0.1:${address.port}`
    return {
      endpoint,
      bucket,
      directory,
      config: (prefix) => ({
        endpoint,
        region: "us-east-1",
        bucket,
        prefix,
        credentials: { accessKeyId, secretAccessKey: Redacted.make(secretAccessKey) },
        forcePathStyle: true
      }),
      pendingUploads: Effect.promise(() => Fs.readdir(uploadsOf(bucket)).then((entries) => entries.length, () => 0))
    }
  })
