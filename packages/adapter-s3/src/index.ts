/**
 * @analytics/adapter-s3: export results on any S3-compatible object store,
 * for deployments of several hosts (or none with a shared disk). Bodies
 * stream up in bounded parts; clients download at presigned URLs.
 *
 * @since 0.1.0
 */
/** `BlobStore` on an S3 bucket: `layer(config)`, `make(client, config)`. */
export * as S3BlobStore from "./S3BlobStore.ts"
